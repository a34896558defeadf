import Foundation

/// Row reads and writes for the layers above: each write is meant to run inside one
/// ``Database/inTransaction(_:)``, which the caller opens around a whole save.
extension PersistentStore {
    // MARK: - Keys

    /// Hands out `count` new primary keys for rows of `entityName`: `Z_MAX` of the entity's
    /// table is raised in the caller's transaction, and the keys after the old value returned.
    ///
    /// The keys are positive and above every `Z_PK` the table holds, even where `Z_MAX` lags
    /// behind the table or is negative (a store damaged or edited elsewhere): counting on
    /// `Z_MAX` alone would hand out keys already in use. The table's largest `Z_PK` is its
    /// largest rowid, which SQLite reads from the end of the table's B-tree without a scan.
    func allocatePrimaryKeys(for entityName: String, count: Int = 1) throws -> ClosedRange<Int64> {
        precondition(count > 0, "allocate at least one key")
        try requireTransaction()
        let root = try rootEntity(of: entityName)
        let statement = try database.cachedStatement("""
            UPDATE Z_PRIMARYKEY SET Z_MAX = max(ifnull(Z_MAX, 0), 0, ifnull((SELECT max(Z_PK) FROM \(root.tableName)), 0)) + ? \
            WHERE Z_ENT = ? RETURNING Z_MAX
            """)
        let rows = try statement.rows([.integer(Int64(count)), .integer(Int64(root.number))])
        guard let last = rows.first?.first?.int64Value else {
            throw StoreError.notACoreDataStore(path: path, reason: .noPrimaryKeyRow(entity: root.name))
        }
        return (last - Int64(count) + 1)...last
    }

    /// New primary keys for runs of rows, each run `count` rows of one entity, in one
    /// statement per table: within a table (an entity and its sub-entities share one), keys
    /// rise in the order of the runs, as they would one row at a time. Returns each run's first
    /// key; its rows take the keys from there up, one apart.
    func allocatePrimaryKeys(forRuns runs: [EntityRun]) throws -> [Int64] {
        // Each root's number in `roots`, by entity name, looked up once per run.
        var rootByEntity: [String: Int] = [:]
        var roots: [(name: String, count: Int)] = []
        var rootOfRun = [Int](repeating: 0, count: runs.count)
        for (index, run) in runs.enumerated() {
            let root: Int
            if let known = rootByEntity[run.entityName] {
                root = known
            } else {
                let rootName = try rootEntity(of: run.entityName).name
                root = roots.firstIndex { $0.name == rootName } ?? roots.count
                if root == roots.count { roots.append((rootName, 0)) }
                rootByEntity[run.entityName] = root
            }
            rootOfRun[index] = root
            roots[root].count += run.count
        }
        var next = try roots.map { $0.count > 0 ? try allocatePrimaryKeys(for: $0.name, count: $0.count).lowerBound : 0 }
        return zip(runs, rootOfRun).map { run, root in
            defer { next[root] += Int64(run.count) }
            return next[root]
        }
    }

    // MARK: - Writing

    /// Inserts a row of `entityName` with `values` (by property name) and to-one references,
    /// at version 1, and returns its primary key.
    @discardableResult
    package func insert(
        _ entityName: String, values: [String: DatabaseValue], toOne: [String: RowReference?] = [:], primaryKey: Int64? = nil
    ) throws -> Int64 {
        let plan = try rowWritePlan(for: entityName, attributes: values.keys.sorted(), toOnes: toOne.keys.sorted())
        let key: Int64
        if let primaryKey {
            try claimPrimaryKey(primaryKey, for: entityName)
            key = primaryKey
        } else {
            key = try allocatePrimaryKeys(for: entityName).lowerBound
        }
        try insertRow(plan, key: key, values: plan.attributes.map { values[$0] ?? .null }, toOne: plan.toOnes.map { toOne[$0] ?? nil })
        return key
    }

