import Foundation
import Strata
import Testing
import StrataTestSupport

/// `strata migrate --script` on a store of the example Library (3 books) migrated to a version
/// that adds `Book.shelf`, required and without a default value, which Core Data's inferred
/// mapping refuses while books exist: the script runs on the migrated copy before the checks
/// of missing values, so it can fill the attribute; what it leaves missing is refused.
@Suite struct MigrateScriptCommandTests {
    static let newRequiredAttribute = [
        (#"<attribute name="title" attributeType="String"/>"#, #"<attribute name="title" attributeType="String"/><attribute name="shelf" attributeType="String"/>"#)
    ]

    /// A store of `Library` and the bundle whose current version adds `Book.shelf`.
    static func library(in folder: TemporaryFolder) throws -> (store: String, bundle: String) {
        let bundle = try MigrateCommandTests.bundle(in: folder, changes: newRequiredAttribute)
        return (try MigrateCommandTests.store(in: folder, bundle: bundle), bundle)
    }

    /// Writes a script into `folder` and returns its path.
    static func script(_ name: String, _ text: String, in folder: TemporaryFolder) throws -> String {
        let url = folder.url.appendingPathComponent(name)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    /// Files of the folder besides the bundle, the store and the scripts: a backup, a copy left over.
    static func leftOvers(in folder: TemporaryFolder) throws -> [String] {
        try MigrateCommandTests.otherFiles(in: folder).filter { !$0.hasSuffix(".lua") }
    }

    @Test func withoutAScriptTheNewRequiredAttributeIsRefusedNamingTheObjects() throws {
        let folder = try TemporaryFolder()
        let (store, bundle) = try Self.library(in: folder)
        let before = MigrateCommandTests.snapshot(store)
        for dryRun in [[], ["--dry-run"]] {
            let refused = try StrataRunner.run(["migrate", "--store", store, "--model", bundle] + dryRun)
            #expect(refused.status == 3, "\(refused.standardError)")
            #expect(
                refused.standardError.contains("Book.shelf is required and has no default value, but 3 objects have no value for it (p1, p2, p3)"),
                "\(refused.standardError)")
            #expect(MigrateCommandTests.snapshot(store) == before)
            #expect(try Self.leftOvers(in: folder) == [])
        }
    }

    @Test func aScriptThatFillsTheAttributeMigratesTheStoreWithItsValues() throws {
        let folder = try TemporaryFolder()
        let (store, bundle) = try Self.library(in: folder)
        // The script sees the new model: the attribute is there, nil in every book.
        let fill = try Self.script("fill.lua", """
            print("missing: " .. ctx:count("Book", "shelf == nil"))
            for book in ctx:each("Book", "shelf == nil") do book.shelf = string.sub(book.title, 1, 1) end
            ctx:save()
            """, in: folder)
        let before = MigrateCommandTests.snapshot(store)
        let checked = try StrataRunner.run(["migrate", "--store", store, "--model", bundle, "--script", fill, "--dry-run"])
        #expect(checked.status == 0, "\(checked.standardError)")
        #expect(checked.standardOutput.contains("missing: 3\n") && checked.standardOutput.contains("the data fits"), "\(checked.standardOutput)")
        #expect(MigrateCommandTests.snapshot(store) == before)
        #expect(try Self.leftOvers(in: folder) == [])

        let migrated = try StrataRunner.run(["migrate", "--store", store, "--model", bundle, "--script", fill])
        #expect(migrated.status == 0, "\(migrated.standardError)")
        #expect(migrated.standardOutput.contains("migrated \(store) to Library 2"), "\(migrated.standardOutput)")
        let shelves = try StrataRunner.run(["query", "Book", "--store", store, "--model", bundle, "--select", "shelf, count(*) as books", "--group-by", "shelf", "--format", "csv"])
        #expect(shelves.status == 0, "\(shelves.standardError)")
        // CSV lines end in CRLF, as RFC 4180 has them.
        #expect(shelves.standardOutput == "shelf,books\r\nA,1\r\nT,2\r\n", "\(shelves.standardOutput)")
        #expect(try Self.leftOvers(in: folder).count == 1, "the backup of the old store")
    }

    @Test func aScriptThatFillsSomeOrFailsLeavesTheStoreAsItWas() throws {
        let folder = try TemporaryFolder()
        let (store, bundle) = try Self.library(in: folder)
        let some = try Self.script("some.lua", """
            for book in ctx:each("Book", "title BEGINSWITH 'The'") do book.shelf = "T" end
            ctx:save()
            """, in: folder)
        let raising = try Self.script("raising.lua", """
            for book in ctx:each("Book") do book.shelf = "S" end
            ctx:save()
            error("shelves are not ready")
            """, in: folder)
        let before = MigrateCommandTests.snapshot(store)

        let partial = try StrataRunner.run(["migrate", "--store", store, "--model", bundle, "--script", some])
        #expect(partial.status == 3, "\(partial.standardError)")
        #expect(partial.standardError.contains("Book.shelf is required and has no default value, but 1 object has no value for it (p"), "\(partial.standardError)")
        #expect(MigrateCommandTests.snapshot(store) == before)
        #expect(try Self.leftOvers(in: folder) == [])

        let failed = try StrataRunner.run(["migrate", "--store", store, "--model", bundle, "--script", raising])
        #expect(failed.status == 1, "\(failed.standardError)")
        #expect(failed.standardError.contains("raising.lua:3: shelves are not ready"), "\(failed.standardError)")
        #expect(MigrateCommandTests.snapshot(store) == before)
        #expect(try Self.leftOvers(in: folder) == [])

        let count = try StrataRunner.run(["count", "Book", "--store", store, "--model", bundle, "--model-version", "Library"])
        #expect(count.standardOutput == "3\n", "\(count.standardError)")
    }
}
