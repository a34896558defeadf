/// The SQL a request becomes, with its bound arguments and the plan SQLite chose for it
/// (`EXPLAIN QUERY PLAN`), found without running the statement: what `strata fetch --explain`
/// prints.
///
/// ```swift
/// let explanation = try store.explain(FetchRequest(entityName: "Book", predicate: ObjectPredicate(format: "rating >= 4")))
/// print(explanation.sql)        // SELECT … FROM ZBOOK t0 WHERE … ORDER BY t0.Z_PK …
/// print(explanation.arguments)  // [4, -1, 0]
/// print(explanation.planText)   // SCAN t0
/// ```
package struct QueryExplanation: Sendable {
    /// What the explained statement is for.
    package enum Operation: String, Sendable, CaseIterable {
        /// The rows a fetch reads, in the form its ``FetchRequest/resultType`` reads them.
        case fetch
        /// The count of the rows a fetch would read.
        case count
        /// The rows a batch delete selects; its delete rules then follow them as set operations
        /// (in temporary tables) before the rows go.
        case delete
    }

    /// One step of SQLite's plan: a row of `EXPLAIN QUERY PLAN`.
    package struct Step: Sendable, Equatable {
        /// The step's number, which its children name as their ``parent``.
        package var id: Int
        /// The step this one belongs to; 0 for a top-level step.
        package var parent: Int
        /// SQLite's words for the step: `SCAN t0`, `SEARCH t0 USING INDEX … (Z_ENT=?)`,
        /// `USE TEMP B-TREE FOR ORDER BY`.
        package var detail: String
    }

    /// What the statement is for.
    package var operation: Operation
    /// The statement, with `?N` placeholders.
    package var sql: String
    /// The values bound to the placeholders, in order.
    package var arguments: [DatabaseValue]
    /// SQLite's plan for the statement with these arguments, in the order SQLite gives it.
    package var plan: [Step]

    /// The plan as a tree, one step a line, children indented under their parent, as the
    /// `sqlite3` shell's `.eqp on` prints it.
    package var planText: String {
        var lines: [String] = []
        func visit(_ parent: Int, depth: Int) {
            for step in plan where step.parent == parent {
                lines.append(String(repeating: "  ", count: depth) + step.detail)
                visit(step.id, depth: depth + 1)
            }
        }
        visit(0, depth: 0)
        return lines.joined(separator: "\n")
    }
}