    /// Moves `Z_MAX` of `entityName`'s table past `primaryKey`, a key the caller chose, so
    /// that keys handed out later never collide with it. Call it inside a transaction.
    func claimPrimaryKey(_ primaryKey: Int64, for entityName: String) throws {
        try requireTransaction()
        try database.cachedStatement("UPDATE Z_PRIMARYKEY SET Z_MAX = max(Z_MAX, ?) WHERE Z_ENT = ?")
            .execute([.integer(primaryKey), .integer(Int64(try rootEntity(of: entityName).number))])
    }

    /// Inserts a row under a key that ``allocatePrimaryKeys(for:count:)`` handed out, at
    /// version 1: what a save does for each new object, without touching `Z_MAX` again.
    package func insert(_ entityName: String, values: [String: DatabaseValue], toOne: [String: RowReference?] = [:], allocatedKey key: Int64) throws {
        let plan = try rowWritePlan(for: entityName, attributes: values.keys.sorted(), toOnes: toOne.keys.sorted())
        try insertRow(plan, key: key, values: plan.attributes.map { values[$0] ?? .null }, toOne: plan.toOnes.map { toOne[$0] ?? nil })
    }

    /// Updates the given columns of a row and raises its version. Fails with
    /// ``StoreError/conflict(path:entity:primaryKey:expectedVersion:actualVersion:)`` when the row's
    /// version is no longer `expectedVersion` (someone else saved it) or the row is gone.
    ///
    /// - Returns: the row's new version.
    @discardableResult
    package func update(
        _ entityName: String, primaryKey: Int64, expectedVersion: Int64, values: [String: DatabaseValue],
        toOne: [String: RowReference?] = [:]
    ) throws -> Int64 {
        let plan = try rowWritePlan(for: entityName, attributes: values.keys.sorted(), toOnes: toOne.keys.sorted())
        return try updateRow(
            plan, primaryKey: primaryKey, expectedVersion: expectedVersion, values: plan.attributes.map { values[$0] ?? .null },
            toOne: plan.toOnes.map { toOne[$0] ?? nil })
    }

    /// Deletes a row, checking its version when `expectedVersion` is given, and removes it
    /// from the join tables of its many-to-many relationships.
    package func delete(_ entityName: String, primaryKey: Int64, expectedVersion: Int64? = nil) throws {
        let entity = try layoutEntity(entityName)
        // The row may be of a sub-entity, whose own many-to-many rows go too.
        let rowEntityNumber = try database.cachedStatement("SELECT Z_ENT FROM \(entity.tableName) WHERE Z_PK = ? AND \(entity.kindCondition)")
            .rows([.integer(primaryKey)]).first?.first?.int64Value
        if let expectedVersion {
            try database.cachedStatement("DELETE FROM \(entity.tableName) WHERE Z_PK = ? AND Z_OPT = ? AND \(entity.kindCondition)")
                .execute([.integer(primaryKey), .integer(expectedVersion)])
        } else {
            try database.cachedStatement("DELETE FROM \(entity.tableName) WHERE Z_PK = ? AND \(entity.kindCondition)").execute([.integer(primaryKey)])
        }
        guard database.changedRowCount == 1 else { throw try conflict(entity, primaryKey, expectedVersion ?? 0) }
        let rowEntity = layout.entities.first { Int64($0.number) == rowEntityNumber }.flatMap { model.entity(named: $0.name) }
        let lineage = Set(rowEntity.map { [$0.name] + model.ancestors(of: $0).map(\.name) } ?? [entityName])
        for join in layout.joinTables {
            if lineage.contains(join.relationship.entity) {
                try database.cachedStatement("DELETE FROM \(join.name) WHERE \(join.sourceColumn) = ?").execute([.integer(primaryKey)])
            }
            if lineage.contains(join.inverse.entity) {
                try database.cachedStatement("DELETE FROM \(join.name) WHERE \(join.destinationColumn) = ?").execute([.integer(primaryKey)])
            }
        }
    }

