import Foundation
@testable import Strata
import StrataTestSupport

/// A store made with the first of some model versions written as Strata JSON models, seeded
/// through a context, to migrate and read back.
struct MigrationFixture {
    let folder: TemporaryFolder
    let path: String
    let bundle: ModelBundle

    /// `versions` are (name, JSON model text) in order; the last is current.
    init(versions: [(String, String)], seed: (ObjectContext) throws -> Void) throws {
        folder = try TemporaryFolder()
        path = folder.path("Store.sqlite")
        let loaded = try versions.map { name, json in
            ModelBundle.Version(name: name, file: URL(fileURLWithPath: "/models/\(name).json"), model: try JSONModelReader.read(Data(json.utf8), path: "\(name).json"))
        }
        bundle = ModelBundle(url: URL(fileURLWithPath: "/models/Test.xcdatamodeld"), versions: loaded, currentVersionName: loaded.last!.name, currentVersionReason: "the last")
        let store = try PersistentStore.create(at: path, model: loaded[0].model)
        defer { store.close() }
        let context = ObjectContext(store: store)
        try context.performAndWait {
            try seed(context)
            try context.save()
        }
    }

    func migrator(to version: String? = nil, through route: [String] = []) throws -> StoreMigrator {
        try StoreMigrator(storePath: path, bundle: bundle, destinationVersion: version, route: route)
    }

    /// The store file's bytes: a refused migration leaves them as they were.
    func bytes() throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: path))
    }

    /// The files beside the store other than the store itself.
    func otherFiles() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { $0 != "Store.sqlite" }.sorted()
    }

    /// Runs `body` with a context on the migrated store, opened with the current version.
    func read<T>(_ body: (ObjectContext) throws -> T) throws -> T {
        let store = try PersistentStore.open(at: path, model: bundle.currentVersion.model)
        defer { store.close() }
        let context = ObjectContext(store: store)
        return try context.performAndWait { try body(context) }
    }
}

/// The `key` strings of `objects`, sorted (`nil` for an object without one).
func sortedNames(_ objects: [ManagedObject], _ key: String = "name") throws -> [String] {
    try objects.map { object -> String in
        if case .string(let text)? = try object.attributeValue(forKey: key) { return text }
        return "nil"
    }.sorted()
}

/// The `attribute` string of the object `object`'s to-one `key` holds, or `nil` without one.
func toOneName(_ object: ManagedObject, _ key: String, _ attribute: String = "name") throws -> String? {
    guard let target = try object.value(forKey: key) as? ManagedObject else { return nil }
    if case .string(let text)? = try target.attributeValue(forKey: attribute) { return text }
    return "nil"
}
