import Foundation

extension PersistentStore {
    /// What a deletion run as SQL did: the rows it deleted (those the plan selected, and those
    /// Cascade rules took), and the rows left whose relationships lost members, whose `Z_OPT`
    /// moved on as a save would move it.
    struct BatchDeletion {
        /// Rows the plan selected, by entity.
        var matchedCounts: [String: Int] = [:]
        /// Rows Cascade rules took besides, by entity.
        var cascadedCounts: [String: Int] = [:]
        /// Every deleted row, when asked for.
        var deleted: [RowReference] = []
        /// Every row whose relationships changed, when asked for.
        var updated: [RowReference] = []
    }

    /// Why a deletion in SQL stopped, having written nothing the caller's transaction keeps.
    enum BatchDeleteRefusal: Error {
        /// A Deny rule: `row` still holds `count` objects in `relationship`.
        case denied(row: RowReference, relationship: String, count: Int)
        /// A Nullify rule would leave `row` without its required to-one `relationship`.
        case required(row: RowReference, relationship: String)
    }

    /// Deletes the rows `plan` selects (its sort, offset and limit apply) and applies the
    /// model's delete rules as set operations, without reading a row into memory: Cascade
    /// deletes the related rows (and theirs, to any depth), Nullify clears the inverse to-ones
    /// that pointed at deleted rows, Deny stops the deletion while a row that stays is held,
    /// and No Action leaves the related rows as they are. Many-to-many links of deleted rows
    /// go; `Z_PRIMARYKEY` is untouched, as after any deletion.
    ///
    /// Call it inside a transaction: a refusal is thrown before anything is written, but the
    /// caller's rollback is what undoes a failure halfway.
    ///
    /// - Parameters:
    ///   - collectsReferences: whether to return every deleted and updated row.
    ///   - willDelete: called with the rows about to go, a thousand at a time, when not `nil`.
    /// - Throws: ``BatchDeleteRefusal``, or ``DatabaseError``.
    func deleteRows(
        _ plan: RowSelection, collectsReferences: Bool, willDelete: (([RowReference]) throws -> Void)? = nil
    ) throws -> BatchDeletion {
        if plan.table.holdsTableAlone, model.allRelationships(of: plan.entity).isEmpty {
            return try deleteUnrelatedRows(plan, collectsReferences: collectsReferences, willDelete: willDelete)
        }
        let run = BatchDeleteRun(store: self)
        try run.prepare()
        defer { run.dropScratchTables() }
        var plan = plan
        try database.execute("INSERT INTO \(run.doomed(plan.table.tableName)) (pk, ent, round) \(plan.selection(of: "t0.Z_PK, t0.Z_ENT, 0"))", plan.arguments)
        try run.cascade()
        try run.checkDenyRules()
        try run.nullify()
        var deletion = try run.counts()
        let updated = try run.touchUpdatedRows()
        let deleted = try run.deleteDoomedRows(collecting: collectsReferences, willDelete: willDelete)
        if collectsReferences { (deletion.updated, deletion.deleted) = (updated, deleted) }
        return deletion
    }
}

extension PersistentStore {
    /// ``deleteRows(_:collectsReferences:willDelete:)`` for an entity with neither relationships
    /// nor a table shared with other entities: no rule to keep, one statement.
    private func deleteUnrelatedRows(
        _ plan: RowSelection, collectsReferences: Bool, willDelete: (([RowReference]) throws -> Void)?
    ) throws -> BatchDeletion {
        var plan = plan
        let table = plan.table.tableName, name = plan.table.name
        let selection = plan.selection(of: "t0.Z_PK")
        var deletion = BatchDeletion()
        if collectsReferences || willDelete != nil {
            let rows = try database.rows(selection, plan.arguments).map { RowReference(entityName: name, primaryKey: $0[0].int64Value ?? 0) }
            for start in stride(from: 0, to: rows.count, by: 1000) { try willDelete?(Array(rows[start..<min(start + 1000, rows.count)])) }
            if collectsReferences { deletion.deleted = rows }
        }
        try database.execute(
            plan.isWindowed ? "DELETE FROM \(table) WHERE Z_PK IN (\(selection))" : "DELETE FROM \(table) AS t0 WHERE \(plan.condition)", plan.arguments)
        if database.changedRowCount > 0 { deletion.matchedCounts[name] = database.changedRowCount }
        return deletion
    }
}

