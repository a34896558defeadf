import Foundation
import Testing
import StrataTestSupport

/// A store path names a file, exactly as written: SQLite's own spellings (`:memory:`, `file:`
/// URIs with parameters) and characters that mean something in a URI are file names like any
/// other, so a store is never opened in memory, shared, or read-only because of its name.
@Suite struct StorePathTests {
    @Test(arguments: [
        ":memory:", "file::memory:", "file:Library.sqlite?mode=memory&cache=shared", "file:Library.sqlite?mode=ro",
        "a?b#c%20d.sqlite", "spaced name.sqlite", "Bücher.sqlite",
    ])
    func aRelativeStorePathNamesTheFileItSays(path: String) throws {
        let folder = try TemporaryFolder()
        let imported = try StrataRunner.run(
            ["import", "Tag", "--create", "--store", path, "--model", BadInputTests.model], input: Data(#"[{"name": "a"}, {"name": "b"}]"#.utf8),
            in: folder.url)
        #expect(imported.status == 0, "\(imported.standardError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == [path])
        let count = try StrataRunner.run(["count", "Tag", "--store", path], in: folder.url)
        #expect(count.standardOutput == "2\n", "\(count.standardError)")
        let changed = try StrataRunner.run(
            ["eval", "ctx:create('Tag', {name = 'c'}) ctx:save()", "--store", path, "--model", BadInputTests.model], in: folder.url)
        #expect(changed.status == 0, "\(changed.standardError)")
        #expect(try StrataRunner.run(["count", "Tag", "--store", path], in: folder.url).standardOutput == "3\n")
    }

    /// Regression: a mistyped --store given to run, eval or shell made a new, empty store
    /// without a word. A missing store is an error that names it, and nothing is created;
    /// --create makes it.
    @Test func scriptsCreateAMissingStoreOnlyWhenAskedTo() throws {
        let folder = try TemporaryFolder()
        let script = folder.url.appendingPathComponent("count.lua").path
        try "print(ctx:count('Tag'))".write(toFile: script, atomically: true, encoding: .utf8)
        let path = folder.url.appendingPathComponent("Libary.sqlite").path
        for command in [["run", script], ["eval", "ctx:count('Tag')"], ["shell"]] {
            let refused = try StrataRunner.run(command + ["--store", path, "--model", BadInputTests.model], input: Data())
            #expect(refused.status == 1, "\(command)")
            #expect(refused.standardError == "strata: \(path): no such store; pass --create to make one (or strata setup)\n", "\(command)")
            #expect(!FileManager.default.fileExists(atPath: path), "\(command)")
        }
        // Without --store, the stack's own store in the current folder.
        let unnamed = try StrataRunner.run(["eval", "1", "--model", BadInputTests.model], in: folder.url)
        #expect(unnamed.standardError == "strata: Library.sqlite: no such store; pass --create to make one (or strata setup)\n")
        let created = try StrataRunner.run(["run", script, "--store", path, "--model", BadInputTests.model, "--create"])
        #expect(created.status == 0, "\(created.standardError)")
        #expect(created.standardOutput == "0\n")
        #expect(FileManager.default.fileExists(atPath: path))
    }

    /// An absolute path that starts with `//` is still a path (a URI would read `//` as the
    /// start of a host name).
    @Test func anAbsolutePathStartingWithTwoSlashes() throws {
        let folder = try TemporaryFolder()
        let path = "/" + folder.url.appendingPathComponent("Library.sqlite").path
        let imported = try StrataRunner.run(["import", "Tag", "--create", "--store", path, "--model", BadInputTests.model], input: Data(#"{"name": "a"}"#.utf8))
        #expect(imported.status == 0, "\(imported.standardError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == ["Library.sqlite"])
        #expect(try StrataRunner.run(["count", "Tag", "--store", path]).standardOutput == "1\n")
    }
}
