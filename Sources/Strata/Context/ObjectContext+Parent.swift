extension ObjectContext {
    /// A child's save: its inserted, changed and deleted objects become the parent's pending
    /// changes, with the same IDs. Inverses and delete rules were applied in the child, so
    /// the parent takes the values as they are.
    func pushToParent() throws(ContextError) {
        guard let parent else { return }
        let inserted = insertionOrder.filter { insertedIDs.contains($0) }.compactMap { registered[$0] }
        let updated = updatedObjects
        let deleted = deletedObjects
        let insertedValues = inserted.map { ($0.objectID, $0.committedValues.merging($0.changedValues) { $1 }) }
        let changes = updated.map { object in (object.objectID, object.changedValues.filter { object.changedKeys.contains($0.key) }) }
        let deletedObjectIDs = deleted.map(\.objectID)
        try parent.performAndWaitTyped { () throws(ContextError) in
            for (id, values) in insertedValues {
                let object = parent.object(with: id)
                object.isFault = false
                object.changedValues = values
                parent.insertedIDs.insert(id)
                parent.insertionOrder.append(id)
            }
            for (id, values) in changes {
                let object = parent.object(with: id)
                try parent.fireFault(object)
                object.changedValues.merge(values) { $1 }
            }
            for id in deletedObjectIDs {
                if parent.insertedIDs.remove(id) != nil {
                    parent.pendingDroppedInserts.insert(id)
                } else {
                    try parent.fireFault(parent.object(with: id))
                    parent.deletedIDs.insert(id)
                }
            }
            parent.announceToChildren(except: self)
        }
        let newlyInserted = Set(inserted.map(\.objectID))
        commitSaved(inserted + updated, versions: [:], deleted: deleted)
        for object in inserted {
            registered[object.objectID] = object
        }
        announce(didSaveNotification(saved: inserted + updated, inserted: newlyInserted, deleted: Set(deletedObjectIDs), permanentIDs: [:]))
    }

    /// After a child pushed into this context, its other children that merge automatically
    /// merge the pushed state.
    private func announceToChildren(except pusher: ObjectContext) {
        let changed = registered.values.filter { $0.hasChanges && !deletedIDs.contains($0.objectID) }
        let notification = didSaveNotification(saved: changed, inserted: insertedIDs, deleted: deletedIDs, permanentIDs: [:])
        for child in mergingChildren() where child !== pusher {
            child.perform { child.mergeChanges(fromContextDidSave: notification) }
        }
    }

    /// Saves this context and each parent up to the store, in order (KarthVader's `commit`).
    /// Afterwards the context's inserted objects have their permanent IDs.
    public func commit() throws(ContextError) {
        _ = try commitChain()
    }

    /// ``commit()``, returning the permanent IDs the store save gave temporary ones.
    private func commitChain() throws(ContextError) -> [ObjectID: ObjectID] {
        guard let parent else {
            let before = Set(insertedIDs)
            try save()
            return lastPermanentIDs.filter { before.contains($0.key) }
        }
        try save()
        let permanent = try parent.performAndWaitTyped { () throws(ContextError) in try parent.commitChain() }
        rekey(permanent)
        return permanent
    }

    /// Gives `objects` (inserted into this context on the store) their permanent IDs now,
    /// before the save: the keys are taken from `Z_MAX` in a transaction of their own.
    public func obtainPermanentIDs(for objects: [ManagedObject]) throws(ContextError) {
        assertOnQueue()
        guard parent == nil else { throw .store("obtainPermanentIDs needs a context on the store; save the child first") }
        let temporary = objects.filter(\.objectID.isTemporary)
        guard !temporary.isEmpty else { return }
        var map: [ObjectID: ObjectID] = [:]
        do {
            try store.withConnection {
                try store.database.inTransaction {
                    for object in temporary {
                        let key = try store.allocatePrimaryKeys(for: object.objectID.entityName).lowerBound
                        map[object.objectID] = ObjectID(entityName: object.objectID.entityName, storeIdentifier: store.metadata.uuid, key: .permanent(key))
                    }
                }
            }
        } catch {
            throw .store(String(describing: error))
        }
        rekey(map)
    }
}
