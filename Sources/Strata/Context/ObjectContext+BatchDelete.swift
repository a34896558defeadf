extension ObjectContext {
    /// Runs `request` on the store in one transaction, as SQL, reading no object (see
    /// ``BatchDeleteRequest`` for the rules it keeps). Each deletion is logged with `reason`
    /// as ``delete(matching:reason:activity:)`` logs it, when the log's level shows it.
    ///
    /// `shouldCommit`, when given, sees what was deleted before the transaction commits; when it
    /// returns `false`, the deletion is rolled back and `CancellationError` thrown (a command
    /// that asks before it deletes).
    ///
    /// Afterwards this context and those that merge its saves know what changed: deleted
    /// objects leave them, and objects whose relationships lost members read their rows
    /// again. Unsaved changes of this context are not saved, and do not change what is deleted.
    ///
    /// ```swift
    /// var request = BatchDeleteRequest(entityName: "Author", predicate: try ObjectPredicate(format: "books.@count == 0"))
    /// request.resultType = .objectIDs
    /// let gone = try context.execute(request, reason: "authors without books").deletedObjectIDs
    /// ```
    ///
    /// - Throws: what ``fetch(_:)`` throws for the request; ``ContextError/deleteDenied(object:relationship:count:)``
    ///   for a Deny rule and ``ContextError/validation(_:)`` for a required to-one a Nullify
    ///   would clear, with nothing deleted; ``FetchRequestError`` on a child context, whose
    ///   parent would not know; ``ContextError/store(_:)`` when the store fails.
    @discardableResult
    public func execute(
        _ request: BatchDeleteRequest, reason: String? = nil, activity: EntityActivityLog? = nil,
        shouldCommit: ((BatchDeleteResult) -> Bool)? = nil
    ) throws -> BatchDeleteResult {
        assertOnQueue()
        guard parent == nil else { throw FetchRequestError("a batch delete runs on a context of the store; this context has a parent, which would not know") }
        let plan = try FetchPlan(request.fetchRequest, store: store)
        let log = activity ?? defaultCleanupLog
        let collects = request.resultType == .objectIDs || !registered.isEmpty || hasDidSaveListeners
        let logsRows: (([RowReference]) throws -> Void)? = logsDeletions(log)
            ? { [self] rows in try logDeletions(of: rows, reason: reason, log: log) } : nil
        let deletion: PersistentStore.BatchDeletion
        do {
            deletion = try store.withConnection {
                try store.database.inTransaction {
                    let deletion = try store.deleteRows(plan, collectsReferences: collects, willDelete: logsRows)
                    if let shouldCommit, !shouldCommit(result(of: deletion, for: request)) { throw CancellationError() }
                    return deletion
                }
            }
        } catch let refusal as PersistentStore.BatchDeleteRefusal {
            switch refusal {
            case .denied(let row, let relationship, let count):
                throw ContextError.deleteDenied(object: objectID(for: row), relationship: relationship, count: count)
            case .required(let row, let relationship):
                throw ContextError.validation([ValidationFailure(object: objectID(for: row), property: relationship, reason: "is required")])
            }
        } catch let error as DatabaseError {
            throw ContextError.store(String(describing: error))
        }
        if collects {
            let notification = ContextDidSave(
                contextName: name, insertedObjectIDs: [], updatedObjectIDs: Set(deletion.updated.map(objectID(for:))),
                deletedObjectIDs: Set(deletion.deleted.map(objectID(for:))), permanentIDs: [:], savedObjects: [:], source: ObjectIdentifier(self))
            merge(notification)
            announce(notification)
        }
        return result(of: deletion, for: request)
    }

    private func result(of deletion: PersistentStore.BatchDeletion, for request: BatchDeleteRequest) -> BatchDeleteResult {
        BatchDeleteResult(
            matchedCounts: deletion.matchedCounts, cascadedCounts: deletion.cascadedCounts,
            deletedObjectIDs: request.resultType == .objectIDs ? deletion.deleted.map(objectID(for:)) : [])
    }

    /// Whether `log` shows the deletions of any entity of the model.
    private func logsDeletions(_ log: EntityActivityLog) -> Bool {
        let shown = log.logger.logLevel
        return model.entities.contains { log.level(for: $0.name).loggerLevel >= shown }
    }

    /// Logs the deletion of `rows`, read from the store before they go.
    private func logDeletions(of rows: [RowReference], reason: String?, log: EntityActivityLog) throws {
        let byEntity = Dictionary(grouping: rows, by: \.entityName)
        for (entityName, rows) in byEntity.sorted(by: { $0.key < $1.key }) {
            guard let entity = model.entity(named: entityName), log.level(for: entityName).loggerLevel >= log.logger.logLevel else { continue }
            let snapshots = try store.rows(entityName, where: "Z_PK IN (SELECT value FROM json_each(?))", [.keyList(rows.map(\.primaryKey))])
            for snapshot in snapshots {
                let values = values(of: snapshot, for: entity)
                let description = activityDescription(of: entity) { name in
                    if case .attribute(let value)? = values[name] { return value }
                    return nil
                }
                log.record("Deleting \(description)\(reason.map { ": \($0)" } ?? "")", entity: entityName)
            }
        }
    }
}
