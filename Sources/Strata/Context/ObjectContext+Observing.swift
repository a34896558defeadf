import Foundation

/// What changed among a context's objects when it saved, merged another context's save, took
/// a child's save, or was reset: what lists built on the context (``FetchedResultsController``,
/// ``ObjectMonitor``) bring themselves up to date from, Core Data's objects-did-change
/// notification as a commit sees it.
public struct ObjectsDidChange: Sendable {
    public var inserted: Set<ObjectID> = []
    public var updated: Set<ObjectID> = []
    public var deleted: Set<ObjectID> = []
    /// The permanent IDs that objects known by a temporary ID received, by temporary ID.
    public var permanentIDs: [ObjectID: ObjectID] = [:]
    /// Whether the context was reset: every object it held is gone.
    public var isReset = false

    public init(
        inserted: Set<ObjectID> = [], updated: Set<ObjectID> = [], deleted: Set<ObjectID> = [], permanentIDs: [ObjectID: ObjectID] = [:],
        isReset: Bool = false
    ) {
        (self.inserted, self.updated, self.deleted, self.permanentIDs, self.isReset) = (inserted, updated, deleted, permanentIDs, isReset)
    }

    /// Whether nothing changed.
    public var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty && permanentIDs.isEmpty && !isReset }
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

    /// Tells the change observers what changed, on the context's queue.
    func objectsDidChange(_ change: @autoclosure () -> ObjectsDidChange) {
        let handlers = changeObservers.withLock { Array($0.values) }
        guard !handlers.isEmpty else { return }
        let change = change()
        guard !change.isEmpty else { return }
        for handler in handlers { handler(change) }
    }
}
