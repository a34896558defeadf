import Foundation

extension PersistentStore {
    /// The SQL that `operation` on `request` runs on this store, its arguments and SQLite's
    /// query plan, without running it: nothing is read but the schema, and nothing written.
    ///
    /// For ``QueryExplanation/Operation/fetch`` the statement is the one the request's
    /// ``FetchRequest/resultType`` reads with: a dictionary fetch's (grouping, HAVING and
    /// aggregates included), or the rows of objects or IDs. A context's pending changes are left
    /// out: they are merged in memory, not in SQL.
    ///
    /// ```swift
    /// let request = FetchRequest(entityName: "Book", predicate: try ObjectPredicate(format: "rating >= 4"))
    /// let explanation = try store.explain(request, for: .count)
    /// print(explanation.sql)       // SELECT COUNT(*) FROM ZBOOK t0 WHERE t0.Z_ENT = 2 AND (…)
    /// print(explanation.planText)  // SCAN t0
    /// ```
    ///
    /// - Throws: what running the request would throw for the request itself (an unknown
    ///   entity or key with the nearest names, ``PredicateCompileError``, ``FetchRequestError``),
    ///   and ``DatabaseError`` when SQLite cannot plan the statement.
    package func explain(_ request: FetchRequest, for operation: QueryExplanation.Operation = .fetch) throws -> QueryExplanation {
        try withConnection {
            let (sql, arguments) = try statement(of: request, for: operation)
            let plan = try database.makeStatement("EXPLAIN QUERY PLAN " + sql).rows(arguments).map { row in
                QueryExplanation.Step(
                    id: Int(row[0].int64Value ?? 0), parent: Int(row[1].int64Value ?? 0), detail: row.last?.stringValue ?? "")
            }
            return QueryExplanation(operation: operation, sql: sql, arguments: arguments, plan: plan)
        }
    }

    /// The statement ``explain(_:for:)`` explains, made as running the request makes it.
    private func statement(of request: FetchRequest, for operation: QueryExplanation.Operation) throws -> (String, [DatabaseValue]) {
        switch operation {
        case .count:
            return try counting(FetchPlan(request, store: self))
        case .delete:
            // What `deleteRows` selects into its list of rows to delete.
            var selection = try FetchPlan(request, store: self).rowSelection
            return (selection.selection(of: "t0.Z_PK, t0.Z_ENT"), selection.arguments)
        case .fetch where request.resultType == .dictionary:
            let query = try DictionaryQuery(request, store: self)
            return (query.sql, query.arguments)
        case .fetch where request.resultType == .count:
            return try counting(FetchPlan(request, store: self))
        case .fetch:
            let plan = try FetchPlan(request, store: self)
            let reader = request.resultType == .managedObject
                ? RowReader(entity: plan.table, includesSubentities: request.includesSubentities, store: self) : nil
            return try selection(
                plan, reader: reader, excluding: [], readsSortValues: false,
                limit: request.fetchLimit > 0 ? request.fetchLimit : nil, offset: request.fetchOffset)
        }
    }
}
