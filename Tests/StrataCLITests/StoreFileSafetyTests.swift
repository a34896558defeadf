import Foundation
import Strata
import Testing
import StrataTestSupport

/// A command never removes or replaces a file or link it did not make: a store reached through
/// a symbolic link is created, migrated, reset and backed up where it lives, the link kept; and
/// a `-wal` that is not the store's own is neither replayed into the store nor checkpointed by
/// a command that only reads. (Issue 31, point 6.)
@Suite struct StoreFileSafetyTests {
    /// Where the symbolic link at `path` points, or `nil` when it is no link.
    static func linkTarget(_ path: String) -> String? {
        try? FileManager.default.destinationOfSymbolicLink(atPath: path)
    }

    // MARK: - Symbolic links

    /// Regression: a failed create, setup or import on a link that leads nowhere, or on a loop
    /// of links, deleted the user's link. The link stays, pointing where it pointed.
    @Test(arguments: [
        ("nowhere/Library.sqlite", ["import", "Tag", "--create", "{dir}/bad.json", "--model", "{model}"],
         "strata: {dir}/link.sqlite: cannot create the store: no such folder {dir}/nowhere"),
        ("nowhere/Library.sqlite", ["setup", "--model", "{model}"], "strata: {dir}/link.sqlite: cannot create the store: no such folder {dir}/nowhere"),
        ("loop.sqlite", ["create", "--model", "{model}"],
         "strata: {dir}/link.sqlite: the symbolic links there form a loop, or a chain of more than 40"),
        ("loop.sqlite", ["import", "Tag", "--create", "{dir}/bad.json", "--model", "{model}"],
         "strata: {dir}/link.sqlite: the symbolic links there form a loop, or a chain of more than 40"),
        ("loop.sqlite", ["setup", "--model", "{model}"],
         "strata: {dir}/link.sqlite: the symbolic links there form a loop, or a chain of more than 40"),
    ])
    func aFailedCommandKeepsTheUsersLink(target: String, command: [String], error: String) throws {
        let setup = try BadInputTests.Setup(store: false)
        try setup.write("bad.json", #"{"name": 5}"#)
        let link = setup.path + "/link.sqlite"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        try FileManager.default.createSymbolicLink(atPath: setup.path + "/loop.sqlite", withDestinationPath: "link.sqlite")
        let result = try StrataRunner.run(command.map(setup.expand) + ["--store", link])
        #expect(result.standardError == setup.expand(error) + "\n")
        #expect(result.status == 1)
        #expect(Self.linkTarget(link) == target)
        #expect(try FileManager.default.contentsOfDirectory(atPath: setup.path).sorted() == ["bad.json", "link.sqlite", "loop.sqlite"])
    }

    /// An import through a link to a store not made yet makes the store where the link points;
    /// when the records fail, that store goes and the link stays.
    @Test func aFailedImportThroughALinkRemovesOnlyTheStoreItMade() throws {
        let setup = try BadInputTests.Setup(store: false)
        try setup.write("bad.json", #"{"name": 5, "books": 7}"#)
        try setup.write("good.json", #"{"name": "fantasy"}"#)
        try FileManager.default.createDirectory(atPath: setup.path + "/real", withIntermediateDirectories: true)
        let link = setup.path + "/link.sqlite"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "real/Library.sqlite")
        let failed = try StrataRunner.run(["import", "Tag", "--create", setup.path + "/bad.json", "--store", link, "--model", BadInputTests.model])
        #expect(failed.status == 3, "\(failed.standardError)")
        #expect(Self.linkTarget(link) == "real/Library.sqlite")
        #expect(try FileManager.default.contentsOfDirectory(atPath: setup.path + "/real").isEmpty)
        let imported = try StrataRunner.run(["import", "Tag", "--create", setup.path + "/good.json", "--store", link, "--model", BadInputTests.model])
        #expect(imported.status == 0, "\(imported.standardError)")
        #expect(Self.linkTarget(link) == "real/Library.sqlite")
        #expect(try FileManager.default.contentsOfDirectory(atPath: setup.path + "/real") == ["Library.sqlite"])
    }

    /// Regression: migrate through a link replaced the link with the migrated store, left the
    /// real store unmigrated, and kept a "backup" that was a second link. The real store is
    /// migrated, its backup made beside it, and the link kept.
    @Test func migrateThroughALinkMigratesTheStoreWhereItLives() throws {
        let folder = try TemporaryFolder()
        let bundle = try MigrateCommandTests.bundle(in: folder)
        let made = try MigrateCommandTests.store(in: folder, bundle: bundle)
        let real = folder.url.appendingPathComponent("real").path
        try FileManager.default.createDirectory(atPath: real, withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: made, toPath: real + "/Library.sqlite")
        let link = folder.url.appendingPathComponent("Link.sqlite").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "real/Library.sqlite")
        let result = try StrataRunner.run(["migrate", "--store", link, "--model", bundle])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(Self.linkTarget(link) == "real/Library.sqlite")
        #expect(try MigrateCommandTests.otherFiles(in: folder) == ["Link.sqlite", "real"])
        let backups = try FileManager.default.contentsOfDirectory(atPath: real).filter { $0 != "Library.sqlite" }
        #expect(backups.count == 1 && backups[0].hasPrefix("Library.sqlite.") && backups[0].hasSuffix(".bak"), "\(backups)")
        #expect(result.standardOutput.contains("the old store is kept as \(real)/\(backups.first ?? "")\n"), "\(result.standardOutput)")
        // The real file holds version Library 2; the backup, version Library.
        let migrated = try StrataRunner.run(["count", "Page", "--store", real + "/Library.sqlite", "--model", bundle])
        #expect(migrated.standardOutput == "2\n", "\(migrated.standardError)")
        let old = try StrataRunner.run(["count", "Page", "--store", real + "/" + (backups.first ?? ""), "--model", bundle, "--model-version", "Library"])
        #expect(old.standardOutput == "2\n", "\(old.standardError)")
    }

    /// Regression: reset through a link removed the link and made a new store in its place,
    /// leaving the real store as it was. The real store is reset; the link stays.
    @Test func resetThroughALinkResetsTheStoreWhereItLives() throws {
        let setup = try BadInputTests.Setup()
        try FileManager.default.createDirectory(atPath: setup.path + "/real", withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: setup.store, toPath: setup.path + "/real/Library.sqlite")
        try FileManager.default.createSymbolicLink(atPath: setup.store, withDestinationPath: "real/Library.sqlite")
        let result = try StrataRunner.run(["reset", "--store", setup.store, "--yes"])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.hasPrefix("removed \(setup.path)/real/Library.sqlite\n"), "\(result.standardOutput)")
        #expect(Self.linkTarget(setup.store) == "real/Library.sqlite")
        let count = try StrataRunner.run(["count", "Book", "--store", setup.path + "/real/Library.sqlite"])
        #expect(count.standardOutput == "0\n", "\(count.standardError)")
    }