/// The state of one ``PersistentStore/deleteRows(_:collectsReferences:willDelete:)``: a scratch
/// table per store table of the keys to delete (with the cascade round that reached them), and
/// one of the keys of the rows that stay but changed.
private struct BatchDeleteRun {
    let store: PersistentStore
    private var database: Database { store.database }
    private var model: ObjectModel { store.model }
    private let tables: [String]
    /// The entity of each table's rows when the table holds one entity alone, else the root's.
    private let tableEntities: [String: (name: String, alone: Bool)]
    private let entityNames: [Int: String]

    init(store: PersistentStore) {
        self.store = store
        tables = Array(Set(store.layout.entities.map(\.tableName))).sorted()
        var tableEntities: [String: (name: String, alone: Bool)] = [:]
        for entity in store.layout.entities where entity.superNumber == 0 { tableEntities[entity.tableName] = (entity.name, entity.holdsTableAlone) }
        self.tableEntities = tableEntities
        entityNames = store.layout.entityNamesByNumber
    }

    func doomed(_ table: String) -> String { "temp.strata_doomed_\(table)" }
    private func touched(_ table: String) -> String { "temp.strata_touched_\(table)" }

    func prepare() throws {
        for table in tables {
            try database.execute("CREATE TEMP TABLE IF NOT EXISTS strata_doomed_\(table) (pk INTEGER PRIMARY KEY, ent INTEGER, round INTEGER)")
            try database.execute("CREATE TEMP TABLE IF NOT EXISTS strata_touched_\(table) (pk INTEGER PRIMARY KEY)")
            try database.execute("DELETE FROM \(doomed(table))")
            try database.execute("DELETE FROM \(touched(table))")
        }
    }

    func dropScratchTables() {
        for table in tables {
            try? database.execute("DROP TABLE IF EXISTS \(doomed(table))")
            try? database.execute("DROP TABLE IF EXISTS \(touched(table))")
        }
    }

    // MARK: - Relationships as SQL

    /// A relationship declared by an entity, with the layouts of both ends.
    private struct Rule {
        let relationship: RelationshipDescription
        let source: StoreLayout.Entity
        let destination: StoreLayout.Entity
    }

    /// The relationships whose delete rule is `rule`, each once, on the entity declaring it.
    private func rules(_ rule: DeleteRule) -> [Rule] {
        model.entities.flatMap { entity in
            entity.relationships.compactMap { relationship in
                guard relationship.deleteRule == rule, !relationship.isTransient,
                    let source = store.layout.entity(named: entity.name),
                    let destination = store.layout.entity(named: relationship.destinationEntityName)
                else { return nil }
                return Rule(relationship: relationship, source: source, destination: destination)
            }
        }
    }

