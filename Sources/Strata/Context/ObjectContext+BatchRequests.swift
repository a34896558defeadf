import Foundation

extension ObjectContext {
    // MARK: - Deleting

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
        try requireStoreContext("a batch delete")
        let plan = try FetchPlan(request.fetchRequest, store: store)
        let log = activity ?? defaultCleanupLog
        let collects = request.resultType == .objectIDs || !registered.isEmpty || hearsBatchChanges
        let logsRows: (([RowReference]) throws -> Void)? = logsDeletions(log)
            ? { [self] rows in try logDeletions(of: rows, reason: reason, log: log) } : nil
        let deletion: PersistentStore.BatchDeletion
        do {
            deletion = try store.withConnection {
                try store.database.inTransaction {
                    store.setHistoryOrigin(author: transactionAuthor, contextName: name)
                    let deletion = try store.deleteRows(plan.rowSelection, collectsReferences: collects, willDelete: logsRows)
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
            throw ContextError(storeFailure: error)
        }
        if collects {
            announceBatchChanges(inserted: [], updated: deletion.updated.map(objectID(for:)), deleted: deletion.deleted.map(objectID(for:)))
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

extension ObjectContext {
    // MARK: - Updating

    /// Runs `request` on the store in one statement, reading no object (see
    /// ``BatchUpdateRequest``). Afterwards this context and those that merge its saves read
    /// the changed objects they hold again.
    ///
    /// - Throws: ``BatchRequestError`` for an unknown attribute, a value of the wrong type or
    ///   a required attribute cleared; what ``fetch(_:)`` throws for the request;
    ///   ``FetchRequestError`` on a child context; ``ContextError/store(_:)`` when the store
    ///   fails (a uniqueness constraint, say), with nothing changed.
    @discardableResult
    public func execute(_ request: BatchUpdateRequest) throws -> BatchWriteResult {
        assertOnQueue()
        try requireStoreContext("a batch update")
        let plan = try FetchPlan(request.fetchRequest, store: store)
        let attributes = Dictionary(storedAttributes(of: plan.entity).map { ($0.name, $0) }) { first, _ in first }
        let what = "\(plan.entity.name) batch update"
        var values: [String: DatabaseValue] = [:]
        for (name, value) in request.propertiesToUpdate {
            guard let attribute = attributes[name] else { throw noStoredAttribute(name, of: plan.entity, in: what) }
            values[name] = try storedValue(value, for: attribute, in: what)
        }
        guard !values.isEmpty else { throw BatchRequestError("a batch update of \(plan.entity.name) needs at least one attribute to set") }
        let collects = request.returnsObjectIDs || !registered.isEmpty || hearsBatchChanges
        let (count, rows) = try writingToStore { try store.updateRows(plan.rowSelection, values: values, collectsReferences: collects) }
        let updated = rows.map(objectID(for:))
        if collects { announceBatchChanges(inserted: [], updated: updated, deleted: []) }
        return BatchWriteResult(count: count, objectIDs: request.returnsObjectIDs ? updated : [])
    }

    // MARK: - Inserting

    /// Runs `request` on the store in one transaction, one prepared statement for every row,
    /// making no object (see ``BatchInsertRequest``). The contexts that merge this context's
    /// saves hear of the new objects.
    ///
    /// - Throws: ``BatchRequestError`` naming the object (by position), attribute and value at
    ///   fault, with nothing inserted; ``StoreError/unknownEntity(path:name:known:)``;
    ///   ``FetchRequestError`` on a child context; ``ContextError/store(_:)`` when the store
    ///   fails (a uniqueness constraint, say), with nothing inserted.
    @discardableResult
    public func execute(_ request: BatchInsertRequest) throws -> BatchWriteResult {
        assertOnQueue()
        try requireStoreContext("a batch insert")
        guard let entity = model.entity(named: request.entityName) else {
            throw StoreError.unknownEntity(path: store.path, name: request.entityName, known: model.entities.map(\.name).sorted())
        }
        guard !entity.isAbstract else { throw BatchRequestError("\(entity.name) is abstract: insert objects of a sub-entity") }
        let attributes = storedAttributes(of: entity)
        let defaults = attributes.map(\.defaultValue)
        let positions = Dictionary(uniqueKeysWithValues: attributes.enumerated().map { ($1.name, $0) })
        let required = attributes.indices.filter { !attributes[$0].isOptional }
        var rows: [[DatabaseValue]] = []
        rows.reserveCapacity(request.objects.count)
        for (index, object) in request.objects.enumerated() {
            var row = defaults
            for (name, value) in object {
                guard let position = positions[name] else { throw noStoredAttribute(name, of: entity, in: "\(entity.name) object \(index + 1)") }
                row[position] = try storedValue(value, for: attributes[position], in: "\(entity.name) object \(index + 1)")
            }
            if let missing = required.first(where: { row[$0] == .null }) {
                throw BatchRequestError("\(entity.name) object \(index + 1): \(attributes[missing].name): is required")
            }
            rows.append(row)
        }
        let keys = try writingToStore { try store.insertRows(entity.name, attributes: attributes.map(\.name), rows: rows) }
        let collects = request.returnsObjectIDs || hearsBatchChanges
        let inserted = collects ? keys.map { $0.map { permanentID(entityName: entity.name, primaryKey: $0) } } ?? [] : []
        if hearsBatchChanges { announceBatchChanges(inserted: inserted, updated: [], deleted: []) }
        return BatchWriteResult(count: rows.count, objectIDs: request.returnsObjectIDs ? inserted : [])
    }

    // MARK: - Support

    /// Whether anyone hears what a batch request changed: did-save listeners, or lists on this
    /// context (``addObjectsDidChangeObserver(_:)``).
    var hearsBatchChanges: Bool {
        hasDidSaveListeners || hasChangeObservers
    }

    private func requireStoreContext(_ what: String) throws {
        guard parent == nil else { throw FetchRequestError("\(what) runs on a context of the store; this context has a parent, which would not know") }
    }

    /// What checking a value for a stored attribute needs, light to copy once per value.
    private struct StoredAttribute {
        let name: String
        let type: AttributeType
        let isOptional: Bool
        /// The model's default value, as the store holds it.
        let defaultValue: DatabaseValue
        /// Whether the attribute allows external storage: its values carry Core Data's marker.
        let isExternal: Bool
    }

    /// `entity`'s stored attributes in model order, derived ones aside (the store computes them).
    private func storedAttributes(of entity: EntityDescription) -> [StoredAttribute] {
        model.allAttributes(of: entity).filter { !$0.isTransient && !$0.isDerived }.map { attribute in
            StoredAttribute(
                name: attribute.name, type: attribute.type, isOptional: attribute.isOptional,
                defaultValue: attribute.defaultAttributeValue.map { Self.stored($0, isExternal: attribute.allowsExternalBinaryDataStorage) } ?? .null,
                isExternal: attribute.allowsExternalBinaryDataStorage)
        }
    }

    private func noStoredAttribute(_ name: String, of entity: EntityDescription, in what: String) -> BatchRequestError {
        if let attribute = model.attribute(named: name, in: entity), attribute.isDerived {
            return BatchRequestError("\(what): \(entity.name).\(name) is derived (\(attribute.derivationExpression ?? "")): the store computes it")
        }
        return BatchRequestError("\(what): \(entity.name) has no stored attribute '\(name)'")
    }

    /// `value` as its column holds it: data of an attribute that allows external storage behind
    /// Core Data's inline marker. A batch request keeps such data in the row whatever its size
    /// (Core Data reads a marked value of any size), so that no file outlives a failed request.
    private static func stored(_ value: AttributeValue, isExternal: Bool) -> DatabaseValue {
        guard isExternal, case .binary(let data) = value else { return value.databaseValue }
        return .blob(Data([ExternalBinaryStorage.inlineMarker]) + data)
    }

    /// `value` as the store holds it for `attribute`, checked; `what` names the value in an error.
    private func storedValue(_ value: AttributeValue?, for attribute: StoredAttribute, in what: @autoclosure () -> String) throws -> DatabaseValue {
        guard let value else {
            if !attribute.isOptional { throw BatchRequestError("\(what()): \(attribute.name): is required") }
            return .null
        }
        guard AttributeValue.fits(value, attribute.type) else {
            throw BatchRequestError("\(what()): \(attribute.name): \(value.displayText) is not a \(attribute.type.rawValue) value")
        }
        return Self.stored(value, isExternal: attribute.isExternal)
    }

    /// Runs `body` in a transaction on the store, a database failure becoming ``ContextError/store(_:)``.
    func writingToStore<T>(_ body: () throws -> T) throws -> T {
        do {
            return try store.withConnection {
                try store.database.inTransaction {
                    store.setHistoryOrigin(author: transactionAuthor, contextName: name)
                    return try body()
                }
            }
        } catch let error as DatabaseError {
            throw ContextError(storeFailure: error)
        }
    }

    /// Tells this context and those that merge its saves what a batch request changed in SQL:
    /// deleted objects leave, updated ones read their rows again.
    func announceBatchChanges(inserted: [ObjectID], updated: [ObjectID], deleted: [ObjectID]) {
        let notification = ContextDidSave(
            contextName: name, insertedObjectIDs: Set(inserted), updatedObjectIDs: Set(updated), deletedObjectIDs: Set(deleted),
            permanentIDs: [:], savedObjects: [:], source: ObjectIdentifier(self))
        merge(notification)
        announce(notification)
    }
}
