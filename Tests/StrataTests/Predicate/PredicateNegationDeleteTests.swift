import Foundation
import Testing
@testable import Strata
import StrataTestSupport

/// The predicate suite's negations through a batch delete and `strata delete`: `NOT` of every
/// entry of ``PredicateTableTests`` that a command line can write (no `%@` argument, no
/// variable) must count, and delete, exactly the objects the in-memory evaluator accepts. SQL
/// and memory once disagreed where a comparison gave no answer (a MATCHES that ICU ended without
/// one, a pattern that did not compile): `NOT` turned that "no" into a deletion.
///
/// Every entry runs through ``BatchDeleteRequest``, the request `strata delete` executes; every
/// ``binarySample``-th entry also through the built binary's `delete --dry-run` and `delete`,
/// which a process per run makes too slow for all of them.
@Suite(.serialized) struct PredicateNegationDeleteTests {
    /// The built `strata` beside the test bundle, as the CLI tests run it.
    static let binary: URL = {
        let folder = Bundle.main.bundleURL.pathExtension == "xctest" ? Bundle.main.bundleURL.deletingLastPathComponent() : Bundle.main.bundleURL
        return folder.appendingPathComponent("strata")
    }()

    static let tables = ["Book": "ZBOOK", "EBook": "ZBOOK", "Author": "ZAUTHOR", "Tag": "ZTAG", "Page": "ZPAGE"]
    static let binarySample = 16

    @Test func negationsDeleteWhatTheEvaluatorRejects() throws {
        let library = try TableLibrary()
        let folder = try TemporaryFolder()
        // One file without a -wal, copied afresh for every entry.
        let clean = folder.path("clean.sqlite")
        try library.fixture.store.database.execute("VACUUM INTO '\(clean)'")
        let entries = (PredicateTableTests.attributeEntries + PredicateTableTests.relationshipEntries + PredicateTableTests.expressionEntries)
            .filter { $0.arguments.isEmpty && $0.variables.isEmpty }
        #expect(entries.count >= 100)
        var deleting = 0
        for (index, entry) in entries.enumerated() {
            let format = "NOT (\(entry.format))"
            let predicate = try ObjectPredicate(format: format)
            let all = try library.fixture.keysSelected(by: .constant(true), entity: entry.entity)
            let accepted = try library.fixture.keysAccepted(by: predicate, entity: entry.entity, in: library.reader)
            if !accepted.isEmpty { deleting += 1 }

            let copy = try Self.freshCopy(of: clean, in: folder)
            let store = try PersistentStore.open(at: copy, model: library.fixture.store.model)
            let context = ObjectContext(store: store, name: "negation")
            let request = FetchRequest(entityName: entry.entity, predicate: predicate)
            #expect(try context.performAndWait { try context.count(for: request) } == accepted.count, "\(entry): count")
            _ = try context.performAndWait { try context.execute(BatchDeleteRequest(fetchRequest: request)) }
            store.close()
            let kept = try Self.keys(of: entry.entity, in: copy)
            #expect(kept == all.subtracting(accepted), "\(entry): the batch delete kept \(library.labels(kept, entry.entity)), in memory \(library.labels(all.subtracting(accepted), entry.entity))")

            guard index % Self.binarySample == 0 else { continue }
            let commandCopy = try Self.freshCopy(of: clean, in: folder)
            let dryRun = try Self.run(["delete", entry.entity, "--where", format, "--dry-run", "--store", commandCopy])
            #expect(dryRun.status == 0, "\(entry): \(dryRun.error)")
            #expect(Self.matchedCount(dryRun.output) == accepted.count, "\(entry): dry run says \(dryRun.output), in memory \(accepted.count)")
            #expect(try Self.keys(of: entry.entity, in: commandCopy) == all, "\(entry): the dry run changed the store")
            let deletion = try Self.run(["delete", entry.entity, "--where", format, "--store", commandCopy])
            #expect(deletion.status == 0, "\(entry): \(deletion.error)")
            #expect(try Self.keys(of: entry.entity, in: commandCopy) == all.subtracting(accepted), "\(entry): strata delete")
        }
        // The negations test something only if many of them delete some objects and keep others.
        #expect(deleting * 2 >= entries.count)
    }

    /// A copy of the store file `clean` in `folder`, replacing the previous one.
    static func freshCopy(of clean: String, in folder: TemporaryFolder) throws -> String {
        let copy = folder.path("entry.sqlite")
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: copy + suffix) }
        try FileManager.default.copyItem(atPath: clean, toPath: copy)
        return copy
    }

    /// The objects the request itself selected, from "dry run: would delete 3 Book, 1 EBook, 7 Page (cascade)".
    static func matchedCount(_ output: String) -> Int? {
        guard let line = output.split(separator: "\n").first, line.hasPrefix("dry run: would delete ") else { return nil }
        return line.dropFirst("dry run: would delete ".count).components(separatedBy: ", ")
            .filter { !$0.hasSuffix("(cascade)") }
            .reduce(0) { $0 + (Int($1.split(separator: " ").first ?? "") ?? 0) }
    }

    /// The keys of the rows of `entity` (sub-entities included) in the store at `path`.
    static func keys(of entity: String, in path: String) throws -> Set<Int64> {
        let database = try Database(path: path, configuration: .readOnly)
        defer { database.close() }
        let condition = entity == "EBook" ? " WHERE Z_ENT = (SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'EBook')" : ""
        return Set(try database.rows("SELECT Z_PK FROM \(tables[entity]!)\(condition)").compactMap { $0[0].int64Value })
    }

    /// Runs the built `strata` with `arguments`.
    static func run(_ arguments: [String]) throws -> (status: Int32, output: String, error: String) {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("STRATA_") }
        let output = Pipe(), error = Pipe()
        process.standardOutput = output
        process.standardError = error
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Small outputs: reading after the exit cannot fill a pipe and block the process.
        process.waitUntilExit()
        return (
            process.terminationStatus, String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self),
            String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        )
    }
}