    // MARK: - Many-to-many, and to-many without an inverse

    /// Adds `destination` to the many-to-many (or inverseless to-many) `relationship` of the row
    /// `source` of `entityName`.
    package func link(_ entityName: String, _ relationship: String, source: Int64, destination: Int64) throws {
        if let (table, column) = toManyKeyColumn(entityName, relationship) {
            try database.cachedStatement("UPDATE \(table) SET \(column) = ? WHERE Z_PK = ?").execute([.integer(source), .integer(destination)])
            return
        }
        let (join, sourceColumn, destinationColumn, _) = try joinColumns(entityName, relationship)
        try database.cachedStatement("INSERT OR IGNORE INTO \(join) (\(sourceColumn), \(destinationColumn)) VALUES (?, ?)")
            .execute([.integer(source), .integer(destination)])
    }

    /// Removes `destination` from the many-to-many (or inverseless to-many) `relationship` of
    /// the row `source`.
    func unlink(_ entityName: String, _ relationship: String, source: Int64, destination: Int64) throws {
        if let (table, column) = toManyKeyColumn(entityName, relationship) {
            try database.cachedStatement("UPDATE \(table) SET \(column) = NULL WHERE Z_PK = ? AND \(column) = ?")
                .execute([.integer(destination), .integer(source)])
            return
        }
        let (join, sourceColumn, destinationColumn, _) = try joinColumns(entityName, relationship)
        try database.cachedStatement("DELETE FROM \(join) WHERE \(sourceColumn) = ? AND \(destinationColumn) = ?")
            .execute([.integer(source), .integer(destination)])
    }

    /// Writes the positions of the destinations of the ordered many-to-many `relationship` of
    /// the row `source`, in the order of `destinations`; a relationship that is not ordered
    /// has none to write.
    func setLinkPositions(_ entityName: String, _ relationship: String, source: Int64, destinations: [Int64]) throws {
        if toManyKeyColumn(entityName, relationship) != nil { return }
        let (join, sourceColumn, destinationColumn, order) = try joinColumns(entityName, relationship)
        guard let order else { return }
        let statement = try database.cachedStatement("UPDATE \(join) SET \(order) = ? WHERE \(sourceColumn) = ? AND \(destinationColumn) = ?")
        for (position, destination) in destinations.enumerated() {
            try statement.execute([.integer(Int64(position + 1)), .integer(source), .integer(destination)])
        }
    }

    /// The primary keys the many-to-many `relationship` of row `source` holds, in order for an
    /// ordered one.
    func linkedKeys(_ entityName: String, _ relationship: String, source: Int64) throws -> [Int64] {
        if let (table, column) = toManyKeyColumn(entityName, relationship) {
            return try database.cachedStatement("SELECT Z_PK FROM \(table) WHERE \(column) = ? ORDER BY Z_PK")
                .rows([.integer(source)]).compactMap { $0[0].int64Value }
        }
        let (join, sourceColumn, destinationColumn, order) = try joinColumns(entityName, relationship)
        return try database.cachedStatement(
            "SELECT \(destinationColumn) FROM \(join) WHERE \(sourceColumn) = ? ORDER BY \(order.map { "\($0), " } ?? "")\(destinationColumn)")
            .rows([.integer(source)]).compactMap { $0[0].int64Value }
    }

    // MARK: - Reading

    /// The row of `entityName` (or a sub-entity) with `primaryKey`, or `nil`.
    package func row(_ entityName: String, primaryKey: Int64) throws -> RowSnapshot? {
        try rows(entityName, where: "Z_PK = ?", [.integer(primaryKey)]).first
    }

