import Foundation

/// Persistent history seen from a context: reading it, merging a transaction, and taking in
/// what other processes saved (``mergeExternalChanges()``).
extension ObjectContext {
    /// Runs a history request on the context's store (see ``PersistentStore/execute(_:)``).
    ///
    /// ```swift
    /// let transactions = try context.execute(.fetchHistory(after: lastToken)).transactions
    /// for transaction in transactions where transaction.author != "app" {
    ///     context.mergeChanges(from: transaction)
    /// }
    /// ```
    ///
    /// - Throws: ``ContextError/store(_:)`` with the store's error: a store without history,
    ///   a token of another store, a failure to read.
    @discardableResult
    public func execute(_ request: PersistentHistoryChangeRequest) throws(ContextError) -> PersistentHistoryResult {
        do {
            return try store.execute(request)
        } catch {
            throw ContextError(storeFailure: error)
        }
    }

    /// The ID of the object a history change is about.
    public func objectID(for change: PersistentHistoryChange) -> ObjectID {
        permanentID(entityName: change.entityName, primaryKey: change.primaryKey)
    }

    /// The did-save notification a transaction stands for: its objects' IDs as inserted,
    /// updated and deleted, without values (Core Data's `objectIDNotification()`). Merging it
    /// makes updated objects read their rows again.
    public func objectIDNotification(for transaction: PersistentHistoryTransaction) -> ContextDidSave {
        notification(for: [transaction])
    }

    /// Applies a transaction of the store's history to this context, as a did-save
    /// notification of it would: updated objects held here read their rows again (their
    /// unsaved changes stay on top), deleted ones leave the context, and change observers (and
    /// fetched-results controllers) hear of the inserted, updated and deleted objects.
    ///
    /// - Returns: what changed.
    @discardableResult
    public func mergeChanges(from transaction: PersistentHistoryTransaction) -> ObjectsDidChange {
        assertOnQueue()
        return merge(objectIDNotification(for: transaction))
    }

    /// One notification of several transactions, in order: an object inserted and then
    /// deleted is deleted, and so on.
    func notification(for transactions: [PersistentHistoryTransaction]) -> ContextDidSave {
        var inserted: Set<ObjectID> = [], updated: Set<ObjectID> = [], deleted: Set<ObjectID> = []
        for change in transactions.flatMap(\.changes) where model.entity(named: change.entityName) != nil {
            let id = objectID(for: change)
            switch change.changeType {
            case .insert:
                inserted.insert(id)
                deleted.remove(id)
            case .update:
                if !inserted.contains(id) { updated.insert(id) }
            case .delete:
                inserted.remove(id)
                updated.remove(id)
                deleted.insert(id)
            }
        }
        return ContextDidSave(
            contextName: transactions.last?.contextName, insertedObjectIDs: inserted, updatedObjectIDs: updated, deletedObjectIDs: deleted,
            permanentIDs: [:], savedObjects: [:], source: ObjectIdentifier(self))
    }

    // MARK: - Other processes' saves

