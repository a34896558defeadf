/// How rows of one entity are written: the properties, in the order their values are given,
/// and the SQL that writes them, bound by position. A save of many objects builds its SQL once
/// per entity (and, for updates, per set of changed properties), not once per row.
///
/// ```swift
/// let plan = try store.rowWritePlan(for: "Book")                  // every stored property
/// try store.insertRow(plan, key: key, values: [.text("Dune"), .real(4.5)], toOne: [author])
/// ```
final class RowWritePlan: Sendable {
    /// The entity whose rows the plan writes.
    let entityName: String
    /// The stored attributes written, in the order their values are given.
    let attributes: [String]
    /// The stored to-one relationships written, in the order their references are given.
    let toOnes: [String]
    /// Which to-ones also write their destination's `Z_ENT` (a destination with sub-entities).
    let writesDestinationEntity: [Bool]
    let table: StoreLayout.Entity
    /// The columns of `attributes`, in their order.
    let attributeColumns: [String]
    /// The statement that inserts a row: `Z_PK`, `Z_ENT`, `Z_OPT`, then the columns.
    let insertSQL: String
    /// The statement that updates a row's columns and raises `Z_OPT`, by `Z_PK` and expected `Z_OPT`.
    let updateSQL: String
    /// The positions among `attributes` of those that allow external storage: their values
    /// are written in Core Data's external form (see ``ExternalBinaryStorage``).
    let externalPositions: [Int]

    /// What a store keeps plans by.
    struct Key: Hashable {
        let entityName: String
        let attributes: [String]?
        let toOnes: [String]?
    }

    init(
        table: StoreLayout.Entity, attributes: [String], toOnes: [(name: String, columns: StoreLayout.ToOneColumns)], attributeColumns: [String],
        externalPositions: [Int] = []
    ) {
        (entityName, self.table, self.attributes, self.toOnes) = (table.name, table, attributes, toOnes.map(\.name))
        self.attributeColumns = attributeColumns
        self.externalPositions = externalPositions
        writesDestinationEntity = toOnes.map { $0.columns.entity != nil }
        let columns = attributeColumns + toOnes.flatMap { [$0.columns.key] + ($0.columns.entity.map { [$0] } ?? []) }
        insertSQL = "INSERT INTO \(table.tableName) (\((["Z_PK", "Z_ENT", "Z_OPT"] + columns).joined(separator: ", "))) "
            + "VALUES (\(Array(repeating: "?", count: columns.count + 3).joined(separator: ", ")))"
        updateSQL = "UPDATE \(table.tableName) SET \((columns.map { "\($0) = ?" } + ["Z_OPT = Z_OPT + 1"]).joined(separator: ", ")) "
            + "WHERE Z_PK = ? AND Z_OPT = ? AND \(table.kindCondition)"
    }
}

extension PersistentStore {
    // MARK: - Plans

    /// The plan of writes of `entityName`'s rows: of `attributes` and `toOnes` when named
    /// (an update of some properties), else of every stored attribute and to-one, in the
    /// model's order. Plans are made once and kept.
    ///
    /// - Throws: ``StoreError/unknownEntity(path:name:known:)``, or
    ///   ``StoreError/unknownProperty(path:entity:property:known:)`` for a property the entity's
    ///   table has no column for.
    func rowWritePlan(for entityName: String, attributes: [String]? = nil, toOnes: [String]? = nil) throws -> RowWritePlan {
        try withConnection {
            let key = RowWritePlan.Key(entityName: entityName, attributes: attributes, toOnes: toOnes)
            if let plan = rowWritePlans[key] { return plan }
            let table = try layoutEntity(entityName)
            guard let entity = model.entity(named: entityName) else {
                throw StoreError.unknownEntity(path: path, name: entityName, known: model.entities.map(\.name).sorted())
            }
            let attributeNames = attributes ?? model.storedAttributes(of: entity).map(\.name)
            let toOneNames = toOnes ?? model.storedToOneNames(of: entity)
            let attributeColumns = try attributeNames.map { name in
                guard let column = table.attributeColumns[name] else {
                    throw StoreError.unknownProperty(path: path, entity: entityName, property: name, known: table.attributeColumns.keys.sorted())
                }
                return column
            }
            let toOneColumns = try toOneNames.map { name in
                guard let columns = table.toOneColumns[name] else {
                    throw StoreError.unknownProperty(path: path, entity: entityName, property: name, known: table.toOneColumns.keys.sorted())
                }
                return (name, columns)
            }
            let external = attributeNames.indices.filter { model.attribute(named: attributeNames[$0], in: entity)?.allowsExternalBinaryDataStorage == true }
            let plan = RowWritePlan(
                table: table, attributes: attributeNames, toOnes: toOneColumns, attributeColumns: attributeColumns, externalPositions: external)
            // Updates of many different sets of properties each make a plan: a bound keeps them few.
            if rowWritePlans.count >= 256 { rowWritePlans.removeAll() }
            rowWritePlans[key] = plan
            return plan
        }
    }

