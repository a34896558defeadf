import Foundation

/// Case 8: `strata inspect` on a big store against the sqlite3 shell counting the rows of each
/// entity.
struct InspectCase {
    let rounds: Int
    let tools: Tools

    func inspect(_ store: String, rows: Int) throws -> CaseResult {
        var strata = Timings(), sqlite3 = Timings()
        for _ in 0..<rounds {
            let report = try runCommand(tools.strata, ["inspect", "--store", store, "--format", "json"])
            strata.record(report.seconds)
            guard report.output.contains("\(rows)") else {
                throw CommandFailure(description: "strata inspect does not report \(rows) rows: \(report.output.prefix(400))")
            }
            if let shell = tools.sqlite3 {
                sqlite3.record(try runCommand(shell, [store, "SELECT count(*) FROM ZPERSON"]).seconds)
            }
        }
        return CaseResult(number: "8", title: "`strata inspect` on \(rows) rows", strata: strata.median,
                          baselineName: "sqlite3 count(*) per entity", baseline: tools.sqlite3 == nil ? .nan : sqlite3.median,
                          goal: .atMost(3), note: tools.sqlite3 == nil ? "sqlite3 not found" : "")
    }
}
