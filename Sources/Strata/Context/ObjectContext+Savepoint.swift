extension ObjectContext {
    /// The context's unsaved changes at one moment, to go back to: a transaction within a
    /// transaction, undone alone when it fails.
    ///
    /// ```swift
    /// let savepoint = context.savepoint()
    /// try book.setValue("Draft", forKey: "title")
    /// context.rollback(to: savepoint)      // the title is as it was at the savepoint
    /// ```
    ///
    /// A save in between makes the savepoint meaningless: saved changes are not undone. A
    /// savepoint holds the objects inserted at that moment.
    public struct Savepoint: Sendable {
        /// The objects inserted then, with the IDs they had: one that holds another ID now was
        /// saved since, or one that is no longer registered under it left the context, and
        /// neither is inserted again.
        fileprivate let inserted: [(object: ManagedObject, id: ObjectID)]
        fileprivate let deleted: Set<ObjectID>
        fileprivate let droppedInserts: Set<ObjectID>
        fileprivate let changes: [ObjectID: PropertyValues]
    }

    /// The unsaved changes as they are now.
    public func savepoint() -> Savepoint {
        assertOnQueue()
        var changes: [ObjectID: PropertyValues] = [:]
        for (id, object) in registered where object.holdsChanges { changes[id] = object.changedValues }
        return Savepoint(
            inserted: inserted.objects.map { ($0, $0.objectID) }, deleted: deletedIDs, droppedInserts: pendingDroppedInserts, changes: changes)
    }

    /// Throws away the changes made since `savepoint`: objects inserted since leave the
    /// context, and every other object's unsaved values are those it had then.
    public func rollback(to savepoint: Savepoint) {
        assertOnQueue()
        let earlier = Set(savepoint.inserted.map(\.id)).union(savepoint.droppedInserts)
        for id in inserted.objects.map(\.objectID) + pendingDroppedInserts where !earlier.contains(id) {
            if let object = registered.removeValue(forKey: id) { unlistAsChanged(object) }
        }
        inserted.removeAll()
        for (object, id) in savepoint.inserted where registered[id] === object { inserted.insert(object) }
        deletedIDs = savepoint.deleted
        pendingDroppedInserts = savepoint.droppedInserts
        for (id, object) in registered {
            if let changes = savepoint.changes[id] { object.changedValues = changes } else { object.changedValues.removeAll() }
        }
    }
}
