import Foundation

/// Carrying a store's persistent history through a step that mapping models carry out.
///
/// Such a step makes every object anew, with primary keys of the new store, so each change is
/// re-pointed to the object made from its object: the entity number and primary key of that
/// object (the first one made, where several entity mappings made several), and `ZCOLUMNS`
/// rewritten for the new entity's properties (a bit of a source property that property
/// mappings read, as `$source.key` or inside a function, stands for the properties those
/// mappings give; a property no mapping reads loses its bit). A change of an object that has no
/// counterpart in the new store (deleted before the migration, left out by a filter
/// predicate, of an entity a mapping removes or no mapping takes) is dropped, deletion
/// tombstones included: its primary key may be another object's in the new store, so it
/// cannot be kept as it was. Every transaction and string is kept with its number, so a
/// history token stays valid (a transaction may be left without changes). How Core Data's
/// migration manager treats history is not known from a store; this is inferred, as for
/// inferred steps (``MigrationStepRun``).
extension MappedStepRun {
    /// An object of the input and the object of the new store that stands for it.
    struct Counterpart {
        var source: ObjectID
        var destination: ObjectID
        /// The entity mapping that made the destination object.
        var mapping: MappingModel.EntityMapping
    }

    /// Copies the input's history (attached to `database` as `src`) into the new store;
    /// returns how many changes were dropped. Does nothing when the input keeps no history.
    func carryHistory(on database: Database, counterparts: [Counterpart]) throws -> Int {
        guard try HistoryTablesCopy.createTables(on: database, for: step.mapping.destination) else { return 0 }
        try HistoryTablesCopy.copyTransactions(on: database)
        let sourceNumbers = try entityNumbers(in: "src", of: database), destinationNumbers = try entityNumbers(in: "main", of: database)
        try database.execute(
            "CREATE TEMP TABLE strata_counterpart (old_ent INTEGER, old_pk INTEGER, new_ent INTEGER, new_pk INTEGER, rule INTEGER, PRIMARY KEY (old_ent, old_pk)) WITHOUT ROWID")
        defer { try? database.execute("DROP TABLE temp.strata_counterpart") }
        // How each (source entity, entity mapping) rewrites a bitmap, by number.
        var ruleNumbers: [String: Int] = [:]
        var rules: [(old: [String], new: [String], renamed: [String: [String]])] = []
        for counterpart in counterparts {
            guard let oldPK = counterpart.source.primaryKey, let newPK = counterpart.destination.primaryKey,
                let oldNumber = sourceNumbers[counterpart.source.entityName], let newNumber = destinationNumbers[counterpart.destination.entityName]
            else { continue }
            let key = "\(counterpart.source.entityName)\u{0}\(counterpart.destination.entityName)\u{0}\(counterpart.mapping.name)"
            let rule: Int
            if let known = ruleNumbers[key] {
                rule = known
            } else {
                rule = rules.count
                ruleNumbers[key] = rule
                rules.append(bitmapRule(from: counterpart.source.entityName, to: counterpart.destination.entityName, mapping: counterpart.mapping))
            }
            try database.execute(
                "INSERT OR IGNORE INTO temp.strata_counterpart VALUES (?, ?, ?, ?, ?)",
                [.integer(Int64(oldNumber)), .integer(oldPK), .integer(Int64(newNumber)), .integer(newPK), .integer(Int64(rule))])
        }
        let join = "FROM src.ACHANGE c JOIN temp.strata_counterpart m ON m.old_ent = c.ZENTITY AND m.old_pk = c.ZENTITYPK"
        try database.execute(
            "INSERT INTO main.ACHANGE (Z_PK, Z_ENT, Z_OPT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS) "
                + "SELECT c.Z_PK, c.Z_ENT, c.Z_OPT, c.ZCHANGETYPE, m.new_ent, m.new_pk, c.ZTRANSACTIONID, c.ZCOLUMNS \(join)")
        for row in try database.rows("SELECT c.Z_PK, c.ZCOLUMNS, m.rule \(join) WHERE c.ZCOLUMNS IS NOT NULL") {
            guard let bitmap = row[1].dataValue, let index = row[2].int64Value.map(Int.init), rules.indices.contains(index) else { continue }
            let rule = rules[index]
            guard let columns = HistoryTablesCopy.bitmap(bitmap, from: rule.old, to: rule.new, renamed: rule.renamed) else { continue }
            try database.execute("UPDATE main.ACHANGE SET ZCOLUMNS = ? WHERE Z_PK = ?", [.blob(columns), row[0]])
        }
        let all = try database.scalar("SELECT COUNT(*) FROM src.ACHANGE")?.int64Value ?? 0
        let kept = try database.scalar("SELECT COUNT(*) FROM main.ACHANGE")?.int64Value ?? 0
        try HistoryTablesCopy.finish(on: database, storePath: storePath)
        return Int(all - kept)
    }

    /// `Z_ENT` by entity name, from the `Z_PRIMARYKEY` of the schema `schema`.
    private func entityNumbers(in schema: String, of database: Database) throws -> [String: Int] {
        var numbers: [String: Int] = [:]
        for row in try database.rows("SELECT Z_ENT, Z_NAME FROM \(schema).Z_PRIMARYKEY WHERE Z_ENT < 16000") {
            if let number = row[0].int64Value, let name = row[1].stringValue { numbers[name] = Int(number) }
        }
        return numbers
    }

    /// The property orders of the two entities, and which destination properties each source
    /// property the entity mapping reads stands for.
    private func bitmapRule(from source: String, to destination: String, mapping: MappingModel.EntityMapping) -> (old: [String], new: [String], renamed: [String: [String]]) {
        let sourceModel = step.mapping.source, destinationModel = step.mapping.destination
        let old = sourceModel.entity(named: source).map { PersistentHistory.propertyOrder(of: $0, in: sourceModel) } ?? []
        let new = destinationModel.entity(named: destination).map { PersistentHistory.propertyOrder(of: $0, in: destinationModel) } ?? []
        var renamed: [String: [String]] = [:]
        for property in mapping.attributeMappings + mapping.relationshipMappings {
            guard let expression = property.valueExpression else { continue }
            for key in Set(Self.sourceKeys(in: expression)) { renamed[key, default: []].append(property.name) }
        }
        return (old, new, renamed)
    }

    /// The source properties an expression reads: the first key after `$source` in each of
    /// its key paths.
    private static func sourceKeys(in expression: ObjectPredicate.Expression) -> [String] {
        if case .keyPath(let path) = expression, path.count > 1, path[0] == "$source" { return [path[1]] }
        return expression.operands.flatMap(sourceKeys(in:))
    }
}
