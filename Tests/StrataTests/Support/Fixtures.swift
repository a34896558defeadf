import Foundation
@testable import Strata

/// The Core Data compatibility vectors in `shared/fixtures/coredata`, next to the checkout.
///
/// Tests that read them are skipped, saying so, when `shared/` is absent; the facts they carry
/// that matter most (hashes, schemas) are also written into tests that always run.
enum Fixtures {
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static let coreData: URL = {
        if let override = ProcessInfo.processInfo.environment["STRATA_SHARED"] {
            return URL(fileURLWithPath: override).appendingPathComponent("fixtures/coredata")
        }
        return repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared/fixtures/coredata")
    }()

    static let available = FileManager.default.fileExists(atPath: coreData.path)
    static let skipReason: Comment = "shared/fixtures/coredata not found next to the checkout: Core Data fixture test skipped"

    static func model(_ name: String) -> URL { coreData.appendingPathComponent("models/\(name)") }
    static func store(_ name: String) -> URL { coreData.appendingPathComponent("real-stores/\(name)") }

    /// Every model bundle among the fixtures.
    static var modelBundles: [URL] {
        guard available else { return [] }
        let folder = coreData.appendingPathComponent("models")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasSuffix(".xcdatamodeld") }.sorted().map { folder.appendingPathComponent($0) }
    }

    static let exampleModel = repositoryRoot.appendingPathComponent("examples/Library/Library.xcdatamodeld")

    /// A read-only connection to a fixture store that leaves nothing beside it: without a
    /// `-wal`, immutable, as `PersistentStore` opens a store read-only. A plain read-only
    /// connection to a store in WAL mode makes a `-wal` and `-shm` next to it wherever the
    /// folder can be written (root's test runs left them in the shared fixtures).
    static func readOnlyDatabase(at path: String) throws -> Database {
        var configuration = Database.Configuration.readOnly
        configuration.isImmutable = !FileManager.default.fileExists(atPath: path + "-wal")
        return try Database(path: path, configuration: configuration)
    }
}

import Testing
