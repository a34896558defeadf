import Foundation
import Strata
import Testing
import StrataTestSupport

/// `strata import` on the example Library: the bundled payload, a changed copy with --prune,
/// a dry run, standard input, and payloads that stop the import without changing the store.
@Suite struct ImportCommandTests {
    static let model = StrataRunner.repositoryRoot.appendingPathComponent("examples/Library/Library.xcdatamodeld").path
    static let payload = StrataRunner.repositoryRoot.appendingPathComponent("examples/Library/library.json").path

    func rows(_ store: String, _ sql: String) throws -> [[DatabaseValue]] {
        let database = try Database(path: store, configuration: .readOnly)
        defer { database.close() }
        return try database.rows(sql)
    }

    @Test func importsThePayloadAndPrunesWhatAChangedCopyLeavesOut() throws {
        let folder = try TemporaryFolder()
        let store = folder.url.appendingPathComponent("Library.sqlite").path
        let first = try StrataRunner.run(["import", "Author", "--create", Self.payload, "--store", store, "--model", Self.model, "--report", "json"])
        #expect(first.status == 0, "\(first.standardError)")
        let report = try #require(JSONSerialization.jsonObject(with: Data(first.standardOutput.utf8)) as? [String: Any])
        let entities = try #require(report["entities"] as? [String: [String: Int]])
        #expect(entities["Book"]?["created"] == 3 && entities["Author"]?["created"] == 2 && entities["Page"]?["created"] == 2)
        #expect(try rows(store, "SELECT COUNT(*) FROM ZBOOK")[0][0] == .integer(3))

        // A copy without The Hobbit, and with a new rating for The Lord of the Rings.
        var text = try String(contentsOfFile: Self.payload, encoding: .utf8)
        let hobbit = try #require(text.range(of: #"(?s),\s*\{\s*"isbn": "9780261102217".*?"tags": \[\{ "name": "fantasy" \}\]\s*\}"#, options: .regularExpression))
        text.removeSubrange(hobbit)
        text = text.replacingOccurrences(of: "\"rating\": 4.9", with: "\"rating\": 5.0")
        let changed = folder.url.appendingPathComponent("changed.json")
        try text.write(to: changed, atomically: true, encoding: .utf8)
        let second = try StrataRunner.run(["import", "Author", changed.path, "--store", store, "--model", Self.model, "--prune"])
        #expect(second.status == 0, "\(second.standardError)")
        #expect(second.standardOutput.contains("Book: 1 updated, 1 unchanged, 1 deleted"), "\(second.standardOutput)")
        #expect(try rows(store, "SELECT ZTITLE FROM ZBOOK ORDER BY ZTITLE").map { $0[0].stringValue } == ["A Wizard of Earthsea", "The Lord of the Rings"])
        #expect(try rows(store, "SELECT ZRATING FROM ZBOOK WHERE ZISBN = '9780261103252'")[0][0] == .real(5.0))
        #expect(try rows(store, "SELECT COUNT(*) FROM ZPAGE")[0][0] == .integer(2), "the Lord of the Rings keeps its pages")
    }