    // MARK: - Writes

    /// Inserts a row by `plan` under `key` (from ``allocatePrimaryKeys(for:count:)``), at
    /// version 1: `values` one per attribute of the plan, `toOne` one per to-one.
    func insertRow(_ plan: RowWritePlan, key: Int64, values: [DatabaseValue], toOne: [RowReference?]) throws {
        let stored = try externalForms(of: values, at: plan.externalPositions)
        let notesHistory = try historyWindowWillWrite(plan, isInsert: true)
        try write(plan.insertSQL, plan: plan, key: key, values: values) { arguments in
            arguments.append(.integer(key))
            arguments.append(.integer(Int64(plan.table.number)))
            arguments.append(.integer(1))
            try appendArguments(of: plan, values: stored, toOne: toOne, to: &arguments)
        }
        if notesHistory { try noteSavedWrite(key: key, isInsert: true) }
    }

    /// Updates a row's columns by `plan` and raises its version. Fails with
    /// ``StoreError/conflict(path:entity:primaryKey:expectedVersion:actualVersion:)`` when the
    /// row's version is no longer `expectedVersion` (someone else saved it) or the row is gone.
    ///
    /// - Returns: the row's new version.
    @discardableResult
    func updateRow(_ plan: RowWritePlan, primaryKey: Int64, expectedVersion: Int64, values: [DatabaseValue], toOne: [RowReference?]) throws -> Int64 {
        let stored = try externalForms(of: values, at: plan.externalPositions)
        let notesHistory = try historyWindowWillWrite(plan, isInsert: false)
        try write(plan.updateSQL, plan: plan, key: primaryKey, values: values) { arguments in
            try appendArguments(of: plan, values: stored, toOne: toOne, to: &arguments)
            arguments.append(.integer(primaryKey))
            arguments.append(.integer(expectedVersion))
        }
        guard database.changedRowCount == 1 else { throw try conflict(plan.table, primaryKey, expectedVersion) }
        if notesHistory { try noteSavedWrite(key: primaryKey, isInsert: false) }
        return expectedVersion + 1
    }

    /// Runs a row's write with the arguments `arguments` appends, telling a broken uniqueness
    /// constraint from other failures.
    private func write(
        _ sql: String, plan: RowWritePlan, key: Int64, values: [DatabaseValue], arguments: (inout [DatabaseValue]) throws -> Void
    ) throws {
        let failure: DatabaseError
        do {
            return try database.cachedStatement(sql).execute(appending: arguments)
        } catch let error as DatabaseError {
            failure = error
        }
        guard failure.extendedResultCode == DatabaseError.SQLITE_CONSTRAINT_UNIQUE,
            let conflict = try uniquenessConflict(plan: plan, key: key, values: values)
        else { throw failure }
        throw conflict
    }

    /// The uniqueness constraint a row's write broke, with the values the row would have had
    /// (those written, else those it holds): the first unique index of the table (Core Data's
    /// `Z_<Entity>_UNIQUE_…`, or one made by hand) whose columns hold those values in another
    /// row. SQLite names the columns only in its English message, which is no contract, so the
    /// store is asked instead. Nil when no index over attribute columns explains it.
    private func uniquenessConflict(plan: RowWritePlan, key: Int64, values: [DatabaseValue]) throws -> StoreError? {
        let table = plan.table.tableName
        let attributeNames = Dictionary(plan.table.attributeColumns.map { ($0.value.lowercased(), $0.key) }, uniquingKeysWith: { first, _ in first })
        let uniqueIndexes = try database.rows("SELECT name FROM pragma_index_list(?) WHERE \"unique\" = 1", [.text(table)])
        indexes: for index in uniqueIndexes {
            var columns: [String] = [], attributes: [String] = [], found: [DatabaseValue] = []
            for column in try database.rows("SELECT name FROM pragma_index_info(?) ORDER BY seqno", [index[0]]) {
                // An index over an expression has no column name; a constraint over a to-one
                // names no attribute: neither is one the error can be told in.
                guard let name = column[0].stringValue, let attribute = attributeNames[name.lowercased()] else { continue indexes }
                let value = try plan.attributeColumns.firstIndex { $0.caseInsensitiveCompare(name) == .orderedSame }.map { values[$0] }
                    ?? database.scalar("SELECT \(name) FROM \(table) WHERE Z_PK = ?", [.integer(key)]) ?? .null
                // SQLite lets NULLs repeat in a unique index: a NULL cannot be what clashed.
                if value == .null { continue indexes }
                columns.append(name)
                attributes.append(attribute)
                found.append(value)
            }
            let condition = (columns.map { "\($0) = ?" } + ["Z_PK != ?"]).joined(separator: " AND ")
            if try database.scalar("SELECT 1 FROM \(table) WHERE \(condition) LIMIT 1", found + [.integer(key)]) != nil {
                return .uniquenessConflict(path: path, entity: plan.entityName, primaryKey: key, attributes: attributes, values: found)
            }
        }
        return nil
    }