    /// Takes in what other connections to the store (another process, or a stack's batch
    /// context) saved since the last call, and returns what changed.
    ///
    /// Where the store keeps persistent history, the transactions saved elsewhere since the
    /// last call say which objects were inserted, updated and deleted; otherwise the rows of
    /// the objects the context holds are compared with the versions it read, and the change
    /// says that the store changed elsewhere, so that lists fetch again for rows inserted
    /// there. Either way updated objects read their rows again (their unsaved changes stay on
    /// top), deleted ones leave the context, and its change observers hear of it.
    ///
    /// On a child context, the context on the store takes the changes in, and they pass down
    /// through every context between that merges its parent's changes, this one included: a
    /// script or a list on the main context of a three-tier stack sees another process's save.
    /// Cheap when nothing changed (one `PRAGMA data_version`). The first call only notes where
    /// the store stands, unless a ``FetchedResultsController`` or ``ObjectMonitor`` on the
    /// context noted it already.
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
        return try externalChanges(passingTo: nil)?.change ?? ObjectsDidChange()
    }

    /// Takes in the store's external changes through the chain: the context on the store
    /// reads them, and each context from there down to this one merges them and passes them
    /// to its merging children but `requester`, the next one down, which merges them itself.
    private func externalChanges(passingTo requester: ObjectContext?) throws(ContextError) -> (notification: ContextDidSave, change: ObjectsDidChange)? {
        var notification: ContextDidSave
        if let parent {
            guard let fromParent = try parent.performAndWait({ () throws(ContextError) in try parent.externalChanges(passingTo: self) }) else {
                return nil
            }
            notification = fromParent.notification
            // Without history, each context compares the rows of the objects it holds itself.
            if notification.storeChangedElsewhere { notification = try storeRead { try comparedRows() } }
        } else {
            guard let read = try readExternalChanges() else { return nil }
            notification = read
        }
        let merged = notification
        let change = merge(merged)
        for child in mergingChildren() where child !== requester {
            child.perform { child.merge(merged) }
        }
        return (merged, change)
    }

    private func storeRead<T>(_ body: () throws -> T) throws(ContextError) -> T {
        do {
            return try store.withConnection(body)
        } catch {
            throw ContextError(storeFailure: error)
        }
    }

    /// What other connections saved since the last look, as a notification without values;
    /// `nil` when nothing (or on the first look, which notes where the store stands).
    private func readExternalChanges() throws(ContextError) -> ContextDidSave? {
        try storeRead { () throws -> ContextDidSave? in
                let version = try store.database.scalar("PRAGMA data_version")?.int64Value
                defer { externalDataVersion = version }
                guard let known = externalDataVersion else {
                    externalHistoryToken = try store.currentHistoryToken()
                    return nil
                }
                guard known != version else { return nil }
                if try store.historyTablesExist() {
                    let last = externalHistoryToken?.transactionNumber ?? 0
                    let transactions = try store.fetchHistory(after: externalHistoryToken)
                    externalHistoryToken = try store.currentHistoryToken()
                    // History pruned past the last look leaves a gap: what fell in it is found
                    // by comparing rows.
                    if let first = transactions.first, first.transactionNumber > last + 1 { return try comparedRows() }
                    return notification(for: transactions.filter { !store.wroteHistoryTransaction($0.transactionNumber) })
                }
            return try comparedRows()
        }
    }

    /// The objects held whose rows another connection changed or deleted, found by comparing
    /// versions: what a store without history tells.
    private func comparedRows() throws -> ContextDidSave {
        var updated: Set<ObjectID> = [], deleted: Set<ObjectID> = []
        let saved = registered.values.filter { !$0.objectID.isTemporary && !$0.isFault }
        for (entityName, objects) in Dictionary(grouping: saved, by: \.objectID.entityName) {
            let versions = try store.versions(entityName, primaryKeys: objects.compactMap(\.objectID.primaryKey))
            for object in objects {
                guard let stored = versions[object.objectID.primaryKey ?? 0] else {
                    deleted.insert(object.objectID)
                    continue
                }
                if stored != object.version { updated.insert(object.objectID) }
            }
        }
        var notification = ContextDidSave(
            contextName: nil, insertedObjectIDs: [], updatedObjectIDs: updated, deletedObjectIDs: deleted, permanentIDs: [:],
            savedObjects: [:], source: ObjectIdentifier(self))
        notification.storeChangedElsewhere = true
        return notification
    }

    /// Notes where the store stands, for ``mergeExternalChanges()``, unless it is noted: on
    /// the context on the store, which reads for the chain.
    func noteExternalDataVersion() {
        if let parent {
            parent.performAndWait { parent.noteExternalDataVersion() }
            return
        }
        guard externalDataVersion == nil else { return }
        _ = try? store.withConnection {
            externalDataVersion = try store.database.scalar("PRAGMA data_version")?.int64Value
            externalHistoryToken = try store.currentHistoryToken()
        }
    }
}
