import Foundation

extension PersistentStore {
    /// A row a fetch of objects selected: the row, its values when the fetch reads them, and
    /// the values of its sort keys when the caller merges the rows with objects in memory.
    struct SelectedRow {
        var reference: RowReference
        var snapshot: RowSnapshot?
        var sortValues: [DatabaseValue]
    }

    /// The rows `plan` selects in its order, leaving out `excludedKeys` (rows a context holds
    /// unsaved changes for), from `offset` on, at most `limit` of them (`nil`: all), each made
    /// into an entry by `entry` as it is read.
    func selectRows<Entry>(
        _ plan: FetchPlan, excluding excludedKeys: Set<Int64>, readsValues: Bool, readsSortValues: Bool, limit: Int?, offset: Int,
        _ entry: (SelectedRow) throws -> Entry
    ) throws -> [Entry] {
        let reader = readsValues ? RowReader(entity: plan.table, includesSubentities: plan.request.includesSubentities, store: self) : nil
        let sortStart = reader.map { 3 + $0.columns.count } ?? 2
        let (sql, arguments) = try selection(plan, reader: reader, excluding: excludedKeys, readsSortValues: readsSortValues, limit: limit, offset: offset)
        let names = layout.entityNamesByNumber
        var entries: [Entry] = []
        try database.cachedStatement(sql).forEachRow(arguments) { statement in
            let row = statement.currentRow
            let snapshot = reader?.snapshot(row)
            let entityName = snapshot?.entityName
                ?? (plan.table.holdsTableAlone ? plan.table.name : names[Int(row[1].int64Value ?? 0)] ?? plan.entity.name)
            entries.append(try entry(SelectedRow(
                reference: RowReference(entityName: entityName, primaryKey: row[0].int64Value ?? 0), snapshot: snapshot,
                sortValues: readsSortValues ? Array(row[sortStart...]) : [])))
            return true
        }
        return entries
    }

    /// Calls `body` with each row `plan` selects, in its order, from `offset` on, at most
    /// `limit` of them: its values read from the statement as it steps, with no copy of the
    /// row kept. For a reader that takes each row's values into objects and lets the row go.
    func forEachSelectedRow(_ plan: FetchPlan, limit: Int?, offset: Int, _ body: (StatementRow) throws -> Void) throws {
        let reader = RowReader(entity: plan.table, includesSubentities: plan.request.includesSubentities, store: self)
        let (sql, arguments) = try selection(plan, reader: reader, excluding: [], readsSortValues: false, limit: limit, offset: offset)
        try database.cachedStatement(sql).forEachRow(arguments) { statement in
            try body(reader.currentRow(of: statement))
            return true
        }
    }

    /// The `SELECT` of `plan`'s rows: `Z_PK, Z_ENT` (and `reader`'s columns after `Z_OPT` when
    /// given), then the sort keys' values when `readsSortValues`.
    func selection(
        _ plan: FetchPlan, reader: RowReader?, excluding excludedKeys: Set<Int64>, readsSortValues: Bool, limit: Int?, offset: Int
    ) throws -> (sql: String, arguments: [DatabaseValue]) {
        var plan = plan
        var select = reader?.selectList(alias: "t0") ?? "t0.Z_PK, t0.Z_ENT"
        if readsSortValues { select += plan.sortKeys.map { ", \($0.sql)" }.joined() }
        var sql = "SELECT \(select) FROM \(plan.table.tableName) t0 WHERE \(plan.condition)"
        sql += try exclusion(of: excludedKeys, in: &plan)
        sql += " \(plan.orderBy) LIMIT \(plan.bind(.integer(Int64(limit ?? -1)))) OFFSET \(plan.bind(.integer(Int64(offset))))"
        return (sql, plan.arguments)
    }

    /// The number of rows `plan` selects, leaving out `excludedKeys`, before any limit.
    func countRows(_ plan: FetchPlan, excluding excludedKeys: Set<Int64> = []) throws -> Int {
        let (sql, arguments) = try counting(plan, excluding: excludedKeys)
        return Int(try database.scalar(sql, arguments)?.int64Value ?? 0)
    }

    /// The `SELECT COUNT(*)` of ``countRows(_:excluding:)``.
    func counting(_ plan: FetchPlan, excluding excludedKeys: Set<Int64> = []) throws -> (sql: String, arguments: [DatabaseValue]) {
        var plan = plan
        var sql = "SELECT COUNT(*) FROM \(plan.table.tableName) t0 WHERE \(plan.condition)"
        sql += try exclusion(of: excludedKeys, in: &plan)
        return (sql, plan.arguments)
    }

    /// ` AND t0.Z_PK NOT IN (…)`, the keys bound as one JSON array, so that any number fits.
    private func exclusion(of keys: Set<Int64>, in plan: inout FetchPlan) throws -> String {
        guard !keys.isEmpty else { return "" }
        return " AND t0.Z_PK NOT IN (SELECT value FROM json_each(\(plan.bind(.keyList(keys.sorted())))))"
    }
}

extension StoreLayout {
    /// Entity names by `Z_ENT`.
    var entityNamesByNumber: [Int: String] {
        Dictionary(entities.map { ($0.number, $0.name) }, uniquingKeysWith: { first, _ in first })
    }
}
