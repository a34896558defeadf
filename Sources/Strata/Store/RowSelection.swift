/// The rows of one entity's table that a batch delete or update works on, as SQL: a condition
/// on the table aliased `t0` with its bound parameters and, when the request orders, offsets or
/// limits what it selects, the window that picks the rows.
///
/// The fetch layer compiles a request into one (``FetchPlan/rowSelection``); the store runs it
/// without knowing requests or predicates.
struct RowSelection {
    /// The window of a selection that is ordered, offset or limited.
    struct Window {
        /// The `ORDER BY` clause, ending with `t0.Z_PK` so that equal keys keep the store's order.
        let orderBy: String
        /// The number of rows at most; -1 for no limit (SQLite's).
        let limit: Int
        let offset: Int
    }

    let entity: EntityDescription
    let table: StoreLayout.Entity
    /// `WHERE`'s condition: the rows' kind and the predicate.
    let condition: String
    let window: Window?
    /// The values of the parameters numbered so far, in order.
    private(set) var arguments: [DatabaseValue]

    /// Whether the selection orders or limits what it selects: `condition` alone does not say
    /// which rows it is.
    var isWindowed: Bool { window != nil }

    /// `SELECT columns FROM … WHERE …`, with the window's order, offset and limit when it is
    /// windowed.
    mutating func selection(of columns: String) -> String {
        var sql = "SELECT \(columns) FROM \(table.tableName) t0 WHERE \(condition)"
        if let window {
            sql += " \(window.orderBy) LIMIT \(bind(.integer(Int64(window.limit))))"
            sql += " OFFSET \(bind(.integer(Int64(window.offset))))"
        }
        return sql
    }

    /// Binds `value` as the next parameter and returns its placeholder.
    mutating func bind(_ value: DatabaseValue) -> String {
        arguments.append(value)
        return "?\(arguments.count)"
    }
}
