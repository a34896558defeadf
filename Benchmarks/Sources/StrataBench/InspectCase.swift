import Foundation

/// Case 8: `strata inspect` on a big store against the sqlite3 shell counting the rows of each
/// entity; and case 8b, `strata eval '1'` on that store against the Lua interpreter's
/// `lua -e 'print(1)'` (`lua -e '1'` is a syntax error: a chunk is statements, not an
/// expression): both are mostly the time a process takes to start.
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
                          goal: .atMost(2), note: tools.sqlite3 == nil ? "sqlite3 not found" : "")
    }

    /// `strata eval '1'` on `store`, which opens it and starts the Lua shell, against `lua -e 'print(1)'`.
    func evaluate(_ store: String) throws -> CaseResult {
        var strata = Timings(), lua = Timings()
        for _ in 0..<rounds {
            let run = try runCommand(tools.strata, ["eval", "1", "--store", store])
            guard run.output.trimmingCharacters(in: .whitespacesAndNewlines) == "1" else {
                throw CommandFailure(description: "strata eval '1' printed \(run.output.prefix(200)), not 1")
            }
            strata.record(run.seconds)
            if let interpreter = tools.lua { lua.record(try runCommand(interpreter, ["-e", "print(1)"]).seconds) }
        }
        return CaseResult(number: "8b", title: "`strata eval '1'` on that store (start-up)", strata: strata.median,
                          baselineName: "lua -e 'print(1)'", baseline: tools.lua == nil ? .nan : lua.median,
                          goal: .atMost(2), note: tools.lua == nil ? "lua not found" : "")
    }
}
