import Foundation

/// Cases 12 to 14 (and the stores of 15 and 16): costs that must stay flat as the store grows, measured at several sizes
/// against the time per object at the smallest, as a user meets them with the `strata` tool.
struct GrowthCases {
    let bench: Workbench
    let tools: Tools
    /// The numbers of books of cases 12 and 13, smallest first.
    let sizes: [Int]
    /// The numbers of authors of case 14, smallest first.
    let scriptSizes: [Int]
    /// The Library example's model, which the books follow.
    let model: String

    // MARK: - 12, 13. Linked import, cascading delete

    /// Imports N books linked to 200 shared authors and 2 of 50 tags, with 2 pages each, into an
    /// empty store (`strata import`), then deletes them all with their pages (`strata delete`);
    /// with `reads`, reads the biggest store with them before deleting.
    func importAndDelete(reads: ReadCases? = nil) throws -> [CaseResult] {
        var imports: [CommandRun] = [], deletes: [CommandRun] = [], readResults: [CaseResult] = []
        for count in sizes {
            let file = bench.path("books-\(count).ndjson"), store = bench.path("books-\(count).sqlite")
            try writeBooks(count, to: file)
            Workbench.remove(store)
            defer { Workbench.remove(store) }
            imports.append(try runCommand(tools.strata, ["import", "Book", file, "--store", store, "--model", model, "--create"], measuresMemory: true))
            try FileManager.default.removeItem(atPath: file)
            if let reads, count == sizes.last { readResults = try reads.measure(store: store, books: count) }
            let deleted = try runCommand(tools.strata, ["delete", "Book", "--all", "--yes", "--store", store], measuresMemory: true)
            guard deleted.output == "deleted \(count) Book, \(2 * count) Page (cascade)\n" else {
                throw CommandFailure(description: "strata delete of \(count) books printed \(deleted.output)")
            }
            deletes.append(deleted)
        }
        return results("12", "import N books linked to 200 authors and 2 of 50 tags, 2 pages each (`strata import`)", imports)
            + results("13", "delete N books and their 2N pages by cascade (`strata delete --all`)", deletes) + readResults
    }

    /// NDJSON books, written a chunk at a time.
    private func writeBooks(_ count: Int, to path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil) else { throw CommandFailure(description: "cannot create \(path)") }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        for first in stride(from: 0, to: count, by: 50_000) {
            var text = ""
            for index in first..<min(first + 50_000, count) {
                let author = index % 200
                text += """
                    {"isbn":"\(1_000_000_000 + index)","title":"Book \(index)","rating":\(Double(index % 100) / 20),\
                    "author":{"id":\(author + 1),"name":"Author \(author)"},"tags":[{"name":"tag\(index % 50)"},{"name":"tag\(index * 7 % 50)"}],\
                    "pages":[{"number":1,"text":"one"},{"number":2,"text":"two"}]}

                    """
            }
            try handle.write(contentsOf: Data(text.utf8))
        }
    }

    // MARK: - 14. Look up, then create, in Lua

    /// A Lua loop that looks each of N authors up by name and creates it when missing, in one transaction.
    func scriptedLookUps() throws -> [CaseResult] {
        let script = bench.path("look-up-then-create.lua")
        try """
            local count = tonumber(arg[1])
            ctx:transaction(function()
              for i = 1, count do
                local name = "Author " .. i
                if ctx:first("Author", "name == %@", name) == nil then ctx:create("Author", {name = name, remoteID = i}) end
              end
            end)
            print(ctx:count("Author"))
            """.write(toFile: script, atomically: false, encoding: .utf8)
        var runs: [CommandRun] = []
        for count in scriptSizes {
            let store = bench.path("authors-\(count).sqlite")
            Workbench.remove(store)
            defer { Workbench.remove(store) }
            let run = try runCommand(tools.strata, ["run", script, "--store", store, "--model", model, "--create", "--", String(count)], measuresMemory: true)
            guard run.output == "\(count)\n" else { throw CommandFailure(description: "the look-up loop of \(count) authors printed \(run.output)") }
            runs.append(run)
        }
        return results("14", "look up N authors by name and create each in one Lua transaction (`strata run`)", runs, sizes: scriptSizes, limitsMemory: false)
    }

    // MARK: - Results

    /// One result per size, judged against the time per object at the smallest size.
    private func results(_ number: String, _ title: String, _ runs: [CommandRun], sizes: [Int]? = nil, limitsMemory: Bool = true) -> [CaseResult] {
        let sizes = sizes ?? self.sizes
        guard let smallest = sizes.first, let first = runs.first else { return [] }
        let perObject = first.seconds / Double(smallest)
        return zip(sizes, runs).enumerated().map { position, pair in
            let (count, run) = pair
            var result = CaseResult(
                number: number + String(UnicodeScalar(UInt8(ascii: "a") + UInt8(position))),
                title: title.replacingOccurrences(of: "2N ", with: "\((2 * count).formatted()) ").replacingOccurrences(of: "N ", with: "\(count.formatted()) "),
                strata: run.seconds, baselineName: "its time per object at \(smallest.formatted()), × \(count.formatted())",
                baseline: perObject * Double(count), goal: position == 0 ? .none : .atMost(1.5), peakMemory: run.peakMemory)
            if limitsMemory { result.memoryLimit = 200 * 1_048_576 }
            return result
        }
    }
}
