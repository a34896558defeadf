import Foundation
import Strata
import Testing

/// `--explain` on fetch, count, query and delete: the SQL printed is the SQL run (run here with
/// its arguments, it gives what the command gives), the plan is SQLite's for it, and nothing
/// is read or changed.
@Suite final class ExplainCommandTests {
    let library = try! SeededLibraryStore()

    /// What `--explain` printed: the statement, its arguments and the plan's lines.
    struct Explanation {
        var sql: String
        var arguments: [DatabaseValue]
        var plan: [String]

        init(_ output: String) {
            let lines = output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            sql = lines.count > 1 ? String(lines[1].dropLast()) : ""  // without its ';'
            arguments = []
            plan = []
            var section = ""
            for line in lines.dropFirst(2) where line.hasPrefix("--") {
                if !line.hasPrefix("--   ") {
                    section = line
                    continue
                }
                let item = String(line.dropFirst(5))
                if section == "-- arguments", let equals = item.range(of: " = ") {
                    arguments.append(Self.value(String(item[equals.upperBound...])))
                } else if section == "-- query plan" {
                    plan.append(item.trimmingCharacters(in: .whitespaces))
                }
            }
        }

        /// A value as DatabaseValue's description writes it.
        static func value(_ text: String) -> DatabaseValue {
            if text == "NULL" { return .null }
            if let integer = Int64(text) { return .integer(integer) }
            if let real = Double(text) { return .real(real) }
            return .text(String(text.dropFirst().dropLast()).replacingOccurrences(of: "''", with: "'"))
        }
    }

    private func explain(_ arguments: [String]) throws -> Explanation {
        let result = try StrataRunner.run(arguments + ["--store", library.path, "--explain"])
        #expect(result.status == 0, "\(arguments): \(result.standardError)")
        return Explanation(result.standardOutput)
    }

    /// SQLite's plan for `explanation`'s statement, asked here.
    private func plan(of explanation: Explanation) throws -> [String] {
        try library.rows("EXPLAIN QUERY PLAN " + explanation.sql, explanation.arguments).map { $0.last?.stringValue ?? "" }
    }

    @Test func countPrintsTheSQLItCountsWith() throws {
        let before = try library.contents()
        let explanation = try explain(["count", "Book", "--where", "rating > 1 AND title != 'Q'"])
        #expect(explanation.sql.hasPrefix("SELECT COUNT(*) FROM ZBOOK"), "\(explanation.sql)")
        #expect(explanation.arguments.contains(.text("Q")), "\(explanation.arguments)")
        #expect(try library.rows(explanation.sql, explanation.arguments) == [[.integer(2)]])
        #expect(try !explanation.plan.isEmpty && explanation.plan == plan(of: explanation))
        #expect(try library.contents() == before)
    }

    @Test func fetchPrintsTheSQLThatReadsItsRows() throws {
        for extra in [[], ["--select", "title,author.name"], ["--select", "title,tags.name"], ["--include", "pages"]] {
            let arguments = ["fetch", "Book", "--where", "rating < 4", "--sort", "title:desc", "--limit", "5"] + extra
            let explanation = try explain(arguments)
            #expect(explanation.sql.hasPrefix("SELECT ") && explanation.sql.contains("FROM ZBOOK t0"), "\(extra): \(explanation.sql)")
            let rows = try library.rows(explanation.sql, explanation.arguments)
            let fetched = try StrataRunner.run(arguments + ["--store", library.path, "--ndjson"])
            #expect(rows.count == 2 && fetched.standardOutput.split(separator: "\n").count == 2, "\(extra): \(rows)")
            #expect(try explanation.plan == plan(of: explanation), "\(extra)")
        }
    }

    @Test func queryPrintsItsGroupingSQL() throws {
        let arguments = ["query", "Page", "--select", "book.title as title, count(*)", "--group-by", "book.title", "--having", "count > 2"]
        let explanation = try explain(arguments)
        #expect(explanation.sql.contains("GROUP BY") && explanation.sql.contains("HAVING"), "\(explanation.sql)")
        let rows = try library.rows(explanation.sql, explanation.arguments)
        #expect(rows.count == 1 && rows.first?.contains(.text("A")) == true, "\(rows)")
        #expect(try explanation.plan == plan(of: explanation))
    }

    @Test func deletePrintsWhatItSelectsAndDeletesNothing() throws {
        let before = try library.contents()
        let explanation = try explain(["delete", "Book", "--where", "rating < 2"])
        #expect(explanation.sql.contains("FROM ZBOOK t0"), "\(explanation.sql)")
        #expect(try library.rows(explanation.sql, explanation.arguments).count == 2)
        #expect(try explanation.plan == plan(of: explanation))
        let all = try explain(["delete", "Book", "--all"])
        #expect(try library.rows(all.sql, all.arguments).count == 3)
        #expect(try library.contents() == before)
        #expect(try library.rows("SELECT count(*) FROM ZBOOK") == [[.integer(3)]])
    }

    @Test func explainAndDryRunAreOneTooMany() throws {
        let result = try StrataRunner.run(["delete", "Book", "--where", "rating < 2", "--dry-run", "--explain", "--store", library.path])
        #expect(result.status == 2)
        #expect(result.standardError.contains("--explain"), "\(result.standardError)")
    }

    @Test func aBadPredicateIsStillAUsageError() throws {
        let result = try StrataRunner.run(["count", "Book", "--where", "titel == 'x'", "--explain", "--store", library.path])
        #expect(result.status == 2)
        #expect(result.standardError.contains("did you mean 'title'?"), "\(result.standardError)")
    }
}
