import Foundation
import Strata
import Testing
import StrataTestSupport

/// The bad-input catalogue: each case runs a `strata` command a user would run on input that
/// is wrong (malformed or truncated JSON, XML and Lua, wrong types, unknown names, bad
/// predicates, empty files, files that are not stores, stores of other models or versions,
/// read-only stores, missing folders, a full disk, invalid UTF-8, huge numbers, deep nesting),
/// and checks the whole message, the exit status, what is printed on standard output, and that
/// the store's files hold exactly what they held before.
///
/// The cases are grouped by theme in `BadInputTests+Stores.swift` (store files),
/// `BadInputTests+Import.swift` (JSON records) and `BadInputTests+Scripts.swift` (predicates,
/// Lua and model XML).
@Suite struct BadInputTests {
    static let model = StrataRunner.repositoryRoot.appendingPathComponent("examples/Library/Library.xcdatamodeld").path
    static let contents = model + "/Library.xcdatamodel/contents"
    static let payload = StrataRunner.repositoryRoot.appendingPathComponent("examples/Library/library.json").path

    /// The bytes of a store of the example Library holding the example's records, made once by
    /// `strata import` (which checkpoints on closing, so the main file holds everything); each
    /// case writes its own copy.
    static let exampleStore: Data = {
        let folder = try! TemporaryFolder()
        let store = folder.url.appendingPathComponent("Library.sqlite").path
        let result = try! StrataRunner.run(["import", "Author", "--create", payload, "--store", store, "--model", model])
        precondition(result.status == 0, result.standardError)
        precondition(!FileManager.default.fileExists(atPath: store + "-wal"), "the example store kept a -wal")
        return FileManager.default.contents(atPath: store)!
    }()

    // MARK: - A case's folder and store

    /// A temporary folder with a copy of the example store in it, and the texts a case's
    /// arguments and messages name it by.
    struct Setup {
        let folder: TemporaryFolder
        var path: String { folder.url.path }
        var store: String { path + "/Library.sqlite" }

        init(store: Bool = true) throws {
            folder = try TemporaryFolder()
            if store { _ = FileManager.default.createFile(atPath: self.store, contents: BadInputTests.exampleStore) }
        }

        /// Writes `contents` to `name` in the folder and returns its path.
        @discardableResult
        func write(_ name: String, _ contents: Data) throws -> String {
            let file = path + "/" + name
            try FileManager.default.createDirectory(
                atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            _ = FileManager.default.createFile(atPath: file, contents: contents)
            return file
        }

        @discardableResult
        func write(_ name: String, _ text: String) throws -> String { try write(name, Data(text.utf8)) }

        /// `text` with `{dir}`, `{store}`, `{model}` and `{contents}` replaced by the folder,
        /// the store, the example model bundle and its contents file.
        func expand(_ text: String) -> String {
            text.replacingOccurrences(of: "{store}", with: store).replacingOccurrences(of: "{dir}", with: path)
                .replacingOccurrences(of: "{model}", with: BadInputTests.model)
                .replacingOccurrences(of: "{contents}", with: BadInputTests.contents)
        }
    }

    /// SHA-256 of the store's file followed by SHA-256 of its `-wal`. The store runs in WAL
    /// mode, so a committed write may sit in the `-wal` alone: both are part of what the store
    /// holds. A missing file counts as an empty one, since opening a store read-only may leave
    /// an empty `-wal` behind (the `-shm` is only an index of the `-wal` and is left out).
    static func checksum(_ store: String) -> String {
        [store, store + "-wal"].map { file in
            SHA256.hash(FileManager.default.contents(atPath: file) ?? Data()).map { String(format: "%02x", $0) }.joined()
        }.joined(separator: " ")
    }

    /// Runs `strata arguments…` (expanded) on the setup's store and checks that it fails with
    /// exactly `status` and `error` on standard error (expanded, ending in a newline; none when empty), prints
    /// `output` (expanded) on standard output, and leaves the store as it was.
    static func refuses(
        _ arguments: [String], in setup: Setup, status: Int32, error: String, output: String = "", input: Data? = nil,
        launcher: [String] = [], sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) throws {
        let before = checksum(setup.store)
        let result = try StrataRunner.run(arguments.map(setup.expand), input: input, launcher: launcher)
        #expect(result.standardError == (error.isEmpty ? "" : setup.expand(error) + "\n"), sourceLocation: sourceLocation)
        #expect(result.status == status, "\(result.standardError)", sourceLocation: sourceLocation)
        #expect(result.standardOutput == setup.expand(output), sourceLocation: sourceLocation)
        #expect(checksum(setup.store) == before, "the store changed", sourceLocation: sourceLocation)
    }

    // MARK: - The check itself

    /// The checksum sees a write: an import that succeeds changes it, and a store left open
    /// with its write only in the `-wal` changes it too.
    @Test func theChecksumSeesWritesInTheStoreAndInItsWAL() throws {
        let setup = try Setup()
        let before = Self.checksum(setup.store)
        let imported = try StrataRunner.run(
            ["import", "Tag", "--store", setup.store, "--model", Self.model], input: Data(#"{"name": "new"}"#.utf8))
        #expect(imported.status == 0, "\(imported.standardError)")
        let afterImport = Self.checksum(setup.store)
        #expect(afterImport != before)

        // A write held in the -wal while a second connection keeps the file from being checkpointed.
        let reader = try Database(path: setup.store, configuration: .readOnly)
        defer { reader.close() }
        _ = try reader.rows("SELECT COUNT(*) FROM ZTAG")
        let writer = try Database(path: setup.store)
        try writer.execute("PRAGMA wal_autocheckpoint = 0")
        try writer.execute("UPDATE ZTAG SET ZNAME = 'changed' WHERE ZNAME = 'new'")
        #expect(Self.checksum(setup.store) != afterImport, "a write only in the -wal changes the checksum")
        writer.close()
    }
}
