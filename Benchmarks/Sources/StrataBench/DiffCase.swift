import Foundation
import Strata

/// Case 18: `strata diff` of the big store (case 7's) with a copy in which 1% of the people
/// changed (every hundredth one's age and score), against `sqldiff` on the same two files
/// when it is installed, else against reading both stores with `strata fetch --format ndjson`
/// (what a user would diff by hand).
struct DiffCase {
    let rounds: Int
    let tools: Tools
    let bench: Workbench

    func diff(_ store: String, rows: Int) throws -> CaseResult {
        let changed = bench.path("big-changed.sqlite")
        Workbench.remove(changed)
        try FileManager.default.copyItem(atPath: store, toPath: changed)
        let database = try Database(path: changed)
        try database.execute("UPDATE ZPERSON SET ZAGE = ZAGE + 1, ZSCORE = ZSCORE / 2 WHERE Z_PK % 100 = 0")
        database.close()
        defer { Workbench.remove(changed) }
        let expected = rows / 100
        let sqldiff = which("sqldiff")
        var strata = Timings(), baseline = Timings()
        for _ in 0..<rounds {
            let run = try runCommand(tools.strata, ["diff", store, changed, "--format", "ndjson"], keepsOutput: false, exitStatuses: [1])
            guard run.lineCount == expected else {
                throw CommandFailure(description: "strata diff found \(run.lineCount) differences, not \(expected)")
            }
            strata.record(run.seconds)
            if let sqldiff {
                baseline.record(try runCommand(sqldiff, [store, changed], keepsOutput: false).seconds)
            } else {
                let old = try runCommand(tools.strata, ["fetch", "Person", "--store", store, "--format", "ndjson"], keepsOutput: false)
                let new = try runCommand(tools.strata, ["fetch", "Person", "--store", changed, "--format", "ndjson"], keepsOutput: false)
                baseline.record(old.seconds + new.seconds)
            }
        }
        return CaseResult(
            number: "18", title: "`strata diff` of two \(rows)-row stores, 1% changed", strata: strata.median,
            baselineName: sqldiff == nil ? "two `strata fetch --format ndjson`" : "sqldiff", baseline: baseline.median,
            goal: .atMost(3), note: sqldiff == nil ? "sqldiff not found: compared with reading both stores" : "")
    }
}
