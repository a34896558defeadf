import Foundation
import Strata
import Testing
import StrataTestSupport

/// `strata history` lists and prunes a store's persistent history; `--track-history` starts
/// one, and the commands that write record their saves in it as the author `strata`.
@Suite struct HistoryCommandTests {
    static let library = StrataRunner.repositoryRoot.appendingPathComponent("examples/Library/Library.xcdatamodeld").path

    private static func rows(_ text: String) throws -> [[String: Any]] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]])
    }

    @Test func scriptsRecordTheirSavesAndHistoryListsAndPrunesThem() throws {
        let folder = try TemporaryFolder()
        let store = folder.path("Library.sqlite")
        let base = ["--store", store, "--model", Self.library]
        var result = try StrataRunner.run(["eval"] + base + ["--create", "--track-history", #"ctx:create("Tag", {name = "classic"}) ctx:create("Tag", {name = "new"}) ctx:save()"#])
        #expect(result.status == 0, "\(result.standardError)")
        result = try StrataRunner.run(["eval"] + base + ["--history-author", "janitor", #"local t = ctx:first("Tag", "name == 'new'") t.name = "fresh" ctx:save() ctx:delete(ctx:first("Tag", "name == 'classic'")) ctx:save()"#])
        #expect(result.status == 0, "\(result.standardError)")

        result = try StrataRunner.run(["history", "--store", store, "--format", "json"])
        #expect(result.status == 0, "\(result.standardError)")
        let rows = try Self.rows(result.standardOutput)
        #expect(rows.map { "\($0["transaction"] ?? "") \($0["author"] ?? "") \($0["change"] ?? "") \($0["properties"] as? String ?? "-")" }.sorted()
            == ["1 strata insert -", "1 strata insert -", "2 janitor update name", "3 janitor delete -"])
        #expect(rows.allSatisfy { ($0["context"] as? String) == "root" && ($0["process"] as? String) == "strata" })

        result = try StrataRunner.run(["history", "list", "--store", store, "--author", "janitor", "--since", "2", "--format", "csv"])
        #expect(result.standardOutput.split(separator: "\r\n").count == 2, "a header and transaction 3")
        result = try StrataRunner.run(["history", "list", "--store", store, "--since", "2099-01-01", "--format", "ndjson"])
        #expect(result.status == 0 && result.standardOutput.isEmpty)

        result = try StrataRunner.run(["history", "prune", "--store", store, "--before", "3", "--dry-run"])
        #expect(result.standardOutput == "dry run: would delete 2 transactions\n")
        result = try StrataRunner.run(["history", "prune", "--store", store, "--before", "3"])
        #expect(result.status == 0 && result.standardOutput == "deleted 2 transactions\n", "\(result.standardError)")
        result = try StrataRunner.run(["history", "--store", store, "--format", "json"])
        #expect(try Self.rows(result.standardOutput).map { $0["transaction"] as? Int } == [3])

        result = try StrataRunner.run(["inspect", "--store", store, "--format", "json"])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        #expect((report["history"] as? [String: Any])?["transactions"] as? Int == 1)
    }

    @Test(.enabled(if: StrataRunner.fixturesAvailable, "shared/fixtures/coredata not found: fixture test skipped"))
    func coreDataHistoryIsListedAndInspectedAsHistory() throws {
        let store = StrataRunner.sharedFixtures.appendingPathComponent("corpus/stores/coredataplus/SampleModel2_V1.sqlite").path
        let before = try Data(contentsOf: URL(fileURLWithPath: store))
        var result = try StrataRunner.run(["history", "--store", store, "--format", "json", "--entity", "Author"])
        #expect(result.status == 0, "\(result.standardError)")
        let rows = try Self.rows(result.standardOutput)
        #expect(rows.map { $0["object"] as? String }.compactMap { $0 }.sorted() == ["Author/p1", "Author/p2"])
        #expect(rows.allSatisfy { $0["bundle"] as? String == "com.apple.dt.xctest.tool" && $0["process"] as? String == "xctest" && $0["change"] as? String == "insert" })
        result = try StrataRunner.run(["inspect", "--store", store])
        #expect(result.standardOutput.contains("history     1 transactions, 5468 changes"))
        #expect(!result.standardOutput.contains("TRANSACTIONSTRING  ") && !result.standardOutput.contains("CHANGE  "))
        #expect(try Data(contentsOf: URL(fileURLWithPath: store)) == before)
    }

    @Test func mistakesAreReportedWithoutACrash() throws {
        let folder = try TemporaryFolder()
        let store = folder.path("Library.sqlite")
        var result = try StrataRunner.run(["create", "--store", store, "--model", Self.library])
        #expect(result.status == 0, "\(result.standardError)")
        result = try StrataRunner.run(["history", "--store", store])
        #expect(result.status == 3 && result.standardError.contains("keeps no persistent history"))
        let tracked = folder.path("Tracked.sqlite")
        result = try StrataRunner.run(["create", "--store", tracked, "--model", Self.library, "--track-history"])
        #expect(result.standardOutput.hasSuffix(", with persistent history\n"))
        result = try StrataRunner.run(["history", "--store", tracked])
        #expect(result.status == 0 && result.standardOutput.hasSuffix("(0 rows)\n"))
        result = try StrataRunner.run(["history", "--store", store, "--since", "yesterday"])
        #expect(result.status == 2)
        result = try StrataRunner.run(["history", "prune", "--store", store])
        #expect(result.status == 2, "--before is required")
        result = try StrataRunner.run(["eval", "--store", store, "--model", Self.library, "--track-history", "--read-only", "return 1"])
        #expect(result.status == 2)
    }
}