    /// Rows of `entityName` and its sub-entities in key order, optionally filtered by an SQL
    /// condition over the entity's table with bound arguments.
    package func rows(
        _ entityName: String, where condition: String? = nil, _ arguments: [DatabaseValue] = [], limit: Int? = nil, offset: Int = 0
    ) throws -> [RowSnapshot] {
        let entity = try layoutEntity(entityName)
        let reader = RowReader(entity: entity, store: self)
        var sql = "SELECT \(reader.selectList(alias: "t0")) FROM \(entity.tableName) t0 WHERE t0.\(entity.kindCondition)"
        if let condition { sql += " AND (\(condition))" }
        sql += " ORDER BY t0.Z_PK LIMIT ? OFFSET ?"
        let arguments = arguments + [.integer(Int64(limit ?? -1)), .integer(Int64(offset))]
        return try database.cachedStatement(sql).rows(arguments).map { reader.snapshot($0) }
    }

    /// The version (`Z_OPT`) of each of the rows `primaryKeys` of `entityName`, in one query;
    /// a key whose row is gone is missing from the result.
    package func versions(_ entityName: String, primaryKeys: [Int64]) throws -> [Int64: Int64] {
        let entity = try layoutEntity(entityName)
        let sql = "SELECT Z_PK, Z_OPT FROM \(entity.tableName) WHERE Z_PK IN (SELECT value FROM json_each(?)) AND \(entity.kindCondition)"
        var versions: [Int64: Int64] = [:]
        versions.reserveCapacity(primaryKeys.count)
        for row in try database.cachedStatement(sql).rows([.keyList(primaryKeys)]) {
            if let key = row[0].int64Value { versions[key] = row[1].int64Value ?? 0 }
        }
        return versions
    }

    /// The rows a to-many `relationship` of the row `primaryKey` of `entityName` holds: through
    /// the destination's key column (one-to-many, in `Z_FOK_` order when ordered) or the join
    /// table (many-to-many, in key order).
    package func toManyReferences(_ entityName: String, _ relationship: String, primaryKey: Int64) throws -> [RowReference] {
        try toManyReferences(entityName, relationship, primaryKeys: [primaryKey])[primaryKey] ?? []
    }

    /// ``toManyReferences(_:_:primaryKey:)`` for each of the rows `primaryKeys`, in one query;
    /// a row that holds none is left out.
    package func toManyReferences(_ entityName: String, _ relationship: String, primaryKeys: [Int64]) throws -> [Int64: [RowReference]] {
        try toManyRows(entityName, relationship, owners: primaryKeys, readsValues: false).mapValues { rows in
            rows.map { RowReference(entityName: $0.entityName, primaryKey: $0.primaryKey) }
        }
    }

    /// The members of the to-many `relationship` of each of the rows `owners`, in one query:
    /// snapshots with values when `readsValues`, else with only their key and entity.
    func toManyRows(_ entityName: String, _ relationship: String, owners: [Int64], readsValues: Bool) throws -> [Int64: [RowSnapshot]] {
        let query = try toManyQuery(entityName, relationship)
        let destination = query.destination
        let reader = readsValues ? RowReader(entity: destination, store: self) : nil
        let select = reader?.selectList(alias: "d") ?? "d.Z_PK, d.Z_ENT, d.Z_OPT"
        let sql = "SELECT \(query.owner), \(select) FROM \(query.from) WHERE \(query.condition) ORDER BY \(query.owner), \(query.position.map { "\($0), " } ?? "")d.Z_PK"
        var members: [Int64: [RowSnapshot]] = [:]
        let names = layout.entityNamesByNumber
        for row in try database.cachedStatement(sql).rows([.keyList(owners)]) {
            let snapshot = reader?.snapshot(row, from: 1)
                ?? RowSnapshot(
                    entityName: destination.holdsTableAlone ? destination.name : names[Int(row[2].int64Value ?? 0)] ?? destination.name,
                    primaryKey: row[1].int64Value ?? 0, version: row[3].int64Value ?? 0)
            members[row[0].int64Value ?? 0, default: []].append(snapshot)
        }
        return members
    }

