extension PersistentStore {
    /// Inserts one row of `entityName` per element of `rows`, each the values of `attributes`
    /// in order, under keys handed out at once (rising in row order), at version 1: one
    /// prepared statement bound by position, no object made. Call it inside a transaction.
    ///
    /// - Returns: the keys of the rows, or `nil` when `rows` is empty.
    func insertRows(_ entityName: String, attributes: [String], rows: [[DatabaseValue]]) throws -> ClosedRange<Int64>? {
        guard !rows.isEmpty else { return nil }
        let entity = try layoutEntity(entityName)
        let columns = try attributes.map { name in
            guard let column = entity.attributeColumns[name] else {
                throw StoreError.unknownProperty(path: path, entity: entityName, property: name, known: entity.attributeColumns.keys.sorted())
            }
            return column
        }
        let keys = try allocatePrimaryKeys(for: entityName, count: rows.count)
        let statement = try database.cachedStatement("""
            INSERT INTO \(entity.tableName) (Z_PK, Z_ENT, Z_OPT\(columns.map { ", " + $0 }.joined())) \
            VALUES (?, \(entity.number), 1\(String(repeating: ", ?", count: columns.count)))
            """)
        for (key, row) in zip(keys, rows) {
            try statement.execute { arguments in
                arguments.append(.integer(key))
                for value in row { arguments.append(value) }
            }
        }
        return keys
    }

    /// Sets the attributes `values` names (by attribute name) on every row `plan` selects (its
    /// sort, offset and limit apply), and moves each row's `Z_OPT` on, in one statement.
    ///
    /// - Returns: how many rows changed, and which when `collectsReferences`.
    func updateRows(_ plan: RowSelection, values: [String: DatabaseValue], collectsReferences: Bool) throws -> (count: Int, rows: [RowReference]) {
        var plan = plan
        let entity = plan.table
        var assignments: [String] = []
        for (name, value) in values.sorted(by: { $0.key < $1.key }) {
            guard let column = entity.attributeColumns[name] else {
                throw StoreError.unknownProperty(path: path, entity: entity.name, property: name, known: entity.attributeColumns.keys.sorted())
            }
            // Numbered after the predicate's parameters, as every value the plan binds.
            assignments.append("\(column) = \(plan.bind(value))")
        }
        let selection = plan.selection(of: "t0.Z_PK")
        let sql = "UPDATE \(entity.tableName) SET \((assignments + ["Z_OPT = Z_OPT + 1"]).joined(separator: ", ")) "
            + "WHERE Z_PK IN (\(selection))" + (collectsReferences ? " RETURNING Z_PK, Z_ENT" : "")
        let statement = try database.cachedStatement(sql)
        guard collectsReferences else {
            try statement.execute(plan.arguments)
            return (database.changedRowCount, [])
        }
        let names = layout.entityNamesByNumber
        let rows = try statement.rows(plan.arguments).map { row in
            RowReference(entityName: entity.holdsTableAlone ? entity.name : names[Int(row[1].int64Value ?? 0)] ?? entity.name, primaryKey: row[0].int64Value ?? 0)
        }
        return (rows.count, rows)
    }
}
