import Foundation
import Strata
import Testing
import StrataTestSupport

/// Commands that only read never write: `run`, `eval` and `shell` migrate a store of another
/// version of the bundle only with `--migrate`, and open it read-only with `--read-only`.
/// (Issue 31, point 6; symbolic links and write-ahead logs in `StoreFileSafetyTests`.)
@Suite struct ReadsNeverWriteTests {
    /// The three ways to run Lua, each counting the books.
    static let counting: [[String]] = [["run", "{dir}/count.lua"], ["eval", "ctx:count('Book')"], ["shell"]]

    /// A folder with the two-version bundle of `MigrateCommandTests`, a store of its first
    /// version `Library` (the bundle's current version is `Library 2`), and `count.lua`.
    struct OlderStore {
        let folder: TemporaryFolder
        let bundle: String
        let store: String

        init() throws {
            folder = try TemporaryFolder()
            bundle = try MigrateCommandTests.bundle(in: folder)
            store = try MigrateCommandTests.store(in: folder, bundle: bundle)
            try "print(ctx:count('Book'))".write(toFile: folder.url.appendingPathComponent("count.lua").path, atomically: true, encoding: .utf8)
        }

        func run(_ command: [String], _ more: [String] = []) throws -> StrataRunner.Result {
            let arguments = command.map { $0.replacingOccurrences(of: "{dir}", with: folder.url.path) }
            return try StrataRunner.run(arguments + ["--store", store, "--model", bundle] + more, input: Data("print(ctx:count('Book'))\n".utf8))
        }
    }

    /// Regression: `eval 'ctx:count("Book")'` on a store of version `Library`, with the bundle
    /// whose current version is `Library 2`, migrated the store (rewriting it and leaving a
    /// `.bak`) and said so only at info level. Each script command now refuses, naming both
    /// versions, and the store is as it was, without a backup.
    @Test(arguments: counting)
    func aScriptRefusesAStoreOfAnotherVersionOfTheBundle(command: [String]) throws {
        let setup = try OlderStore()
        let before = MigrateCommandTests.snapshot(setup.store)
        let result = try setup.run(command)
        #expect(result.standardError == """
            strata: \(setup.store): the store was made with version Library of Library.xcdatamodeld, and the stack uses version Library 2 \
            (automatic migration is off); pass --migrate to migrate it first (the old store is kept beside it as a .bak), or use strata migrate

            """)
        #expect(result.status == 3)
        #expect(result.standardOutput.isEmpty)
        #expect(MigrateCommandTests.snapshot(setup.store) == before)
        #expect(try MigrateCommandTests.otherFiles(in: setup.folder) == ["count.lua"])
    }

    /// With --migrate, the store is migrated first, as strata migrate does, keeping a backup.
    @Test(arguments: counting)
    func aScriptMigratesTheStoreWhenAsked(command: [String]) throws {
        let setup = try OlderStore()
        let result = try setup.run(command, ["--migrate"])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput == "3\n")
        let others = try MigrateCommandTests.otherFiles(in: setup.folder)
        #expect(others.count == 2 && others.contains { $0.hasPrefix("Library.sqlite.") && $0.hasSuffix(".bak") }, "\(others)")
        let again = try setup.run(["eval", "ctx:count('Page')"])
        #expect(again.standardOutput == "2\n", "\(again.standardError)")
    }

    /// --read-only: the script reads, the store is opened with SQLite's read-only flag (a save
    /// is refused, saying so), and the store's files hold what they held.
    @Test(arguments: counting)
    func aReadOnlyScriptReadsAndChangesNothing(command: [String]) throws {
        let setup = try BadInputTests.Setup()
        try setup.write("count.lua", "print(ctx:count('Book'))")
        let before = BadInputTests.checksum(setup.store)
        let arguments = command.map(setup.expand) + ["--store", setup.store, "--read-only"]
        let result = try StrataRunner.run(arguments, input: Data("print(ctx:count('Book'))\n".utf8))
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput == "3\n")
        #expect(BadInputTests.checksum(setup.store) == before)
    }

    @Test func aReadOnlyScriptCannotSave() throws {
        let setup = try BadInputTests.Setup()
        try BadInputTests.refuses(
            ["eval", "ctx:create('Tag', {name = 'new'}); ctx:save()", "--store", "{store}", "--model", "{model}", "--read-only"], in: setup, status: 1,
            error: "strata: eval:1: {store}: the store cannot be written: it is open read-only\nstack traceback:\n\t[C]: in method 'save'\n\teval:1: in function <eval:1>\n\teval:1: in main chunk")
        try BadInputTests.refuses(
            ["eval", "stack:reset()", "--store", "{store}", "--read-only"], in: setup, status: 1,
            error: "strata: eval:1: {store}: the store was opened read-only; it cannot be reset\nstack traceback:\n\t[C]: in method 'reset'\n\teval:1: in main chunk")
    }

    /// What --read-only cannot go with.
    @Test(arguments: [
        (["eval", "1", "--read-only", "--create"], "--read-only opens an existing store; it cannot be used with --create"),
        (["run", "x.lua", "--read-only", "--migrate", "--model", "{model}"], "--read-only changes nothing; it cannot be used with --migrate"),
        (["shell", "--migrate"], "--migrate needs --model (or STRATA_MODEL): the model bundle whose version to migrate the store to"),
    ])
    func readOnlyAndMigrateRefuseWhatTheyCannotDo(command: [String], error: String) throws {
        let setup = try BadInputTests.Setup()
        let result = try StrataRunner.run(command.map(setup.expand) + ["--store", setup.store])
        #expect(result.status == 2)
        #expect(result.standardError.hasPrefix("Error: \(error)\n"), "\(result.standardError)")
        #expect(!FileManager.default.fileExists(atPath: setup.path + "/x.lua"))
    }
}