    /// The members of the to-many `relationship` of each of the rows `owners`, with the
    /// value of `attribute` in each, in one query: members in the relationship's order when
    /// it is ordered, else by key.
    func toManyMembers(_ entityName: String, _ relationship: String, attribute: String, owners: [Int64]) throws -> ToManyMembers {
        let query = try toManyQuery(entityName, relationship)
        guard let column = query.destination.attributeColumns[attribute] else {
            throw StoreError.unknownProperty(path: path, entity: query.destination.name, property: attribute, known: query.destination.attributeColumns.keys.sorted())
        }
        let select = "\(query.owner), d.Z_PK, \(query.position ?? "NULL"), d.\(column)"
        // Unsorted, the rows come owner by owner as the keys are listed; SQLite would sort
        // each batch in a temporary b-tree, at twice the cost of the query.
        var rows: [(owner: Int64, position: Int64, key: Int64, value: DatabaseValue)] = []
        var contiguous = true, seen: Set<Int64> = []
        try database.cachedStatement("SELECT \(select) FROM \(query.from) WHERE \(query.condition)").forEachRow([.keyList(owners)]) { statement in
            let owner = statement.value(at: 0).int64Value ?? 0
            if owner != rows.last?.owner, !seen.insert(owner).inserted { contiguous = false }
            rows.append((owner, statement.value(at: 2).int64Value ?? 0, statement.value(at: 1).int64Value ?? 0, statement.value(at: 3)))
            return true
        }
        if !contiguous { rows.sort { ($0.owner, $0.position, $0.key) < ($1.owner, $1.position, $1.key) } }
        var members = ToManyMembers()
        var start = 0
        while start < rows.count {
            var end = start + 1
            while end < rows.count, rows[end].owner == rows[start].owner { end += 1 }
            if contiguous { rows[start..<end].sort { ($0.position, $0.key) < ($1.position, $1.key) } }
            members.ranges[rows[start].owner] = start..<end
            start = end
        }
        members.keys = rows.map(\.key)
        members.values = rows.map(\.value)
        return members
    }

    /// How a query reads the members of the to-many `relationship` of the rows whose keys its
    /// one argument lists: the destination aliased `d`.
    private func toManyQuery(_ entityName: String, _ relationship: String) throws -> ToManyQuery {
        guard let entity = model.entity(named: entityName), let description = model.relationship(named: relationship, in: entity),
            description.isToMany
        else {
            throw StoreError.unknownProperty(path: path, entity: entityName, property: relationship, known: [])
        }
        let destination = try layoutEntity(description.destinationEntityName)
        let owner: String, from: String, position: String?
        if let inverse = description.inverseName, let columns = destination.toOneColumns[inverse] {
            (owner, from, position) = ("d.\(columns.key)", "\(destination.tableName) d", columns.order.map { "d.\($0)" })
        } else if let (_, column) = toManyKeyColumn(entityName, relationship) {
            (owner, from, position) = ("d.\(column)", "\(destination.tableName) d", nil)
        } else {
            let (join, sourceColumn, destinationColumn, order) = try joinColumns(entityName, relationship)
            (owner, from, position) = ("j.\(sourceColumn)", "\(join) j JOIN \(destination.tableName) d ON d.Z_PK = j.\(destinationColumn)", order.map { "j.\($0)" })
        }
        return ToManyQuery(
            destination: destination, owner: owner, from: from, position: position,
            condition: "\(owner) IN (SELECT value FROM json_each(?)) AND d.\(destination.kindCondition)")
    }

    /// The parts of a query of to-many members: see ``toManyQuery(_:_:)``.
    private struct ToManyQuery {
        let destination: StoreLayout.Entity
        /// The owner's key.
        let owner: String
        let from: String
        /// A member's position in an ordered to-many.
        let position: String?
        let condition: String
    }

