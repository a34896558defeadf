import Foundation
import Strata
import Testing
import StrataTestSupport

/// `strata delete` and `strata prune --invalid` on a Library store made here: an author with
/// three books (A rated 0.5 with 3 pages, B rated 1.5 with 2, C rated 4.5 with 2), whose pages
/// go with them (Cascade).
@Suite final class DeleteCommandTests {
    /// Removed when the suite's instance goes away, after its test.
    private let temporary: TemporaryFolder
    var folder: URL { temporary.url }
    let model = StrataRunner.repositoryRoot.appendingPathComponent(ModelCommandTests.example)
    let store: String

    init() throws {
        temporary = try TemporaryFolder("strata-delete")
        store = temporary.path("Library.sqlite")
        let created = try StrataRunner.run(["create", "--store", store, "--model", model.path])
        #expect(created.status == 0, "\(created.standardError)")
        let opened = try PersistentStore.open(at: store, model: ModelLoader.load(model).currentVersion.model)
        defer { opened.close() }
        try SeededLibraryStore.seed(opened)
    }

    private func count(_ entity: String) throws -> Int {
        Int(try StrataRunner.run(["count", entity, "--store", store]).standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    /// The store's files as they are: the main file's bytes, and whether a -wal is beside it.
    private func snapshot() throws -> (Data, Bool) {
        (try Data(contentsOf: URL(fileURLWithPath: store)), FileManager.default.fileExists(atPath: store + "-wal"))
    }

    /// A copy of the Library model with `replace` applied to its contents.
    private func variant(_ name: String, _ replace: (String) -> String) throws -> String {
        let bundle = folder.appendingPathComponent("\(name).xcdatamodeld")
        let version = bundle.appendingPathComponent("Library.xcdatamodel")
        try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
        let contents = try String(contentsOf: model.appendingPathComponent("Library.xcdatamodel/contents"), encoding: .utf8)
        let changed = replace(contents)
        #expect(changed != contents)
        try changed.write(to: version.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
        return bundle.path
    }

    // MARK: - delete

    @Test func deleteWherePrintsWhatItDeletedByEntityAndLogsTheReason() throws {
        let result = try StrataRunner.run([
            "delete", "Book", "--where", "rating < 2", "--reason", "poorly rated", "--store", store, "--log-level", "info",
        ])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput == "deleted 2 Book, 5 Page (cascade)\n")
        #expect(result.standardError.contains(#"info [Book] Deleting Book { isbn: "9780000000001", rating: 0.5, title: "A" }: poorly rated"#))
        #expect(try count("Book") == 1)
        #expect(try count("Page") == 2)
        #expect(try count("Author") == 1)
    }

    @Test func deleteAllWithTheModelGivenCascadesThroughEveryLevel() throws {
        let result = try StrataRunner.run(["delete", "Author", "--all", "--yes", "--store", store, "--model", model.path])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput == "deleted 1 Author, 3 Book (cascade), 7 Page (cascade)\n")
        for entity in ["Author", "Book", "Page"] { #expect(try count(entity) == 0) }
        let none = try StrataRunner.run(["delete", "Author", "--all", "--yes", "--store", store])
        #expect(none.status == 0 && none.standardOutput == "deleted 0 Author\n")
    }

    /// Regression: off a terminal, --all deleted without --yes, while reset asked for it.
    @Test func deletingEverythingOffATerminalNeedsYes() throws {
        let before = try snapshot()
        let result = try StrataRunner.run(["delete", "Author", "--all", "--store", store], input: Data())
        #expect(result.status == 2)
        #expect(result.standardError == "strata: delete --all removes every Author object; pass --yes to confirm\n")
        #expect(try snapshot() == before)
        // Objects chosen by a predicate are deleted off a terminal without --yes, as before.
        let chosen = try StrataRunner.run(["delete", "Book", "--where", "title == 'A'", "--store", store], input: Data())
        #expect(chosen.status == 0, "\(chosen.standardError)")
        #expect(chosen.standardOutput == "deleted 1 Book, 3 Page (cascade)\n")
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/dev/ptmx"), "no /dev/ptmx: the terminal test is skipped"))
    func onATerminalDeleteAsksFirstWithoutHoldingTheStore() throws {
        for (answer, books, pages) in [("n", 3, 7), ("y", 1, 2)] {
            let terminal = try PseudoTerminal()
            let process = Process()
            process.executableURL = StrataRunner.binary
            process.arguments = ["delete", "Book", "--where", "rating < 2", "--store", store]
            process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("STRATA_") }
            (process.standardInput, process.standardOutput, process.standardError) = (terminal.secondary, terminal.secondary, terminal.secondary)
            try process.run()
            let asked = try terminal.read(until: "[y/N] ")
            #expect(asked.hasSuffix("Delete 2 Book objects (and 5 Page by cascade)? [y/N] "), "\(asked.debugDescription)")
            // While it asks, another connection writes: the question holds no lock on the store.
            let other = try Database(path: store)
            try other.execute("BEGIN IMMEDIATE")
            try other.execute("ROLLBACK")
            other.close()
            try terminal.send(answer + "\n")
            let told = try terminal.read(until: answer == "y" ? "(cascade)\r\n" : "nothing deleted\r\n")
            process.waitUntilExit()
            // Regression: a long delete showed nothing; the terminal says what it does, and
            // the line is cleared for the result.
            if answer == "y" { #expect(told.contains("\rdeleting Book objects...\u{1B}[K"), "\(told.debugDescription)") }
            #expect(process.terminationStatus == (answer == "y" ? 0 : 1), "\(told.debugDescription)")
            #expect(try count("Book") == books)
            #expect(try count("Page") == pages)
        }
    }

    @Test(arguments: [
        (["Book"], "say which objects to delete: --where PREDICATE, --template NAME, or --all"),
        (["Book", "--all", "--where", "rating < 1"], "--all deletes every object of ENTITY: leave out --where and --template"),
        (["--all"], "--all needs the ENTITY"),
    ])
    func deleteSaysWhatItNeeds(arguments: [String], message: String) throws {
        let before = try snapshot()
        let result = try StrataRunner.run(["delete"] + arguments + ["--store", store])
        #expect(result.status == 2)
        #expect(result.standardError.contains(message), "\(result.standardError)")
        #expect(try snapshot() == before)
    }

    @Test(arguments: [
        ("rating <", "Error: The value 'rating <' is invalid for '--where <predicate>': "),
        ("ratng < 2", "strata: entity 'Book' has no property 'ratng'"),
    ])
    func aBadPredicateIsAUsageErrorAndChangesNothing(predicate: String, message: String) throws {
        let before = try snapshot()
        let result = try StrataRunner.run(["delete", "Book", "--where", predicate, "--store", store])
        #expect(result.status == 2)
        #expect(result.standardError.hasPrefix(message), "\(result.standardError)")
        #expect(result.standardOutput.isEmpty)
        #expect(try snapshot() == before)
    }

    @Test func aBlockingDenyRuleIsADataErrorAndDeletesNothing() throws {
        let deny = try variant("Deny") {
            $0.replacingOccurrences(of: #"name="books" optional="YES" toMany="YES" deletionRule="Cascade""#, with: #"name="books" optional="YES" toMany="YES" deletionRule="Deny""#)
        }
        let before = try snapshot()
        let result = try StrataRunner.run(["delete", "Author", "--all", "--yes", "--store", store, "--model", deny])
        #expect(result.status == 3)
        #expect(result.standardError == "strata: cannot delete <Author p1>: its relationship 'books' (delete rule Deny) still holds 3 objects; nothing was deleted\n")
        #expect(result.standardOutput.isEmpty)
        #expect(try snapshot() == before)
        #expect(try count("Book") == 3)
    }

    @Test func aMissingStoreIsAnError() throws {
        let missing = folder.appendingPathComponent("Missing.sqlite").path
        let result = try StrataRunner.run(["delete", "Book", "--all", "--store", missing, "--model", model.path])
        #expect(result.status == 1)
        #expect(result.standardError == "strata: \(missing): no such store; pass --store PATH\n")
        #expect(!FileManager.default.fileExists(atPath: missing))
    }

    // MARK: - prune

    /// Regression: pruning a Page failed because its Book, which the deletion updates, held a
    /// bad ISBN the prune did not touch.
    @Test func pruneOfOneEntityIsNotStoppedByAnotherEntitysOldFaults() throws {
        let database = try Database(path: store)
        try database.execute("UPDATE ZPAGE SET ZNUMBER = 0 WHERE Z_PK = 1")
        try database.execute("UPDATE ZBOOK SET ZISBN = 'spoilt' WHERE Z_PK = (SELECT ZBOOK FROM ZPAGE WHERE Z_PK = 1)")
        database.close()
        let pruned = try StrataRunner.run(["prune", "--invalid", "Page", "--store", store])
        #expect(pruned.status == 0, "\(pruned.standardError)")
        #expect(pruned.standardOutput == "Page p1: number value 0 is below the minimum 1\ndeleted 1 invalid object: 1 Page\n")
        #expect(try count("Page") == 6)
        #expect(try count("Book") == 3)
    }

    @Test func pruneInvalidListsThenDeletesAndDryRunDeletesNothing() throws {
        let database = try Database(path: store)
        try database.execute("UPDATE ZBOOK SET ZTITLE = NULL WHERE ZISBN = '9780000000001'")
        database.close()
        let before = try snapshot()
        let dryRun = try StrataRunner.run(["prune", "--invalid", "--dry-run", "--store", store])
        #expect(dryRun.status == 0, "\(dryRun.standardError)")
        #expect(dryRun.standardOutput == "Book p1: title is required\ndry run: would delete 1 invalid object: 1 Book, 3 Page (cascade)\n")
        #expect(try snapshot() == before)

        let invalidIf = try variant("InvalidIf") {
            $0.replacingOccurrences(of: #"<entry key="strata.verbose" value="YES"/>"#, with: #"<entry key="strata.verbose" value="YES"/><entry key="strata.invalidIf" value="rating &gt; 4"/>"#)
        }
        let pruned = try StrataRunner.run(["prune", "--invalid", "Book", "--store", store, "--model", invalidIf])
        #expect(pruned.status == 0, "\(pruned.standardError)")
        #expect(pruned.standardOutput == """
            Book p1: title is required
            Book p3: matches strata.invalidIf rating > 4
            deleted 2 invalid objects: 2 Book, 5 Page (cascade)

            """)
        #expect(try count("Book") == 1)
        #expect(try count("Page") == 2)
        let again = try StrataRunner.run(["prune", "--invalid", "--store", store])
        #expect(again.status == 0 && again.standardOutput == "no invalid objects\n")
    }

    @Test func pruneErrorsChangeNothing() throws {
        let before = try snapshot()
        let noFlag = try StrataRunner.run(["prune", "Book", "--store", store])
        #expect(noFlag.status == 2 && noFlag.standardError.contains("say what to prune: --invalid"))
        let unknown = try StrataRunner.run(["prune", "--invalid", "Bok", "--store", store])
        // The store reports it, naming itself and the entity that was meant.
        #expect(unknown.status == 2 && unknown.standardError.hasPrefix("strata: \(store): no entity 'Bok'; did you mean 'Book'?; entities: "), "\(unknown.standardError)")
        let bad = try variant("BadInvalidIf") {
            $0.replacingOccurrences(of: #"<entry key="strata.verbose" value="YES"/>"#, with: #"<entry key="strata.invalidIf" value="rating &lt;&lt;"/>"#)
        }
        let broken = try StrataRunner.run(["prune", "--invalid", "--store", store, "--model", bad])
        #expect(broken.status == 3)
        #expect(broken.standardError.hasPrefix("strata: entity Book, userInfo strata.invalidIf: "), "\(broken.standardError)")
        #expect(try snapshot() == before)
    }

    /// An import meets the model's bad `strata.invalidIf` before its first record: a data error
    /// (exit status 3) naming the file, the entity and the rule, with the store as it was.
    @Test func anImportStopsAtABadInvalidIfAndChangesNothing() throws {
        let before = try snapshot()
        let bad = try variant("BadInvalidIf") {
            $0.replacingOccurrences(of: #"<entry key="strata.verbose" value="YES"/>"#, with: #"<entry key="strata.invalidIf" value="rating &lt;&lt;"/>"#)
        }
        let records = temporary.path("books.json")
        try #"[{"isbn": "9780000000009", "title": "Z"}]"#.write(toFile: records, atomically: true, encoding: .utf8)
        let broken = try StrataRunner.run(["import", "Book", records, "--store", store, "--model", bad])
        #expect(broken.status == 3, "\(broken.standardError)")
        #expect(broken.standardError.hasPrefix("strata: \(records): entity Book, userInfo strata.invalidIf: "), "\(broken.standardError)")
        #expect(try snapshot() == before)
    }
}
