import Foundation

/// Cases 15 and 16: `strata fetch` and `strata export` of every book of the biggest store of
/// case 12, as CSV, against the sqlite3 shell writing the same rows; and how soon each prints
/// its first row.
struct ReadCases {
    let tools: Tools
    let rounds: Int

    func measure(store: String, books: Int) throws -> [CaseResult] {
        guard let shell = tools.sqlite3 else { return [] }
        func answer(_ sql: String) throws -> [String] {
            try runCommand(shell, [store, sql]).output.split(separator: "\n").map(String.init)
        }
        // What strata fetch prints: each object's URI, then the properties selected.
        let uuid = try answer("SELECT Z_UUID FROM Z_METADATA").first ?? ""
        let fetch = """
            SELECT 'x-coredata://\(uuid)/' || k.Z_NAME || '/p' || b.Z_PK AS uri, b.ZISBN AS isbn, b.ZTITLE AS title, b.ZRATING AS rating
            FROM ZBOOK b JOIN Z_PRIMARYKEY k ON k.Z_ENT = b.Z_ENT
            """
        // What strata export prints: attributes, the author's identity, the tags' names in order.
        guard let join = try answer("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'Z!_%TAGS' ESCAPE '!'").first else {
            throw CommandFailure(description: "\(store) has no join table of books and tags")
        }
        let columns = try answer("SELECT name FROM pragma_table_info('\(join)')")
        guard let bookColumn = columns.first(where: { $0.hasSuffix("BOOKS") }), let tagColumn = columns.first(where: { $0.hasSuffix("TAGS") }) else {
            throw CommandFailure(description: "\(join) has no columns of books and tags: \(columns)")
        }
        let export = """
            SELECT b.ZISBN AS isbn, b.ZPUBLISHED AS published, b.ZRATING AS rating, b.ZTITLE AS title, a.ZREMOTEID AS author_id,
              (SELECT group_concat(name, ' ') FROM (SELECT t.ZNAME AS name FROM \(join) j JOIN ZTAG t ON t.Z_PK = j.\(tagColumn)
                 WHERE j.\(bookColumn) = b.Z_PK ORDER BY t.ZNAME, t.Z_PK)) AS tags_ids
            FROM ZBOOK b LEFT JOIN ZAUTHOR a ON a.Z_PK = b.ZAUTHOR
            WHERE +b.Z_ENT = (SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Book') ORDER BY b.ZISBN
            """
        let fetchArguments = ["fetch", "Book", "--store", store, "--select", "isbn,title,rating", "--format", "csv"]
        let exportArguments = ["export", "Book", "--exclude-subentities", "--store", store, "--format", "csv"]
        return try compare("15", "`strata fetch Book --select isbn,title,rating --format csv` of \(books.formatted()) books", fetchArguments, fetch, store: store, books)
            + compare("16", "`strata export Book --format csv` of \(books.formatted()) books (author identity, tag names)", exportArguments, export, store: store, books)
    }

    private func compare(_ number: String, _ title: String, _ arguments: [String], _ sql: String, store: String, _ rows: Int) throws -> [CaseResult] {
        guard let shell = tools.sqlite3 else { return [] }
        var strata = Timings(), sqlite3 = Timings(), firstRow = Timings(), peak = 0
        for _ in 0..<rounds {
            let run = try runCommand(tools.strata, arguments, measuresMemory: true, timesLine: 2, keepsOutput: false)
            let baseline = try runCommand(shell, ["-csv", "-header", store, sql], keepsOutput: false)
            // A header and one line per book from both, or one of them did less work.
            guard run.lineCount == rows + 1, baseline.lineCount == rows + 1 else {
                throw CommandFailure(description: "case \(number): strata printed \(run.lineCount) lines, sqlite3 \(baseline.lineCount), for \(rows) books")
            }
            strata.record(run.seconds)
            sqlite3.record(baseline.seconds)
            firstRow.record(run.firstLineSeconds ?? .nan)
            peak = max(peak, run.peakMemory ?? 0)
        }
        var whole = CaseResult(
            number: number + "a", title: title, strata: strata.median, baselineName: "sqlite3 -csv, the same rows", baseline: sqlite3.median,
            goal: .atMost(2), peakMemory: peak)
        whole.memoryLimit = 100 * 1_048_576
        let first = CaseResult(
            number: number + "b", title: "its first row", strata: firstRow.median, baselineName: "the goal, 100 ms", baseline: 0.1, goal: .atMost(1))
        return [whole, first]
    }
}