    /// Writes the position of the row `primaryKey` in its owner's ordered to-many: the
    /// `Z_FOK_` column of its to-one `relationship` (the inverse of the ordered to-many).
    func setOrderPosition(_ entityName: String, _ relationship: String, primaryKey: Int64, position: Int) throws {
        let entity = try layoutEntity(entityName)
        guard let order = entity.toOneColumns[relationship]?.order else { return }
        try database.cachedStatement("UPDATE \(entity.tableName) SET \(order) = ? WHERE Z_PK = ?")
            .execute([.integer(Int64(position)), .integer(primaryKey)])
    }

    // MARK: - Helpers

    private func requireTransaction() throws {
        guard database.isInTransaction else {
            throw DatabaseError(resultCode: DatabaseError.SQLITE_MISUSE, message: "primary keys are allocated inside the write transaction of a save", path: path)
        }
    }

    private func rootEntity(of entityName: String) throws -> StoreLayout.Entity {
        let entity = try layoutEntity(entityName)
        return layout.entities.first { $0.tableName == entity.tableName && $0.superNumber == 0 } ?? entity
    }

    /// The layout of the entity named `name`, or the error that names the entities there are.
    func layoutEntity(_ name: String) throws -> StoreLayout.Entity {
        guard let entity = layout.entity(named: name) else {
            throw StoreError.unknownEntity(path: path, name: name, known: layout.entities.map(\.name))
        }
        return entity
    }

    /// The table and column holding the owner's key for `entityName`'s to-many `relationship`
    /// when it has no inverse (Core Data's `Z<n><NAME>` on the destination's table).
    private func toManyKeyColumn(_ entityName: String, _ relationship: String) -> (table: String, column: String)? {
        guard let owner = layout.entity(named: entityName), let column = owner.toManyKeyColumns[relationship],
            let entity = model.entity(named: entityName), let description = model.relationship(named: relationship, in: entity),
            let destination = layout.entity(named: description.destinationEntityName)
        else { return nil }
        return (destination.tableName, column)
    }

    /// The join table of a many-to-many and its columns seen from `entityName`'s side: the one
    /// holding the row's own key, and the one holding its related keys.
    private func joinColumns(_ entityName: String, _ relationship: String) throws -> (table: String, source: String, destination: String, order: String?) {
        guard let entity = model.entity(named: entityName), let columns = layout.joinColumns(of: entity, relationship: relationship, in: model) else {
            let owner = model.entity(named: entityName).flatMap { model.entityDeclaring(relationship: relationship, from: $0) }?.name ?? entityName
            throw StoreError.unknownProperty(
                path: path, entity: entityName, property: relationship, known: layout.joinTables.flatMap { [$0.relationship, $0.inverse] }
                    .filter { $0.entity == owner }.map(\.relationship).sorted())
        }
        return columns
    }

    func conflict(_ entity: StoreLayout.Entity, _ primaryKey: Int64, _ expectedVersion: Int64) throws -> StoreError {
        let actual = try database.scalar("SELECT Z_OPT FROM \(entity.tableName) WHERE Z_PK = ?", [.integer(primaryKey)])?.int64Value
        return .conflict(path: path, entity: entity.name, primaryKey: primaryKey, expectedVersion: expectedVersion, actualVersion: actual)
    }
}

/// The members of a to-many of several rows, as ``PersistentStore/toManyMembers(_:_:attribute:owners:)``
/// reads them: one array of keys (and of values) for all, and each owner's range in it.
struct ToManyMembers {
    /// Each owner's members' positions in ``keys``; an owner without members has none.
    var ranges: [Int64: Range<Int>] = [:]
    /// The members' `Z_PK`s.
    var keys: [Int64] = []
    /// The members' values of the attribute read, by position.
    var values: [DatabaseValue] = []

    /// The positions of the members of the row `owner`.
    func positions(of owner: Int64) -> Range<Int> { ranges[owner] ?? 0..<0 }
}
