import Foundation
import Strata
import Testing
import StrataTestSupport

/// `strata migrate` on stores made here of a bundle written here: the example Library model as
/// version `Library`, and as `Library 2` (current) the same model with Book.published renamed
/// to releaseDate by its renaming identifier, Page.number widened to Integer 64, and Page.words
/// added with a default. The stores hold the example's 2 authors, 3 books, 2 pages and 2 tags.
@Suite struct MigrateCommandTests {
    static let example = StrataRunner.repositoryRoot.appendingPathComponent(ModelCommandTests.example)
        .appendingPathComponent("Library.xcdatamodel/contents")

    /// The changes `Library 2` makes, each a text replaced in the example model.
    static let changes = [
        (#"<attribute name="published" optional="YES""#, #"<attribute name="releaseDate" elementID="published" optional="YES""#),
        (#"<attribute name="number" attributeType="Integer 32""#, #"<attribute name="number" attributeType="Integer 64""#),
        (
            #"<attribute name="text" optional="YES" attributeType="String"/>"#,
            #"<attribute name="text" optional="YES" attributeType="String"/><attribute name="words" attributeType="Integer 32" defaultValueString="0" usesScalarValueType="YES"/>"#
        ),
    ]

    /// A `Library 2` that the data of a book without a publication date does not fit.
    static let strictChanges = [(#"<attribute name="published" optional="YES""#, #"<attribute name="published""#)]

    /// Writes `Library.xcdatamodeld` into `folder`: the example as `Library`, and `Library 2`
    /// (current) with `changes` applied.
    static func bundle(in folder: TemporaryFolder, changes: [(String, String)] = changes) throws -> String {
        let bundle = folder.url.appendingPathComponent("Library.xcdatamodeld")
        let original = try String(contentsOf: example, encoding: .utf8)
        var changed = original
        for (old, new) in changes {
            #expect(changed.contains(old), "the example model no longer has \(old)")
            changed = changed.replacingOccurrences(of: old, with: new)
        }
        for (version, contents) in [("Library", original), ("Library 2", changed)] {
            let folder = bundle.appendingPathComponent("\(version).xcdatamodel")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try contents.write(to: folder.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
        }
        try ModelBundle.writeCurrentVersionMarker(in: bundle, versionName: "Library 2")
        return bundle.path
    }

    /// A store of version `Library` of `bundle` holding the example's objects, and `books` (a
    /// JSON array of Book records) when given.
    static func store(in folder: TemporaryFolder, bundle: String, books: String? = nil) throws -> String {
        let store = folder.url.appendingPathComponent("Library.sqlite").path
        let model = ["--store", store, "--model", bundle, "--model-version", "Library"]
        let json = StrataRunner.repositoryRoot.appendingPathComponent("examples/Library/library.json").path
        let imported = try StrataRunner.run(["import", "Author", "--create", json] + model)
        #expect(imported.status == 0, "\(imported.standardError)")
        if let books {
            let more = try StrataRunner.run(["import", "Book"] + model, input: Data(books.utf8))
            #expect(more.status == 0, "\(more.standardError)")
        }
        return store
    }

    /// The store's file and its `-wal`, byte for byte. A missing `-wal` counts as an empty
    /// one: reading a store in WAL mode may leave an empty one beside it (see the README).
    static func snapshot(_ store: String) -> [Data] {
        [FileManager.default.contents(atPath: store) ?? Data("missing".utf8), FileManager.default.contents(atPath: store + "-wal") ?? Data()]
    }

    /// The files in `folder` other than the bundle and the store's own, sorted.
    static func otherFiles(in folder: TemporaryFolder) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.url.path)
            .filter { !["Library.xcdatamodeld", "Library.sqlite", "Library.sqlite-wal", "Library.sqlite-shm"].contains($0) }.sorted()
    }

    /// Regression: `inspect`, `fetch` or `export` with a bundle on a store of an older version
    /// failed ("made with another model"). They read it with the version that made it, and
    /// say so and what differs in the current one; a version named with --model-version that is not the store's is refused, naming
    /// the store's.
    @Test func readingAStoreOfAnOlderVersionUsesThatVersion() throws {
        let folder = try TemporaryFolder()
        let bundle = try Self.bundle(in: folder)
        let store = try Self.store(in: folder, bundle: bundle)
        let before = Self.snapshot(store)
        let count = try StrataRunner.run(["count", "Book", "--store", store, "--model", bundle])
        #expect(count.status == 0, "\(count.standardError)")
        #expect(Int(count.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0 > 0, "\(count.standardOutput)")
        #expect(count.standardError.contains("made with version 'Library' of Library.xcdatamodeld, not 'Library 2'"), "\(count.standardError)")
        // …and what the bundle's current version changes, entity by entity.
        #expect(count.standardError.contains("'Library 2' differs from the store in entities "), "\(count.standardError)")
        #expect(count.standardError.contains("Book (changed)") && count.standardError.contains("Page (changed)"), "\(count.standardError)")
        let named = try StrataRunner.run(["count", "Book", "--store", store, "--model", bundle, "--model-version", "Library 2"])
        #expect(named.status != 0)
        #expect(named.standardError.contains("the store is version 'Library' of the bundle"), "\(named.standardError)")
        #expect(Self.snapshot(store) == before)
    }

    @Test func migratesToTheCurrentVersionKeepingABackup() throws {
        let folder = try TemporaryFolder()
        let bundle = try Self.bundle(in: folder)
        let store = try Self.store(in: folder, bundle: bundle)
        let result = try StrataRunner.run(["migrate", "--store", store, "--model", bundle])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardError.isEmpty, "no progress off a terminal: \(result.standardError)")
        let output = result.standardOutput
        #expect(output.hasPrefix("\(store): from Library to Library 2 in 1 step\n"))
        for line in ["  - Book.published renamed to releaseDate", "  - Page.number: Integer 32 → Integer 64", "  - Page.words added, filled with its default 0", "    Book: 3"] {
            #expect(output.contains(line + "\n"), "\(line) in \(output)")
        }
        #expect(output.hasSuffix("\nobjects per entity: Author: 2, Book: 3, EBook: 0, Page: 2, Tag: 2\n"), "\(output)")

        let backups = try Self.otherFiles(in: folder)
        #expect(backups.count == 1, "\(backups)")
        let backup = try #require(backups.first)
        #expect(backup.wholeMatch(of: #/Library\.sqlite\.\d{8}T\d{6}Z\.bak/#) != nil, "\(backup)")
        #expect(output.contains("\nmigrated \(store) to Library 2; the old store is kept as \(folder.url.appendingPathComponent(backup).path)\n"), "\(output)")

        // The store now opens with Library 2, holding every object; the backup with Library.
        let fetched = try StrataRunner.run(["fetch", "Book", "--store", store, "--model", bundle, "--select", "title,releaseDate", "--sort", "title", "--format", "csv"])
        #expect(fetched.status == 0, "\(fetched.standardError)")
        #expect(fetched.standardOutput.contains("/Book/p2,The Hobbit,1937-09-21T00:00:00Z\r\n"), "\(fetched.standardOutput)")
        let words = try StrataRunner.run(["count", "Page", "--store", store, "--model", bundle, "--where", "words == 0 AND number >= 1"])
        #expect(words.standardOutput == "2\n", "\(words.standardError)")
        let old = try StrataRunner.run(["count", "Book", "--store", folder.url.appendingPathComponent(backup).path, "--model", bundle, "--model-version", "Library"])
        #expect(old.standardOutput == "3\n", "\(old.standardError)")

        let again = try StrataRunner.run(["migrate", "--store", store, "--model", bundle])
        #expect(again.status == 0)
        #expect(again.standardOutput == "\(store): the store matches version Library 2; nothing to migrate\n")
        #expect(try Self.otherFiles(in: folder) == backups, "nothing to migrate keeps no other backup")
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/dev/ptmx"), "no /dev/ptmx: the terminal test is skipped"))
    func onATerminalTheCopiedCountIsAStatusLineAndTheLastOneStays() throws {
        let folder = try TemporaryFolder()
        let bundle = try Self.bundle(in: folder)
        let store = try Self.store(in: folder, bundle: bundle)
        let terminal = try PseudoTerminal()
        let process = Process()
        process.executableURL = StrataRunner.binary
        process.arguments = ["migrate", "--store", store, "--model", bundle, "--no-backup"]
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("STRATA_") }
        (process.standardInput, process.standardOutput, process.standardError) = (terminal.secondary, terminal.secondary, terminal.secondary)
        try process.run()
        let shown = try terminal.read(until: "objects per entity: Author: 2, Book: 3, EBook: 0, Page: 2, Tag: 2\r\n")
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(shown.debugDescription)")
        // Counts replace each other on one line, and the last stays, ended, above the summary.
        #expect(shown.contains("\rLibrary → Library 2: copied 9 of 9 objects\u{1B}[K"), "\(shown.debugDescription)")
        #expect(shown.contains("\r\u{1B}[KLibrary → Library 2: copied 9 of 9 objects\r\n\r\nmigrated "), "\(shown.debugDescription)")
    }

    @Test func dryRunPrintsThePlanTheSQLAndTheCheckAndChangesNothing() throws {
        let folder = try TemporaryFolder()
        let bundle = try Self.bundle(in: folder)
        let store = try Self.store(in: folder, bundle: bundle)
        let before = Self.snapshot(store)
        let result = try StrataRunner.run(["migrate", "--dry-run", "--store", store], environment: ["STRATA_MODEL": bundle])
        #expect(result.status == 0, "\(result.standardError)")
        let output = result.standardOutput
        #expect(output.hasPrefix("\(store): from Library to Library 2 in 1 step\n"))
        #expect(output.contains("  - Book.published renamed to releaseDate\n"))
        #expect(output.contains("\n\nSQL (each step writes a new file, reading the store attached as src; ?1 and ?2 bound a batch's primary keys):\n-- Library → Library 2\nCREATE TABLE "), "\(output)")
        #expect(output.contains(" ZRELEASEDATE TIMESTAMP"))
        #expect(output.contains("SELECT Z_PK, "), "the row copies")
        #expect(output.hasSuffix("\n\nthe data fits; objects per entity after the migration: Author: 2, Book: 3, EBook: 0, Page: 2, Tag: 2\ndry run: \(store) was not changed\n"), "\(output)")
        #expect(Self.snapshot(store) == before, "the store's bytes are as they were")
        #expect(try Self.otherFiles(in: folder).isEmpty, "no backup, no throwaway copy left")
        let count = try StrataRunner.run(["count", "Book", "--store", store, "--model", bundle, "--model-version", "Library"])
        #expect(count.standardOutput == "3\n", "still a store of Library: \(count.standardError)")
    }

    @Test func dataThatDoesNotFitIsRefusedAndTheStoreStays() throws {
        let folder = try TemporaryFolder()
        let bundle = try Self.bundle(in: folder, changes: Self.strictChanges)
        let store = try Self.store(in: folder, bundle: bundle, books: #"[{"isbn": "9780000000001", "title": "Undated"}]"#)
        let before = Self.snapshot(store)
        let reason = "\(store): the store's data does not fit Library → Library 2:\n"
            + "  Book.published is required and has no default value, but 1 object has no value for it (p4)\n"
        for dryRun in [true, false] {
            let result = try StrataRunner.run(["migrate", "--store", store, "--model", bundle] + (dryRun ? ["--dry-run"] : []))
            #expect(result.status == 3)
            #expect(result.standardError == "strata: " + reason, "\(result.standardError)")
            #expect(result.standardOutput.contains("  - Book.published becomes required, with no default: no object may be nil\n"), "the plan is printed first")
            #expect(!result.standardOutput.contains("the data fits"))
            #expect(Self.snapshot(store) == before, "the store's bytes are as they were")
            #expect(try Self.otherFiles(in: folder).isEmpty, "no backup, no throwaway copy left")
        }
    }

    @Test func noBackupKeepsNone() throws {
        let folder = try TemporaryFolder()
        let bundle = try Self.bundle(in: folder)
        let store = try Self.store(in: folder, bundle: bundle)
        let result = try StrataRunner.run(["migrate", "--no-backup", "--store", store, "--model", bundle])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.contains("\nmigrated \(store) to Library 2; no backup was kept (--no-backup)\n"), "\(result.standardOutput)")
        #expect(try Self.otherFiles(in: folder).isEmpty)
        let count = try StrataRunner.run(["count", "Tag", "--store", store, "--model", bundle])
        #expect(count.standardOutput == "2\n", "\(count.standardError)")
    }

    @Test func toChoosesTheVersionOverTheModelVersion() throws {
        let folder = try TemporaryFolder()
        let bundle = try Self.bundle(in: folder)
        let store = try Self.store(in: folder, bundle: bundle)
        let before = Self.snapshot(store)
        let matches = "\(store): the store matches version Library; nothing to migrate\n"
        for (arguments, environment) in [
            (["--to", "Library"], [:]),
            (["--to", "Library", "--model-version", "Library 2"], [:]),
            ([], ["STRATA_MODEL_VERSION": "Library"]),
        ] as [([String], [String: String])] {
            let result = try StrataRunner.run(["migrate", "--store", store, "--model", bundle] + arguments, environment: environment)
            #expect(result.status == 0, "\(arguments) \(environment): \(result.standardError)")
            #expect(result.standardOutput == matches)
        }
        let unknown = try StrataRunner.run(["migrate", "--store", store, "--model", bundle, "--to", "Library 3"])
        #expect(unknown.status == 2)
        #expect(unknown.standardError == "strata: \(bundle): no model version named 'Library 3'; versions: Library, Library 2\n")
        #expect(unknown.standardOutput.isEmpty)
        let empty = try StrataRunner.run(["migrate", "--store", store, "--model", bundle, "--to", ""])
        #expect(empty.status == 2)
        #expect(empty.standardError.hasPrefix("Error: --to needs the name of a version\n"), "\(empty.standardError)")
        #expect(Self.snapshot(store) == before)
    }

    /// As Core Data's automatic migration: one step from the store's version to the current
    /// one; --through names the versions of a step-by-step route.
    @Test func oneStepUnlessThroughNamesTheRoute() throws {
        for (arguments, plan) in [
            ([], "from Library to Library 3 in 1 step\nLibrary → Library 3:\n"),
            (["--through", "Library 2"], "from Library to Library 3 in 2 steps, through Library 2\nLibrary → Library 2:\n"),
        ] {
            let folder = try TemporaryFolder()
            let bundle = try Self.bundle(in: folder)
            let third = URL(fileURLWithPath: bundle).appendingPathComponent("Library 3.xcdatamodel")
            try FileManager.default.copyItem(at: URL(fileURLWithPath: bundle).appendingPathComponent("Library 2.xcdatamodel"), to: third)
            let contents = third.appendingPathComponent("contents")
            let widened = try String(contentsOf: contents, encoding: .utf8)
                .replacingOccurrences(of: #"<attribute name="words" attributeType="Integer 32""#, with: #"<attribute name="words" attributeType="Integer 64""#)
            try widened.write(to: contents, atomically: true, encoding: .utf8)
            try ModelBundle.writeCurrentVersionMarker(in: URL(fileURLWithPath: bundle), versionName: "Library 3")
            let store = try Self.store(in: folder, bundle: bundle)
            let result = try StrataRunner.run(["migrate", "--store", store, "--model", bundle, "--no-backup"] + arguments)
            #expect(result.status == 0, "\(result.standardError)")
            #expect(result.standardOutput.hasPrefix("\(store): \(plan)"), "\(result.standardOutput)")
            let count = try StrataRunner.run(["count", "Book", "--store", store, "--model", bundle])
            #expect(count.standardOutput == "3\n")

            let unknown = try StrataRunner.run(["migrate", "--store", store, "--model", bundle, "--through", "Library 7"])
            #expect(unknown.status == 2)
            #expect(unknown.standardError == "strata: \(bundle): no model version named 'Library 7'; versions: Library, Library 2, Library 3\n")
        }
    }

    @Test func fromModelNamesTheModelThatMadeTheStore() throws {
        let folder = try TemporaryFolder()
        let bundle = try Self.bundle(in: folder)
        // A model the bundle does not hold: the example with a colour for tags.
        let old = folder.url.appendingPathComponent("Old.xcdatamodel")
        try FileManager.default.createDirectory(at: old, withIntermediateDirectories: true)
        let contents = try String(contentsOf: Self.example, encoding: .utf8).replacingOccurrences(
            of: #"<attribute name="name" attributeType="String"/>"#, with: #"<attribute name="color" optional="YES" attributeType="String"/><attribute name="name" attributeType="String"/>"#)
        try contents.write(to: old.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
        let store = folder.url.appendingPathComponent("Library.sqlite").path
        #expect(try StrataRunner.run(["create", "--store", store, "--model", old.path]).status == 0)

        let wrong = try StrataRunner.run(["migrate", "--store", store, "--model", bundle, "--from-model", Self.example.path])
        #expect(wrong.status == 3)
        #expect(wrong.standardError.hasPrefix("strata: \(store): cannot find the model the store was made with: the given model Library is not the store's"), "\(wrong.standardError)")
        let missing = try StrataRunner.run(["migrate", "--store", store, "--model", bundle, "--from-model", folder.url.appendingPathComponent("None.xcdatamodel").path])
        #expect(missing.status == 1)
        #expect(missing.standardError.contains("None.xcdatamodel: "), "\(missing.standardError)")

        let result = try StrataRunner.run(["migrate", "--store", store, "--model", bundle, "--from-model", old.path])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.hasPrefix("\(store): from Old to Library 2 in 1 step\nOld → Library 2:\n"), "\(result.standardOutput)")
        #expect(result.standardOutput.contains("  - Tag.color removed\n"))
        let matches = try StrataRunner.run(["migrate", "--store", store, "--model", bundle])
        #expect(matches.standardOutput == "\(store): the store matches version Library 2; nothing to migrate\n", "\(matches.standardError)")
    }

    @Test func storesThatCannotBeMigratedWhereTheyAreAreRefused() throws {
        let folder = try TemporaryFolder()
        let bundle = try Self.bundle(in: folder)
        let store = try Self.store(in: folder, bundle: bundle)
        let readOnlyFlag = try StrataRunner.run(["migrate", "--read-only", "--store", store, "--model", bundle])
        #expect(readOnlyFlag.status == 2)
        #expect(readOnlyFlag.standardError.hasPrefix("Error: migrate replaces the store; --read-only can only be used with --dry-run\n"))

        let missing = folder.url.appendingPathComponent("Missing.sqlite").path
        let notThere = try StrataRunner.run(["migrate", "--store", missing, "--model", bundle])
        #expect(notThere.status == 1)
        #expect(notThere.standardError == "strata: \(missing): no such store; pass --store PATH\n")
        #expect(!FileManager.default.fileExists(atPath: missing))

        let noStore = try StrataRunner.run(["migrate", "--model", bundle])
        #expect(noStore.status == 2)
        #expect(noStore.standardError == "strata: no store given: pass --store PATH or set STRATA_STORE\n")

        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: store)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: store) }
        let before = Self.snapshot(store)
        let readOnly = try StrataRunner.run(["migrate", "--store", store, "--model", bundle])
        #expect(readOnly.status == 1)
        #expect(readOnly.standardError == "strata: \(store): cannot migrate: the store is read-only\n", "\(readOnly.standardError)")
        #expect(Self.snapshot(store) == before)
        let dryRun = try StrataRunner.run(["migrate", "--dry-run", "--read-only", "--store", store, "--model", bundle])
        #expect(dryRun.status == 0, "a read-only store can still be checked: \(dryRun.standardError)")
        #expect(try Self.otherFiles(in: folder).isEmpty)
    }

    /// The SwiftGen fixture bundle (`Model` → `Model 2`, which adds SecondaryEntity.name,
    /// required without a default): a store of `Model` migrates, unless it holds a
    /// SecondaryEntity, which has no name.
    @Test(.enabled(if: StrataRunner.fixturesAvailable, "shared/fixtures/coredata not found: fixture test skipped"))
    func theSwiftGenFixtureBundleMigrates() throws {
        let folder = try TemporaryFolder()
        let bundle = StrataRunner.sharedFixtures.appendingPathComponent("models/SwiftGen.xcdatamodeld").path
        let model = try ModelLoader.load(URL(fileURLWithPath: bundle)).version(named: "Model").model
        func seeded(_ name: String, secondary: Bool) throws -> String {
            let path = folder.url.appendingPathComponent(name).path
            let store = try PersistentStore.create(at: path, model: model)
            defer { store.close() }
            try store.withConnection {
                try store.database.inTransaction {
                    try store.insert("MainEntity", values: ["string": .text("first"), "boolean": .integer(1), "int16": .integer(16)])
                    if secondary { try store.insert("SecondaryEntity", values: [:]) }
                }
            }
            return path
        }
        let plain = try seeded("Plain.sqlite", secondary: false)
        let result = try StrataRunner.run(["migrate", "--store", plain, "--model", bundle])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.hasPrefix("\(plain): from Model to Model 2 in 1 step\n"), "\(result.standardOutput)")
        #expect(result.standardOutput.contains("  - MainEntity.color removed\n"))
        let count = try StrataRunner.run(["count", "MainEntity", "--store", plain, "--model", bundle, "--where", "string == 'first' AND int16 == 16"])
        #expect(count.standardOutput == "1\n", "\(count.standardError)")

        let refused = try seeded("Refused.sqlite", secondary: true)
        let before = Self.snapshot(refused)
        let failure = try StrataRunner.run(["migrate", "--store", refused, "--model", bundle])
        #expect(failure.status == 3)
        #expect(failure.standardError.contains("SecondaryEntity.name is required and has no default value, but 1 object has no value for it (p1)"), "\(failure.standardError)")
        #expect(Self.snapshot(refused) == before)
    }

