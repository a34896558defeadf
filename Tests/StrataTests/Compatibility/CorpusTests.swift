import Foundation
import Testing
@testable import Strata
import StrataTestSupport

/// Strata against the models and stores of real apps (`shared/fixtures/coredata/corpus`): what
/// Xcode compiled and Core Data wrote is the truth.
@Suite(.enabled(if: Corpus.available, Corpus.skipReason))
struct CorpusTests {
    /// Every model version Xcode compiled loads and has no error; what Xcode only warns about
    /// is a warning.
    @Test(arguments: Corpus.modelVersions)
    func everyModelVersionLoadsAndValidates(_ version: Corpus.ModelVersion) throws {
        let model = try Corpus.model(of: version)
        let errors = model.validate().filter { $0.severity == .error }
        #expect(errors.isEmpty, "\(errors)")
    }

    /// The hashes of the model that wrote each store are the store's, and the store opens with
    /// that model as its own.
    @Test(arguments: Corpus.stores.filter { !$0.models.isEmpty })
    func modelHashesAreTheStoresAndTheStoreOpensWithIt(_ store: Corpus.Store) throws {
        let model = try Corpus.model(of: store)
        let opened = try PersistentStore.open(at: store.url.path, model: model, configuration: .readOnly)
        defer { opened.close() }
        #expect(model.entityVersionHashes() == opened.metadata.entityVersionHashes)
        #expect(opened.comparison.isMatch)
    }

    /// A store Strata creates for the model has the schema Core Data gave the store (tables,
    /// columns, indexes), when laid out as the Core Data release that wrote it.
    @Test(arguments: Corpus.stores.filter { !$0.models.isEmpty })
    func createdStoreHasTheSchemaCoreDataWrote(_ store: Corpus.Store) throws {
        let real = try Fixtures.readOnlyDatabase(at: store.url.path)
        let release = try #require(try StoreMetadata(reading: real).frameworkVersion)
        let folder = try TemporaryFolder()
        let created = try PersistentStore.create(at: folder.path("created.sqlite"), model: try Corpus.model(of: store), frameworkVersion: release)
        defer { created.close() }
        // Z_MODELCACHE included: Strata writes it for the releases that do (637 and later).
        #expect(try normalizedSchema(of: created.database) == (try normalizedSchema(of: real)))
    }

    /// Every store opens without a model (from its model cache, or its schema), reads every
    /// object and every relationship, and is left byte for byte as it was.
    @Test(arguments: Corpus.stores)
    func everyStoreReadsWithoutItsModelAndStaysUnchanged(_ store: Corpus.Store) throws {
        let folder = try TemporaryFolder()
        let path = try Corpus.copy(store, into: folder)
        let before = try fileDigest(path)
        do {
            let opened = try PersistentStore.open(at: path, configuration: .readOnly)
            defer { opened.close() }
            #expect(opened.model.validate().filter { $0.severity == .error }.isEmpty)
            for entity in opened.model.entities {
                let rows = try opened.rows(entity.name)
                let kinds = [entity] + opened.model.allSubentities(of: entity)
                #expect(rows.count == (try kinds.reduce(0) { $0 + (try opened.rowCountExcludingSubentities(of: $1.name)) }), "\(entity.name)")
                for relationship in opened.model.allRelationships(of: entity) where relationship.isToMany {
                    for row in rows.prefix(20) {
                        _ = try opened.toManyReferences(entity.name, relationship.name, primaryKey: row.primaryKey)
                    }
                }
            }
        }
        #expect(try fileDigest(path) == before)
    }

    /// A model cache describes the model that wrote its store: the same hashes.
    @Test(arguments: Corpus.stores)
    func aModelCacheHashesAsItsStore(_ store: Corpus.Store) throws {
        let opened = try PersistentStore.open(at: store.url.path, configuration: .readOnly)
        defer { opened.close() }
        guard opened.modelSource == .modelCache else { return }
        let model = opened.model
        let computed = model.entityVersionHashes(), recorded = opened.metadata.entityVersionHashes
        #expect(Set(computed.keys) == Set(recorded.keys))
        // How Core Data hashes a derived attribute is not known: no formula tried matches the
        // one store of the corpus that has one (CoreDataPlus's SampleModel2, issue 32). The
        // entities that declare or inherit one are compared as a known issue; every other must
        // match.
        let derived = Set(model.entities.filter { model.allAttributes(of: $0).contains(where: \.isDerived) }.map(\.name))
        for name in recorded.keys.sorted() {
            if derived.contains(name) {
                withKnownIssue("the version hash of an entity with a derived attribute (issue 32)", isIntermittent: true) {
                    #expect(computed[name] == recorded[name], "\(name)")
                }
            } else {
                #expect(computed[name] == recorded[name], "\(name)")
            }
        }
    }
}
