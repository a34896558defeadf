import Foundation

/// What changed among a context's objects when it saved, merged another context's save, took
/// a child's save, or was reset: what lists built on the context (``FetchedResultsController``,
/// ``ObjectMonitor``) bring themselves up to date from, Core Data's objects-did-change
/// notification as a commit sees it.
public struct ObjectsDidChange: Sendable {
    /// Objects that entered the context (inserted, or merged in from another context's save).
    public var inserted: Set<ObjectID> = []
    /// Objects whose values changed.
    public var updated: Set<ObjectID> = []
    /// Objects that were deleted.
    public var deleted: Set<ObjectID> = []
    /// The permanent IDs that objects known by a temporary ID received, by temporary ID.
    public var permanentIDs: PermanentIDs = [:]
    /// The properties whose values changed, for the ``updated`` objects whose change is known
    /// property by property (an object a batch request or another process changed is not).
    public var changedKeys: [ObjectID: Set<String>] = [:]
    /// Whether the context was reset: every object it held is gone.
    public var isReset = false
    /// Whether another connection (another process, say) wrote a store that keeps no
    /// persistent history, found by comparing rows: objects it inserted are not listed, so lists
    /// fetch again to find them. (From a store that keeps history, ``inserted`` lists them.)
    public var storeChangedElsewhere = false

    /// A change listing the given objects; the context makes these, a test may make its own.
    init(
        inserted: Set<ObjectID> = [], updated: Set<ObjectID> = [], deleted: Set<ObjectID> = [], permanentIDs: PermanentIDs = [:],
        changedKeys: [ObjectID: Set<String>] = [:], isReset: Bool = false
    ) {
        (self.inserted, self.updated, self.deleted, self.permanentIDs, self.changedKeys, self.isReset) =
            (inserted, updated, deleted, permanentIDs, changedKeys, isReset)
    }

    /// Takes `later`, a change that followed this one, into this one: what one notice of both
    /// says. IDs that became permanent in `later` replace the temporary ones here; only those of
    /// objects this change did not bring in stay in ``permanentIDs``, since observers knew the
    /// others by no ID yet.
    mutating func absorb(_ later: ObjectsDidChange) {
        let rename = { (id: ObjectID) in later.permanentIDs[id] ?? id }
        if !later.permanentIDs.isEmpty {
            inserted = Set(inserted.map(rename))
            updated = Set(updated.map(rename))
            deleted = Set(deleted.map(rename))
            changedKeys = Dictionary(changedKeys.map { (rename($0.key), $0.value) }) { $0.union($1) }
            // Merged whole rather than pair by pair: pairs that fall between those held would
            // each move every run after their place.
            let brought = inserted
            permanentIDs.merge(PermanentIDs(pairs: later.permanentIDs.lazy.filter { !brought.contains($0.value) }.map { ($0.key, $0.value) }))
        }
        inserted.formUnion(later.inserted)
        updated.formUnion(later.updated.subtracting(inserted))
        deleted.formUnion(later.deleted)
        inserted.subtract(deleted)
        updated.subtract(deleted)
        changedKeys.merge(later.changedKeys) { $0.union($1) }
        isReset = isReset || later.isReset
        storeChangedElsewhere = storeChangedElsewhere || later.storeChangedElsewhere
    }

    /// Whether nothing changed.
    public var isEmpty: Bool {
        inserted.isEmpty && updated.isEmpty && deleted.isEmpty && permanentIDs.isEmpty && !isReset && !storeChangedElsewhere
    }
}

extension ObjectContext {
    /// Calls `handler` on the context's queue after each save, merge, child's save or reset
    /// that changed the context's objects, with what changed. Keep the returned observation:
    /// releasing it stops the calls.
    ///
    /// ```swift
    /// let observation = context.addObjectsDidChangeObserver { change in
    ///     print(change.inserted.count, "new objects")
    /// }
    /// ```
    public func addObjectsDidChangeObserver(_ handler: @escaping @Sendable (ObjectsDidChange) -> Void) -> DidSaveObservation {
        let token = UUID()
        changeObservers.withLock { $0[token] = handler }
        return DidSaveObservation { [weak self] in
            _ = self?.changeObservers.withLock { $0.removeValue(forKey: token) }
        }
    }

    /// Whether anything hears of changes to the context's objects.
    var hasChangeObservers: Bool {
        !changeObservers.withLock(\.isEmpty)
    }

    /// What this context's save of `inserted`, `updated` and `deleted` tells its change
    /// observers: each object once, with the keys of an update, leaving out the objects a
    /// child's push told them of already with the same values. Call it before the save commits
    /// the values.
    func changeToAnnounce(inserted: [ManagedObject], updated: [ManagedObject], deleted: [ManagedObject]) -> ObjectsDidChange {
        let announced = announcedChanges
        announcedChanges = [:]
        guard hasChangeObservers else { return ObjectsDidChange() }
        let isNews = { (object: ManagedObject) in announced[object.objectID].map { $0 != object.changedValues } ?? true }
        var change = ObjectsDidChange(
            inserted: Set(inserted.lazy.filter(isNews).map(\.objectID)), deleted: Set(deleted.map(\.objectID)))
        for object in updated where isNews(object) {
            change.updated.insert(object.objectID)
            change.changedKeys[object.objectID] = object.changedValues.keys(differingFrom: object.committedValues)
        }
        return change
    }

    /// Tells the change observers what changed, on the context's queue; while the context
    /// holds its notices (a commit through it is under way), adds the change to the one it
    /// will tell.
    func objectsDidChange(_ change: @autoclosure () -> ObjectsDidChange) {
        let handlers = changeObservers.withLock { Array($0.values) }
        guard !handlers.isEmpty else { return }
        let change = change()
        guard !change.isEmpty else { return }
        if heldChange != nil {
            heldChange?.absorb(change)
            return
        }
        for handler in handlers { handler(change) }
    }

    /// Holds the change notices from now until ``releaseChangeNotices()``, so that a commit
    /// that passes through this context tells each object once, under its permanent ID, rather
    /// than as it arrives, as it is saved, and as its ID becomes permanent.
    func holdChangeNotices() {
        guard heldChange == nil, hasChangeObservers else { return }
        heldChange = ObjectsDidChange()
    }

    /// Tells the change observers, in one notice, what changed while they were held.
    func releaseChangeNotices() {
        guard let held = heldChange else { return }
        heldChange = nil
        objectsDidChange(held)
    }
}
