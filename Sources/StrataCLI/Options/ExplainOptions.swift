import ArgumentParser
import Foundation
import Strata

/// `--explain`, shared by `fetch`, `count`, `query` and `delete`: print the SQL the command
/// would run, its arguments and SQLite's query plan, and stop there.
struct ExplainOptions: ParsableArguments {
    @Flag(help: "Print the SQL the command would run, with its bound arguments and SQLite's query plan (EXPLAIN QUERY PLAN), and run nothing.")
    var explain = false

    /// Prints `explanation` on standard output: the SQL, each `?N` with its value, and the
    /// plan as a tree, each part headed by an SQL comment so that the SQL can be copied as it is.
    static func print(_ explanation: QueryExplanation) {
        var text = "-- \(explanation.operation.heading)\n\(explanation.sql);\n"
        if !explanation.arguments.isEmpty {
            text += "-- arguments\n"
            for (index, value) in explanation.arguments.enumerated() { text += "--   ?\(index + 1) = \(value)\n" }
        }
        text += "-- query plan\n"
        text += explanation.planText.split(separator: "\n").map { "--   \($0)\n" }.joined()
        FileHandle.standardOutput.write(Data(text.utf8))
    }
}

extension QueryExplanation.Operation {
    /// What the explained statement does, in the words of the command's user.
    fileprivate var heading: String {
        switch self {
        case .fetch: "the rows the command reads"
        case .count: "the count"
        case .delete: "the objects the deletion selects; its delete rules then follow them in SQL set operations"
        }
    }
}
