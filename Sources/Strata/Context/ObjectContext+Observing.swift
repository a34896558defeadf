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
    /// Whether another connection (another process, say) wrote the store: objects it inserted
    /// are not listed, so lists fetch again to find them.
    public var storeChangedElsewhere = false

    public init(
        inserted: Set<ObjectID> = [], updated: Set<ObjectID> = [], deleted: Set<ObjectID> = [], permanentIDs: [ObjectID: ObjectID] = [:],
        isReset: Bool = false
    ) {
        (self.inserted, self.updated, self.deleted, self.permanentIDs, self.isReset) = (inserted, updated, deleted, permanentIDs, isReset)
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

    /// Tells the change observers what changed, on the context's queue.
    func objectsDidChange(_ change: @autoclosure () -> ObjectsDidChange) {
        let handlers = changeObservers.withLock { Array($0.values) }
        guard !handlers.isEmpty else { return }
        let change = change()
        guard !change.isEmpty else { return }
        for handler in handlers { handler(change) }
    }
}

extension ObjectContext {
    /// Takes in what other connections to the store (another process, or a stack's batch
    /// context) saved since the last call: objects whose rows changed read them again (their
    /// unsaved changes stay on top), objects whose rows are gone leave the context, and the
    /// change observers hear of both, and that the store changed elsewhere, so that lists
    /// fetch again for rows inserted there. Cheap when nothing changed (one `PRAGMA
    /// data_version`). The first call only notes where the store stands, unless a
    /// ``FetchedResultsController`` or ``ObjectMonitor`` on the context noted it already.
    ///
    /// ```swift
    /// timer.onTick { viewContext.perform { try? viewContext.mergeExternalChanges() } }
    /// ```
    ///
    /// - Returns: what changed.
    /// - Throws: ``ContextError/store(_:)`` when the store cannot be read.
    @discardableResult
    public func mergeExternalChanges() throws(ContextError) -> ObjectsDidChange {
        assertOnQueue()
        guard parent == nil else { return ObjectsDidChange() }
        var change = ObjectsDidChange()
        do {
            try store.withConnection {
                let version = try store.database.scalar("PRAGMA data_version")?.int64Value
                defer { externalDataVersion = version }
                guard let known = externalDataVersion, known != version else { return }
                change.storeChangedElsewhere = true
                let saved = registered.values.filter { !$0.objectID.isTemporary && !$0.isFault }
                for (entityName, objects) in Dictionary(grouping: saved, by: \.objectID.entityName) {
                    let versions = try store.versions(entityName, primaryKeys: objects.compactMap(\.objectID.primaryKey))
                    for object in objects {
                        guard let stored = versions[object.objectID.primaryKey ?? 0] else {
                            change.deleted.insert(object.objectID)
                            continue
                        }
                        if stored != object.version { change.updated.insert(object.objectID) }
                    }
                }
            }
        } catch {
            throw ContextError(storeFailure: error)
        }
        for id in change.updated {
            if let object = registered[id] { refresh(object, mergeChanges: true) }
        }
        for id in change.deleted {
            if let object = registered.removeValue(forKey: id) { ManagedObject.ownershipLock.withLock { object.detachLocked() } }
            deletedIDs.remove(id)
        }
        objectsDidChange(change)
        return change
    }

    /// Notes where the store stands, for ``mergeExternalChanges()``, unless it is noted.
    func noteExternalDataVersion() {
        guard parent == nil, externalDataVersion == nil else { return }
        externalDataVersion = try? store.withConnection { try store.database.scalar("PRAGMA data_version")?.int64Value }
    }
}