    private func appendArguments(of plan: RowWritePlan, values: [DatabaseValue], toOne: [RowReference?], to arguments: inout [DatabaseValue]) throws {
        precondition(values.count == plan.attributes.count && toOne.count == plan.toOnes.count, "one value per property of the plan")
        // One by one: appending the array copied each value through its type's value witness.
        for value in values { arguments.append(value) }
        for (reference, writesEntity) in zip(toOne, plan.writesDestinationEntity) {
            guard let reference else {
                arguments.append(.null)
                if writesEntity { arguments.append(.null) }
                continue
            }
            guard let destination = layout.entity(named: reference.entityName) else {
                throw StoreError.unknownEntity(path: path, name: reference.entityName, known: layout.entities.map(\.name))
            }
            arguments.append(.integer(reference.primaryKey))
            if writesEntity { arguments.append(.integer(Int64(destination.number))) }
        }
    }
}

/// A row as a ``RowWritePlan`` reads it: its key, its version, and one value per attribute of
/// the plan, in the plan's order.
struct PlannedRow: Sendable, Equatable {
    let primaryKey: Int64
    /// `Z_OPT`, which an update of the row names as the version it read.
    let version: Int64
    let values: [DatabaseValue]
}

extension PersistentStore {
    // MARK: - Reads by plan

    /// How many values one look-up query binds: later chunks reuse its statement.
    static let lookupChunkSize = 500

    /// The rows of `plan`'s entity (and its sub-entities) whose `attribute` holds one of
    /// `values`, with the plan's attributes: how an import finds the rows its records name.
    /// One query per 500 values; within each, rows come in key order, so that of several rows
    /// holding one value the first saved comes first.
    ///
    /// - Throws: ``StoreError/unknownProperty(path:entity:property:known:)`` for an attribute
    ///   the entity's table has no column for.
    func rows(_ plan: RowWritePlan, where attribute: String, isIn values: [DatabaseValue]) throws -> [PlannedRow] {
        guard let column = plan.table.attributeColumns[attribute] else {
            throw StoreError.unknownProperty(path: path, entity: plan.entityName, property: attribute, known: plan.table.attributeColumns.keys.sorted())
        }
        let chunkSize = Self.lookupChunkSize
        let placeholders = Array(repeating: "?", count: chunkSize).joined(separator: ", ")
        let sql = "SELECT \((["Z_PK", "Z_OPT"] + plan.attributeColumns).joined(separator: ", ")) FROM \(plan.table.tableName) "
            + "WHERE \(plan.table.kindCondition) AND \(column) IN (\(placeholders)) ORDER BY Z_PK"
        return try withConnection {
            var found: [PlannedRow] = []
            for start in stride(from: 0, to: values.count, by: chunkSize) {
                var chunk = Array(values[start..<min(start + chunkSize, values.count)])
                // A value listed twice matches once: the last chunk repeats its last value
                // so that every chunk runs the one prepared statement.
                chunk += repeatElement(chunk[chunk.count - 1], count: chunkSize - chunk.count)
                try database.cachedStatement(sql).forEachRow(chunk) { row in
                    let values = (0..<Int32(plan.attributeColumns.count)).map { row.value(at: $0 + 2) }
                    found.append(PlannedRow(primaryKey: row.value(at: 0).int64Value ?? 0, version: row.value(at: 1).int64Value ?? 0, values: values))
                    return true
                }
            }
            return found
        }
    }
}