    // MARK: - Write-ahead logs of other databases

    /// Writes a `-wal` of another store of the example model beside `store`: a copy of the
    /// `-wal` of a second store whose connection, still open, wrote `sql` and never checkpointed.
    static func placeForeignWAL(beside store: String, in setup: BadInputTests.Setup, sql: String) throws {
        let other = setup.path + "/Other.sqlite"
        _ = FileManager.default.createFile(atPath: other, contents: BadInputTests.exampleStore)
        let writer = try Database(path: other)
        try writer.execute("PRAGMA wal_autocheckpoint = 0")
        try writer.execute(sql)
        try FileManager.default.copyItem(atPath: other + "-wal", toPath: store + "-wal")
        writer.close()
        PersistentStore.removeFiles(ofStoreAt: other)
    }

    /// Regression: opening a store beside the `-wal` of another database copied that
    /// database's pages into the store when the command closed it, even for a script that only
    /// counted. A connection that wrote nothing leaves the `-wal` as it found it.
    @Test func aScriptThatOnlyReadsNeverCheckpointsAWALItFound() throws {
        let setup = try BadInputTests.Setup()
        try Self.placeForeignWAL(beside: setup.store, in: setup, sql: "DELETE FROM ZTAG")
        let wal = FileManager.default.contents(atPath: setup.store + "-wal")
        let result = try StrataRunner.run(["eval", "ctx:count('Book')", "--store", setup.store])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(FileManager.default.contents(atPath: setup.store) == BadInputTests.exampleStore, "the store's file changed")
        #expect(FileManager.default.contents(atPath: setup.store + "-wal") == wal, "the -wal changed")
    }

    /// A `-wal` that cannot be the store's own is refused by every command, and both files are
    /// left as they are: beside a store not in WAL mode, with pages of another size, or making
    /// the store another store (its UUID).
    @Test(arguments: ["not WAL", "page size", "UUID"])
    func aWALThatIsNotTheStoresIsRefused(kind: String) throws {
        let setup = try BadInputTests.Setup()
        let reason: String
        switch kind {
        case "not WAL":
            let database = try Database(path: setup.store)
            try database.execute("PRAGMA journal_mode = delete")
            database.close()
            try Self.placeForeignWAL(beside: setup.store, in: setup, sql: "DELETE FROM ZTAG")
            reason = "the store is not in WAL mode, so it has no write-ahead log"
        case "page size":
            let other = setup.path + "/Other.sqlite"
            let writer = try Database(path: other, configuration: { var c = Database.Configuration(); c.journalMode = nil; return c }())
            try writer.execute("PRAGMA page_size = 1024; PRAGMA journal_mode = wal; PRAGMA wal_autocheckpoint = 0; CREATE TABLE t (x); INSERT INTO t VALUES (1)")
            try FileManager.default.copyItem(atPath: other + "-wal", toPath: setup.store + "-wal")
            writer.close()
            PersistentStore.removeFiles(ofStoreAt: other)
            reason = "its pages are 1024 bytes, the store's 4096"
        default:
            try Self.placeForeignWAL(beside: setup.store, in: setup, sql: "UPDATE Z_METADATA SET Z_UUID = 'OTHER-STORE'")
            let uuid = try Database(path: setup.store, configuration: { var c = Database.Configuration.readOnly; c.isImmutable = true; return c }())
            let own = try uuid.scalar("SELECT Z_UUID FROM Z_METADATA")?.stringValue ?? ""
            uuid.close()
            reason = "it makes the store's UUID OTHER-STORE, where the file says \(own)"
        }
        let wal = FileManager.default.contents(atPath: setup.store + "-wal")
        let store = FileManager.default.contents(atPath: setup.store)
        for command in [["count", "Book"], ["inspect"], ["eval", "ctx:count('Book')"], ["import", "Tag", "--model", BadInputTests.model]] {
            let result = try StrataRunner.run(command + ["--store", setup.store], input: Data(#"{"name": "new"}"#.utf8))
            #expect(result.standardError == """
                strata: \(setup.store): the write-ahead log \(setup.store)-wal is not this store's (\(reason)); it was left as it is: move it away if it belongs to another database

                """, "\(command)")
            #expect(result.status == 3, "\(command)")
            #expect(FileManager.default.contents(atPath: setup.store) == store, "\(command): the store changed")
            #expect(FileManager.default.contents(atPath: setup.store + "-wal") == wal, "\(command): the -wal changed")
        }
    }
}
