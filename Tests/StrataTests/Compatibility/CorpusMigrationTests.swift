import Foundation
import Testing
@testable import Strata
import StrataTestSupport

/// Migrations of real apps' models and stores, as Core Data's automatic migration performs
/// them: straight from the store's version to the bundle's current one.
@Suite(.enabled(if: Corpus.available, Corpus.skipReason))
struct CorpusMigrationTests {
    /// The corpus's bundles, each loaded once, by path.
    static let bundles: [String: ModelBundle] = {
        let paths = Set(Corpus.modelVersions.filter { $0.version != nil }.map(\.url.path))
        return Dictionary(uniqueKeysWithValues: paths.compactMap { path in (try? Corpus.bundle(at: URL(fileURLWithPath: path))).map { (path, $0) } })
    }()

    /// Every readable version of a bundle that is not its current one.
    static var earlierVersions: [Corpus.ModelVersion] {
        Corpus.modelVersions.filter { version in
            guard let name = version.version, let bundle = bundles[version.url.path] else { return false }
            return name != bundle.currentVersionName && bundle.versions.contains { $0.name == name }
        }
    }

    @Test(arguments: earlierVersions)
    func anEmptyStoreOfEachVersionMigratesToTheCurrentOne(_ version: Corpus.ModelVersion) throws {
        let bundle = try #require(Self.bundles[version.url.path])
        let folder = try TemporaryFolder()
        let path = folder.path("Store.sqlite")
        try PersistentStore.create(at: path, model: bundle.version(named: version.version).model).close()
        let result = try StoreMigrator(storePath: path, bundle: bundle).migrate(backup: false)
        // One step, or none where the version's hashes are the current one's.
        #expect(result.plan.steps.count <= 1)
        #expect(result.plan.steps.allSatisfy { $0.destinationVersion == bundle.currentVersionName })
        let store = try PersistentStore.open(at: path, model: bundle.currentVersion.model)
        store.close()
    }

    /// Stores Core Data wrote with another version of their bundle: each migrates to the
    /// current version with every object, and every to-one link, of the entities it keeps; or,
    /// where the current version requires a value the store's objects lack and has no default
    /// for it, the migration is refused and the store left as it was, as Core Data's inferred
    /// mapping refuses it ("missing attribute values on mandatory destination attribute").
    @Test(arguments: Corpus.stores.filter { $0.models.count == 1 })
    func aRealStoreMigratesToTheCurrentVersionWithItsObjects(_ store: Corpus.Store) throws {
        let bundle = try #require(Self.bundles[store.models[0].bundle.path])
        let source = try bundle.version(named: store.models[0].version)
        guard source.name != bundle.currentVersionName else { return }
        let folder = try TemporaryFolder()
        let path = try Corpus.copy(store, into: folder)
        let before = try Self.census(of: path, model: source.model)
        let result: MigrationResult
        do {
            result = try StoreMigrator(storePath: path, bundle: bundle).migrate(backup: false)
        } catch MigrationError.dataDoesNotFit(_, _, let reasons) {
            #expect(!reasons.isEmpty && reasons.allSatisfy { $0.contains("is required and has no default value") }, "\(reasons)")
            #expect(try Self.census(of: path, model: source.model) == before, "the refused migration changed the store")
            return
        }
        let mapping = try #require(result.plan.steps.first?.mapping)
        #expect(result.plan.steps.count == 1)
        let after = try Self.census(of: path, model: bundle.currentVersion.model)
        for entity in mapping.entities {
            guard let old = entity.source else { continue }
            #expect(after["\(entity.destination.name)"] == before["\(old.name)"], "objects of \(old.name) → \(entity.destination.name)")
            for relationship in entity.relationships where !relationship.destination.isToMany {
                guard let oldRelationship = relationship.source, !oldRelationship.isToMany else { continue }
                let key = "\(entity.destination.name).\(relationship.destination.name)"
                #expect(after[key] == before["\(old.name).\(oldRelationship.name)"], "links of \(key)")
            }
        }
    }

    /// Objects per entity (its own, sub-entities aside) and, per to-one relationship, the
    /// objects that hold one: `Artist`, `Artwork.artist`.
    static func census(of path: String, model: ObjectModel) throws -> [String: Int] {
        let store = try PersistentStore.open(at: path, model: model, requiresMatchingModel: false, configuration: .readOnly)
        defer { store.close() }
        let context = ObjectContext(store: store, name: "census")
        return try context.performAndWait {
            var census: [String: Int] = [:]
            for entity in model.entities {
                var request = FetchRequest(entityName: entity.name)
                request.includesSubentities = false
                census[entity.name] = try context.count(for: request)
                for relationship in model.allRelationships(of: entity) where !relationship.isToMany && !relationship.isTransient {
                    request.predicate = try ObjectPredicate(format: "\(relationship.name) != nil")
                    census["\(entity.name).\(relationship.name)"] = try context.count(for: request)
                }
            }
            return census
        }
    }
}