    @Test func aScriptFixesTheDataBeforeTheSwapAndItsFailureLeavesTheStore() throws {
        let folder = try TemporaryFolder()
        let bundle = try Self.bundle(in: folder)
        let store = try Self.store(in: folder, bundle: bundle)
        let fix = folder.url.appendingPathComponent("fix.lua")
        try "for page in ctx:each('Page') do page.words = #(page.text or '') end ctx:save() print('fixed')".write(to: fix, atomically: true, encoding: .utf8)
        let broken = folder.url.appendingPathComponent("broken.lua")
        try "ctx:first('Page').words = 7 ctx:save()\nerror('not this time')".write(to: broken, atomically: true, encoding: .utf8)

        let before = Self.snapshot(store)
        let failed = try StrataRunner.run(["migrate", "--store", store, "--model", bundle, "--script", broken.path])
        #expect(failed.status == 1)
        // Lua shortens a long chunk name from the left, as it does in every message.
        #expect(failed.standardError.contains("the custom step failed, so the store was left as it was: "), "\(failed.standardError)")
        #expect(failed.standardError.contains("broken.lua:2: not this time"), "\(failed.standardError)")
        #expect(failed.standardError.contains("stack traceback:"))
        #expect(Self.snapshot(store) == before)
        #expect(try Self.otherFiles(in: folder).filter { !$0.hasSuffix(".lua") } == [])

        let fixed = try StrataRunner.run(["migrate", "--store", store, "--model", bundle, "--script", fix.path])
        #expect(fixed.status == 0, "\(fixed.standardError)")
        #expect(fixed.standardOutput.contains("fixed"))
        let words = try StrataRunner.run(["query", "Page", "--store", store, "--model", bundle, "--select", "sum(words) as total", "--format", "json"])
        #expect(words.standardOutput.contains(#""total""#) && !words.standardOutput.contains(#""total" : 0"#) && !words.standardOutput.contains(#""total":0"#), "\(words.standardOutput)")
    }
}