    @Test func aDryRunAndAFailedImportLeaveTheStoreAsItWas() throws {
        let folder = try TemporaryFolder()
        let store = folder.url.appendingPathComponent("Library.sqlite").path
        #expect(try StrataRunner.run(["import", "Author", "--create", Self.payload, "--store", store, "--model", Self.model]).status == 0)
        let before = try rows(store, "SELECT Z_PK, Z_OPT, ZTITLE, ZRATING FROM ZBOOK ORDER BY Z_PK")

        let dry = try StrataRunner.run(["import", "Book", "-", "--store", store, "--model", Self.model, "--dry-run"],
            input: Data(#"{"isbn": "9780000000001", "title": "Dry"}"#.utf8))
        #expect(dry.status == 0, "\(dry.standardError)")
        #expect(dry.standardOutput == "Book: 1 created\ndry run: rolled back\n")

        let broken = folder.url.appendingPathComponent("broken.json")
        try #"[{"isbn": "9780000000002", "title": "Fine"}, {"isbn": "9780000000003", "rating": "high"}]"#.write(to: broken, atomically: true, encoding: .utf8)
        let typeError = try StrataRunner.run(["import", "Book", broken.path, "--store", store, "--model", Self.model, "--batch-size", "1"])
        #expect(typeError.status == 3)
        #expect(typeError.standardError == "strata: \(broken.path): record 2 (line 1, column 82): key 'rating' for rating (double): \"high\" — a string that is not a number\n")

        let truncated = folder.url.appendingPathComponent("truncated.ndjson")
        try "{\"isbn\": \"9780000000004\", \"title\": \"One\"}\n{\"isbn\": \"9780000000005\", \"title\": \n".write(to: truncated, atomically: true, encoding: .utf8)
        let syntax = try StrataRunner.run(["import", "Book", truncated.path, "--store", store, "--model", Self.model])
        #expect(syntax.status == 3)
        #expect(syntax.standardError.hasPrefix("strata: \(truncated.path): line 3, column 1:"), "\(syntax.standardError)")

        #expect(try rows(store, "SELECT Z_PK, Z_OPT, ZTITLE, ZRATING FROM ZBOOK ORDER BY Z_PK") == before)
    }

    @Test func ndjsonFromStandardInputInBatches() throws {
        let folder = try TemporaryFolder()
        let store = folder.url.appendingPathComponent("Library.sqlite").path
        let lines = (1...25).map { #"{"isbn": "97800000000\#(String(format: "%02d", $0))", "title": "Book \#($0)", "tags": [{"name": "t\#($0 % 3)"}]}"# }
        let result = try StrataRunner.run(["import", "Book", "--create", "--store", store, "--model", Self.model, "--batch-size", "4"],
            input: Data(lines.joined(separator: "\n").utf8))
        #expect(result.status == 0, "\(result.standardError)")
        // Each object has one state for the whole import, however many batches meet it.
        #expect(result.standardOutput == "Book: 25 created\nTag: 3 created\n")
        #expect(try rows(store, "SELECT COUNT(*) FROM ZTAG")[0][0] == .integer(3))
    }

    @Test func pagesListedBeforeTheirRequiredBookWaitForIt() throws {
        let folder = try TemporaryFolder()
        let store = folder.url.appendingPathComponent("Library.sqlite").path
        let payload = #"{"pages": [{"number": 1, "text": "a", "book_id": "9780000000001"}, {"number": 2, "book_id": "9780000000001"}], "books": [{"isbn": "9780000000001", "title": "B"}]}"#
        let result = try StrataRunner.run(["import", "Page", "--create", "--store", store, "--model", Self.model, "--batch-size", "1"], input: Data(payload.utf8))
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput == "Book: 1 created\nPage: 2 created\n")
        #expect(try rows(store, "SELECT COUNT(*) FROM ZPAGE WHERE ZBOOK = (SELECT Z_PK FROM ZBOOK)")[0][0] == .integer(2))
    }

    /// A plain entity's records go straight to rows, read a few chunks ahead of the writes: the
    /// report counts each state, a syntax error after thousands of records names its line and
    /// leaves the store as it was, and a dry run rolls the rows back.
    @Test func aPlainEntitysRecordsImportAsRowsAndRollBackWhole() throws {
        let folder = try TemporaryFolder()
        let store = folder.url.appendingPathComponent("People.sqlite").path
        let model = folder.url.appendingPathComponent("People.json")
        try #"{"entities": [{"name": "Person", "uniquenessConstraints": [["id"]], "attributes": [{"name": "id", "type": "integer64"}, {"name": "name", "type": "string", "optional": false}, {"name": "age", "type": "integer16"}]}]}"#
            .write(to: model, atomically: true, encoding: .utf8)
        let people = (1...2_500).map { #"{"id": \#($0), "name": "P\#($0)", "age": \#($0 % 90)}"# }
        let first = try StrataRunner.run(["import", "Person", "--create", "-", "--store", store, "--model", model.path], input: Data(people.joined(separator: "\n").utf8))
        #expect(first.status == 0, "\(first.standardError)")
        #expect(first.standardOutput == "Person: 2500 created\n")

        let changes = (1_201...3_600).map { #"{"id": \#($0), "name": "P\#($0)", "age": \#($0 % 90 + ($0 % 2 == 0 ? 1 : 0))}"# }
            + [#"{"id": 3601}"#]
        // Regression: an import that deleted invalid records exited with status 0, which a CI
        // job could not tell from a clean one. The other records are still saved, which status
        // 4 says (3 would mean that the store was left as it was).
        let second = try StrataRunner.run(["import", "Person", "-", "--store", store], input: Data(changes.joined(separator: "\n").utf8))
        #expect(second.status == 4)
        #expect(second.standardError == """
            invalid Person 3601: name is required
            strata: completed with problems: 1 record made invalid objects, which were deleted (--allow-invalid to accept this); the other records were saved

            """, "\(second.standardError)")
        #expect(second.standardOutput == "Person: 1100 created, 650 updated, 650 unchanged, 1 deleted\n", "\(second.standardOutput)")
        let accepted = try StrataRunner.run(["import", "Person", "-", "--store", store, "--allow-invalid"], input: Data(#"{"id": 3602}"#.utf8))
        #expect(accepted.status == 0, "\(accepted.standardError)")
        #expect(accepted.standardOutput == "Person: 1 deleted\n", "\(accepted.standardOutput)")
        #expect(accepted.standardError == "invalid Person 3602: name is required\n", "\(accepted.standardError)")
        #expect(try rows(store, "SELECT COUNT(*), MAX(Z_PK), SUM(Z_OPT) FROM ZPERSON")[0] == [.integer(3_600), .integer(3_600), .integer(3_600 + 650)])

        let before = BadInputTests.checksum(store)
        let broken = people.map { $0.replacingOccurrences(of: "\"P", with: "\"Q") } + [#"{"id": 1, "name": }"#]
        let syntax = try StrataRunner.run(["import", "Person", "-", "--store", store], input: Data(broken.joined(separator: "\n").utf8))
        #expect(syntax.status == 3)
        #expect(syntax.standardError == "strata: standard input: line 2501, column 19: unexpected '}', expected a value\n", "\(syntax.standardError)")
        let dry = try StrataRunner.run(["import", "Person", "-", "--store", store, "--dry-run"], input: Data(broken.dropLast().joined(separator: "\n").utf8))
        #expect(dry.status == 0, "\(dry.standardError)")
        #expect(dry.standardOutput == "Person: 2500 updated\ndry run: rolled back\n")
        #expect(BadInputTests.checksum(store) == before)
    }
    /// Regressions: a long import showed a bare count, and Ctrl-C rolled it back without a
    /// word. On a terminal it shows the share of the file, the rate and the time left; Ctrl-C
    /// stops it after a batch, says that it rolled back, exits with 130, and leaves the store
    /// as it was.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/dev/ptmx"), "no /dev/ptmx: the terminal test is skipped"))
    func aLongImportShowsHowFarItIsAndCtrlCRollsItBackSayingSo() throws {
        let folder = try TemporaryFolder()
        let store = folder.url.appendingPathComponent("Library.sqlite").path
        #expect(try StrataRunner.run(["create", "--store", store, "--model", Self.model]).status == 0)
        let records = folder.url.appendingPathComponent("tags.ndjson")
        try (1...400_000).map { #"{"name": "tag \#($0)"}"# }.joined(separator: "\n").write(to: records, atomically: true, encoding: .utf8)
        let before = BadInputTests.checksum(store)
        let terminal = try PseudoTerminal()
        let process = Process()
        process.executableURL = StrataRunner.binary
        process.arguments = ["import", "Tag", records.path, "--store", store, "--batch-size", "500"]
        process.standardOutput = terminal.secondary
        process.standardError = terminal.secondary
        try process.run()
        let shown = try terminal.read(until: " left\u{1B}[K")
        #expect(shown.contains("imported ") && shown.contains("% of ") && shown.contains(" records/s, about "), "\(shown.debugDescription)")
        kill(process.processIdentifier, SIGINT)
        let told = try terminal.read(until: "the store is as it was\r\n")
        process.waitUntilExit()
        #expect(process.terminationStatus == 130, "\(told.debugDescription)")
        #expect(told.contains("strata: interrupted: rolling back after this batch (Ctrl-C again to quit at once)"), "\(told.debugDescription)")
        #expect(told.contains("strata: interrupted: the import was rolled back, and the store is as it was"), "\(told.debugDescription)")
        #expect(BadInputTests.checksum(store) == before)
    }
}
