import Foundation
import Synchronization
import Testing
@testable import Strata
import StrataTestSupport

/// The corpus of real apps' models and stores in `shared/fixtures/coredata/corpus`: every model
/// version there shipped in an app, and every store was written by Core Data. `stores.tsv`
/// names the model version that wrote each store.
enum Corpus {
    static let folder = Fixtures.coreData.appendingPathComponent("corpus")
    static let available = FileManager.default.fileExists(atPath: folder.appendingPathComponent("stores.tsv").path)
    static let skipReason: Comment = "shared/fixtures/coredata/corpus not found next to the checkout: corpus test skipped"

    /// A store of the corpus and the model versions that wrote it (several for a merged model;
    /// none when no model file of it is known).
    struct Store: CustomTestStringConvertible, Sendable {
        var path: String
        var models: [(bundle: URL, version: String)]
        var testDescription: String { path }
        var url: URL { folder.appendingPathComponent(path) }
    }

    /// Every row of `stores.tsv`.
    static var stores: [Store] {
        guard available, let text = try? String(contentsOf: folder.appendingPathComponent("stores.tsv"), encoding: .utf8) else { return [] }
        return text.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { line in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 2 else { return nil }
            let models = fields[1] == "-" ? [] : fields[1].components(separatedBy: " | ").compactMap { part -> (URL, String)? in
                let pieces = part.components(separatedBy: "::")
                return pieces.count == 2 ? (folder.appendingPathComponent(pieces[0]), pieces[1]) : nil
            }
            return Store(path: fields[0], models: models)
        }
    }

    /// One model version of the corpus: the path to load, and the version's name within a bundle.
    struct ModelVersion: CustomTestStringConvertible, Sendable {
        var url: URL
        var version: String?
        var testDescription: String {
            url.path.replacingOccurrences(of: folder.path + "/", with: "") + (version.map { "::\($0)" } ?? "")
        }
    }

    /// Every `.xcdatamodel` folder of the corpus, as a version of its bundle or as a model of its own.
    static var modelVersions: [ModelVersion] {
        guard available, let walker = FileManager.default.enumerator(at: folder.appendingPathComponent("models"), includingPropertiesForKeys: nil)
        else { return [] }
        var versions: [ModelVersion] = []
        for case let url as URL in walker where url.pathExtension == "xcdatamodel" {
            let parent = url.deletingLastPathComponent()
            versions.append(
                parent.pathExtension == "xcdatamodeld"
                    ? ModelVersion(url: parent, version: url.deletingPathExtension().lastPathComponent) : ModelVersion(url: url, version: nil))
        }
        return versions.sorted { $0.testDescription < $1.testDescription }
    }

    /// The model that wrote `store`: its one version, or its versions merged.
    static func model(of store: Store) throws -> ObjectModel {
        let models = try store.models.map { bundle, version throws -> ObjectModel in try Self.bundle(at: bundle).version(named: version).model }
        return models.count == 1 ? models[0] : try ObjectModel(merging: models)
    }

    /// The model of `version`.
    static func model(of version: ModelVersion) throws -> ObjectModel {
        try bundle(at: version.url).version(named: version.version).model
    }

    /// The bundle (or single model) at `url`, read once per test run. Loading a bundle reads
    /// every version in it, and the suites ask for versions one at a time: without the cache,
    /// a bundle of 32 versions would be read 32 times per suite.
    static func bundle(at url: URL) throws -> ModelBundle {
        if let loaded = loadedBundles.withLock({ $0[url.path] }) { return try loaded.get() }
        // Read outside the lock, so that the suites' parallel tests read different bundles at
        // once; two tests that race for one bundle both read it, and either result is kept.
        let loaded = Result { () throws(ModelError) -> ModelBundle in try ModelLoader.load(url) }
        loadedBundles.withLock { $0[url.path] = loaded }
        return try loaded.get()
    }

    private static let loadedBundles = Mutex<[String: Result<ModelBundle, ModelError>]>([:])

    /// A copy of `store` (with its `-wal`) in `folder`, for a test that opens it for writing.
    static func copy(_ store: Store, into folder: TemporaryFolder) throws -> String {
        let copy = folder.path(store.url.lastPathComponent)
        for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: store.url.path + suffix) {
            try FileManager.default.copyItem(atPath: store.url.path + suffix, toPath: copy + suffix)
            // The copy keeps the fixture's mode, which a read-only checkout makes read-only.
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: copy + suffix)
        }
        return copy
    }
}