    /// `SELECT pk FROM` the doomed rows of `entity` and its sub-entities (of one cascade round).
    private func doomedKeys(of entity: StoreLayout.Entity, round: Int? = nil) -> String {
        var conditions: [String] = []
        if !entity.holdsTableAlone { conditions.append("ent BETWEEN \(entity.numberRange.lowerBound) AND \(entity.numberRange.upperBound)") }
        if let round { conditions.append("round = \(round)") }
        return "SELECT pk FROM \(doomed(entity.tableName))" + (conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND "))
    }

    /// `SELECT source, member` for each member the rows `sources` (a query of keys) hold in the rule's relationship.
    private func members(of rule: Rule, sources: String) -> String? {
        let relationship = rule.relationship, destination = rule.destination
        if !relationship.isToMany {
            guard let column = rule.source.toOneColumns[relationship.name]?.key else { return nil }
            return "SELECT Z_PK AS source, \(column) AS member FROM \(rule.source.tableName) WHERE Z_PK IN (\(sources)) AND \(column) IS NOT NULL"
        }
        if let column = relationship.inverseName.flatMap({ destination.toOneColumns[$0]?.key }) ?? rule.source.toManyKeyColumns[relationship.name] {
            return "SELECT \(column) AS source, Z_PK AS member FROM \(destination.tableName) WHERE \(column) IN (\(sources)) AND \(destination.kindCondition)"
        }
        guard let entity = model.entity(named: rule.source.name),
            let join = store.layout.joinColumns(of: entity, relationship: relationship.name, in: model)
        else { return nil }
        return "SELECT \(join.source) AS source, \(join.destination) AS member FROM \(join.table) WHERE \(join.source) IN (\(sources))"
    }

    // MARK: - Rules

    /// Marks, round after round, the rows Cascade rules reach from the rows marked in the round before.
    func cascade() throws {
        let cascades = rules(.cascade)
        var round = 0
        while true {
            var reached = 0
            for rule in cascades {
                guard let members = members(of: rule, sources: doomedKeys(of: rule.source, round: round)) else { continue }
                let table = rule.destination.tableName
                try database.execute("""
                    INSERT OR IGNORE INTO \(doomed(table)) (pk, ent, round) SELECT Z_PK, Z_ENT, \(round + 1) FROM \(table) \
                    WHERE Z_PK IN (SELECT member FROM (\(members))) AND \(rule.destination.kindCondition)
                    """)
                reached += database.changedRowCount
            }
            guard reached > 0 else { return }
            round += 1
        }
    }

    /// Refuses the deletion when a doomed row holds, through a Deny rule, a row that stays.
    func checkDenyRules() throws {
        for rule in rules(.deny) {
            guard let members = members(of: rule, sources: doomedKeys(of: rule.source)) else { continue }
            let held = try database.rows("""
                SELECT source, COUNT(*) FROM (\(members)) WHERE member NOT IN (SELECT pk FROM \(doomed(rule.destination.tableName))) \
                GROUP BY source ORDER BY source LIMIT 1
                """)
            if let row = held.first, let key = row[0].int64Value {
                throw PersistentStore.BatchDeleteRefusal.denied(
                    row: try reference(rule.source, key), relationship: rule.relationship.name, count: Int(row[1].int64Value ?? 0))
            }
        }
    }

    /// Clears the inverse to-ones that point at doomed rows from rows that stay, and marks as
    /// changed the rows that stay whose to-manys lose doomed members.
    func nullify() throws {
        for rule in rules(.nullify) {
            guard let inverseName = rule.relationship.inverseName, let destinationEntity = model.entity(named: rule.destination.name),
                let inverse = model.relationship(named: inverseName, in: destinationEntity)
            else { continue }
            let destination = rule.destination
            let staying = "Z_PK NOT IN (SELECT pk FROM \(doomed(destination.tableName)))"
            if !inverse.isToMany, let columns = destination.toOneColumns[inverseName] {
                let pointing = "\(columns.key) IN (\(doomedKeys(of: rule.source))) AND \(destination.kindCondition) AND \(staying)"
                if !inverse.isOptional, let row = try database.rows("SELECT Z_PK FROM \(destination.tableName) WHERE \(pointing) ORDER BY Z_PK LIMIT 1").first {
                    throw PersistentStore.BatchDeleteRefusal.required(row: try reference(destination, row[0].int64Value ?? 0), relationship: inverseName)
                }
                try database.execute("INSERT OR IGNORE INTO \(touched(destination.tableName)) SELECT Z_PK FROM \(destination.tableName) WHERE \(pointing)")
                let cleared = [columns.key, columns.entity, columns.order].compactMap { $0 }.map { "\($0) = NULL" }.joined(separator: ", ")
                try database.execute("UPDATE \(destination.tableName) SET \(cleared) WHERE \(pointing)")
            } else if let members = members(of: rule, sources: doomedKeys(of: rule.source)) {
                try database.execute("""
                    INSERT OR IGNORE INTO \(touched(destination.tableName)) \
                    SELECT Z_PK FROM \(destination.tableName) WHERE Z_PK IN (SELECT member FROM (\(members))) AND \(destination.kindCondition) AND \(staying)
                    """)
            }
        }
    }

    /// Moves on the `Z_OPT` of each changed row once; returns the rows.
    func touchUpdatedRows() throws -> [RowReference] {
        var updated: [RowReference] = []
        for table in tables {
            for row in try database.rows("UPDATE \(table) SET Z_OPT = Z_OPT + 1 WHERE Z_PK IN (SELECT pk FROM \(touched(table))) RETURNING Z_PK, Z_ENT") {
                updated.append(reference(table: table, row))
            }
        }
        return updated
    }

    /// How many rows the plan matched and how many cascades took, by entity.
    func counts() throws -> PersistentStore.BatchDeletion {
        var deletion = PersistentStore.BatchDeletion()
        for table in tables {
            for row in try database.rows("SELECT ent, round = 0, COUNT(*) FROM \(doomed(table)) GROUP BY ent, round = 0") {
                let name = entityName(in: table, number: row[0]), count = Int(row[2].int64Value ?? 0)
                if row[1].int64Value == 1 { deletion.matchedCounts[name, default: 0] += count } else { deletion.cascadedCounts[name, default: 0] += count }
            }
        }
        return deletion
    }

    /// Deletes the doomed rows and the many-to-many links of each; returns the rows when
    /// `collecting`.
    func deleteDoomedRows(collecting: Bool, willDelete: (([RowReference]) throws -> Void)?) throws -> [RowReference] {
        var deleted: [RowReference] = []
        if collecting || willDelete != nil {
            for table in tables {
                let rows = try database.rows("SELECT pk, ent FROM \(doomed(table)) ORDER BY pk").map { reference(table: table, $0) }
                for start in stride(from: 0, to: rows.count, by: 1000) { try willDelete?(Array(rows[start..<min(start + 1000, rows.count)])) }
                if collecting { deleted += rows }
            }
        }
        for join in store.layout.joinTables {
            guard let owner = store.layout.entity(named: join.relationship.entity), let other = store.layout.entity(named: join.inverse.entity) else { continue }
            try database.execute("""
                DELETE FROM \(join.name) WHERE \(join.sourceColumn) IN (\(doomedKeys(of: owner))) OR \(join.destinationColumn) IN (\(doomedKeys(of: other)))
                """)
        }
        for table in tables {
            try database.execute("DELETE FROM \(table) WHERE Z_PK IN (SELECT pk FROM \(doomed(table)))")
        }
        return deleted
    }

    // MARK: - Rows

    /// The row of `table` whose `Z_PK` and `Z_ENT` are `row`'s first two values.
    private func reference(table: String, _ row: [DatabaseValue]) -> RowReference {
        RowReference(entityName: entityName(in: table, number: row[1]), primaryKey: row[0].int64Value ?? 0)
    }

    /// The entity of a row of `table` whose `Z_ENT` is `number`.
    private func entityName(in table: String, number: DatabaseValue) -> String {
        let owner = tableEntities[table]
        let name = owner?.alone == true ? owner?.name : number.int64Value.flatMap { entityNames[Int($0)] } ?? owner?.name
        return name ?? table
    }

    private func reference(_ entity: StoreLayout.Entity, _ primaryKey: Int64) throws -> RowReference {
        let number = try database.scalar("SELECT Z_ENT FROM \(entity.tableName) WHERE Z_PK = ?", [.integer(primaryKey)])
        return reference(table: entity.tableName, [.integer(primaryKey), number ?? .null])
    }
}
