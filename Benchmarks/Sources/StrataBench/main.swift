import ArgumentParser
import Foundation

/// Runs every benchmark case side by side with its baseline and prints one table.
struct StrataBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "strata-bench",
        abstract: "Strata's benchmarks, each against its baseline in the same run.",
        discussion: """
            Every case runs its contenders in turn for each round, on fresh copies of the same \
            stores, and reports medians. `scripts/bench` builds this in release, installs \
            sqlite-utils, and runs it.
            """)

    @Option(help: "People in cases 1 to 6.")
    var rows = 100_000

    @Option(help: "Records of the big NDJSON import (case 7), which cases 8 and 18 read and case 2 fetches again (as 2m).")
    var bigRows = 1_000_000

    @Option(help: "Rounds of each case; the table shows medians.")
    var rounds = 5

    @Option(help: "ObjectPredicate fetches in case 3.")
    var fetches = 1_000

    @Option(help: ArgumentHelp("Numbers of books of cases 12 and 13, comma-separated, smallest first; cases 15 and 16 read the biggest store.", valueName: "n,n,…"))
    var growthSizes = "10000,100000,1000000"

    @Option(help: ArgumentHelp("Numbers of authors of case 14, comma-separated, smallest first.", valueName: "n,n,…"))
    var scriptSizes = "1000,10000,30000"

    @Option(help: "The Library example's model, which the books of cases 12 to 14 follow.")
    var libraryModel = "examples/Library/Library.xcdatamodeld"

    @Flag(help: "A short run: 20,000 people, 100,000 big-import records, 3 rounds, growth up to 100,000 books.")
    var quick = false

    @Flag(help: "A run that only checks the cases still work (tiny sizes, one round); its times mean nothing.")
    var smoke = false

    @Option(help: "The folder the run makes its stores and files in, in a subfolder of its own that it removes at the end.")
    var work = ".build/bench-work"

    @Option(help: "The strata executable. Default: the one beside strata-bench.")
    var strata: String?

    @Option(help: "The sqlite-utils executable; without it case 5 compares with C only.")
    var sqliteUtils: String?

    @Option(help: "The sqlite3 shell, for cases 8, 15 and 16. Default: sqlite3 on PATH.")
    var sqlite3: String?

    @Option(help: "Run only these cases (numbers 1 to 19, comma-separated).")
    var cases: String?

    private static func sizes(_ text: String) -> [Int]? {
        let sizes = text.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard !sizes.isEmpty, sizes.allSatisfy({ $0 > 0 }), sizes == sizes.sorted() else { return nil }
        return sizes
    }

    mutating func validate() throws {
        if quick { (rows, bigRows, rounds, growthSizes, scriptSizes) = (20_000, 100_000, 3, "10000,100000", "1000,10000") }
        if smoke { (rows, bigRows, rounds, fetches, growthSizes, scriptSizes) = (500, 2_000, 1, 20, "200,1000", "100,300") }
        guard Self.sizes(growthSizes) != nil, Self.sizes(scriptSizes) != nil else {
            throw ValidationError("--growth-sizes and --script-sizes take positive numbers, comma-separated, smallest first")
        }
        if !selected.isDisjoint(with: [12, 13, 14, 15, 16]), !FileManager.default.fileExists(atPath: libraryModel) {
            throw ValidationError("--library-model: no model at \(libraryModel); run from the repository's root or name it")
        }
        guard rows >= 2, bigRows >= 1, rounds >= 1, fetches >= 1 else {
            throw ValidationError("--rows must be at least 2, and --big-rows, --rounds and --fetches at least 1")
        }
        if let sqliteUtils, !FileManager.default.isExecutableFile(atPath: sqliteUtils) {
            throw ValidationError("--sqlite-utils: \(sqliteUtils) is not an executable file")
        }
        guard FileManager.default.isExecutableFile(atPath: strataExecutable) else {
            throw ValidationError("\(strataExecutable) is not an executable file: build strata, or name it with --strata")
        }
    }

    private var strataExecutable: String {
        strata ?? URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("strata").path
    }

    private var selected: Set<Int> {
        Set((cases ?? (1...19).map(String.init).joined(separator: ",")).split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) })
    }

    func run() throws {
        let tools = Tools(strata: strataExecutable, sqliteUtils: sqliteUtils, sqlite3: sqlite3 ?? which("sqlite3"), lua: which("lua5.4") ?? which("lua"))
        // Only a subfolder of our own is removed at the end, never the folder the user named.
        let folder = URL(fileURLWithPath: work).appendingPathComponent("strata-bench-\(getpid())")
        let bench = try Workbench(folder: folder, rows: rows)
        defer { try? FileManager.default.removeItem(at: folder) }
        let context = ContextCases(bench: bench, rounds: rounds, fetches: fetches)
        let imports = ImportCases(bench: bench, rounds: rounds, tools: tools)
        var results = [CaseResult]()
        func measure(_ number: Int, _ body: () throws -> [CaseResult]) rethrows {
            guard selected.contains(number) else { return }
            let found = try body()
            results += found
            for result in found { FileHandle.standardError.write(Data("case \(result.number) done\n".utf8)) }
        }
        try measure(1) { try context.insert() }
        try measure(2) { try context.fetchAll() }
        try measure(3) { try context.predicateFetches() }
        var update: CaseResult?
        try measure(4) {
            let results = try context.updateAll()
            update = results.first
            return results
        }
        try measure(6) {
            let update = try update ?? context.updateAll()[0]
            return [try ScriptCase(bench: bench, rounds: rounds).bulkEdit(comparedTo: update)]
        }
        var upsert: CaseResult?
        try measure(5) { let found = try imports.upsert(); upsert = found.last; return found }
        var bigStore: String?
        try measure(7) {
            let (result, store) = try imports.bigImport(count: bigRows, upsert: upsert)
            bigStore = store
            // The same records as a whole-store JSON file: memory as bounded as the NDJSON's.
            return [result, try imports.wholeStoreImport(count: bigRows, ndjson: result)]
        }
        try measure(8) {
            let store = try bigStore ?? imports.bigImport(count: bigRows, upsert: nil).store
            let startUp = InspectCase(rounds: rounds, tools: tools)
            return [try startUp.inspect(store, rows: bigRows), try startUp.evaluate(store)]
        }
        let batches = BatchCases(bench: bench, rounds: rounds)
        try measure(9) { [try batches.insert()] }
        try measure(10) { [try batches.update()] }
        try measure(11) { [try batches.delete()] }
        let growth = GrowthCases(
            bench: bench, tools: tools, sizes: Self.sizes(growthSizes) ?? [], scriptSizes: Self.sizes(scriptSizes) ?? [], model: libraryModel)
        // Cases 12, 13, 15 and 16 share one run of imports, reads and deletes.
        var growthRun: [CaseResult]?
        func growthResults(_ number: String) throws -> [CaseResult] {
            let reads = selected.isDisjoint(with: [15, 16]) ? nil : ReadCases(tools: tools, rounds: rounds)
            let found = try growthRun ?? growth.importAndDelete(reads: reads)
            growthRun = found
            return found.filter { $0.number.hasPrefix(number) }
        }
        try measure(12) { try growthResults("12") }
        try measure(13) { try growthResults("13") }
        try measure(14) { try growth.scriptedLookUps() }
        try measure(15) { try growthResults("15") }
        try measure(16) { try growthResults("16") }
        try measure(17) { [try WatchCase(bench: bench, rounds: rounds).updates()] }
        // Case 2 again at the size of case 7's store, which it reads.
        try measure(2) {
            guard bigRows != rows else { return [] }
            let store = try bigStore ?? imports.bigImport(count: bigRows, upsert: nil).store
            bigStore = store
            return try context.fetchAll(from: store, count: bigRows)
        }
        try measure(18) {
            let store = try bigStore ?? imports.bigImport(count: bigRows, upsert: nil).store
            bigStore = store
            return [try DiffCase(rounds: rounds, tools: tools, bench: bench).diff(store, rows: bigRows)]
        }
        try measure(19) { try HistoryCase(bench: bench, context: context, rounds: rounds).saves() }
        results.sort { ($0.number.filter(\.isNumber).count, $0.number) < ($1.number.filter(\.isNumber).count, $1.number) }
        printTable(results)
    }
}

/// The first executable named `name` on PATH.
func which(_ name: String) -> String? {
    (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
        .map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
}

StrataBench.main()
