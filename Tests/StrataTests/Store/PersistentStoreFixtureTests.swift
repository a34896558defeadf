import Foundation
import Testing
@testable import Strata
import StrataTestSupport

/// The real Core Data stores are the proof of the layout: Strata's schema for their models
/// must be theirs, and opening them must change nothing.
@Suite(.enabled(if: Fixtures.available, Fixtures.skipReason))
struct PersistentStoreFixtureTests {
    @Test func createdTavantTradeStoreHasTheRealStoresSchemaAndHashes() throws {
        let folder = try TemporaryFolder()
        let model = try ModelLoader.load(Fixtures.model("TavantTrade.xcdatamodeld")).currentVersion.model
        let created = try PersistentStore.create(at: folder.path("TavantTrade.sqlite"), model: model)
        let real = try Fixtures.readOnlyDatabase(at: Fixtures.store("TavantTrade.sqlite").path)
        var expected = try normalizedSchema(of: real)
        // Release 479 wrote no model cache; Strata lays the store out as 1522, which writes one.
        expected["Z_MODELCACHE"] = ModelCacheEncoder.createStatement
        #expect(try normalizedSchema(of: created.database) == expected)
        let realMetadata = try StoreMetadata(reading: real)
        #expect(created.metadata.entityVersionHashes == realMetadata.entityVersionHashes)
        #expect(try StoreMetadata(reading: created.database) == created.metadata)
        #expect(try created.database.scalar("PRAGMA auto_vacuum")?.int64Value == 2)
    }

    @Test func finalCutModelIsRecoveredFromTheModelCacheWithTheStoredHashes() throws {
        for name in ["FinalCutEvent.sqlite", "FinalCutLibrary.sqlite"] {
            let store = try PersistentStore.open(at: Fixtures.store(name).path, configuration: .readOnly)
            #expect(store.modelSource == .modelCache)
            #expect(store.model.entities.map(\.name) == ["CatalogRoot", "CatalogRootMD", "Collection", "CollectionMD"])
            #expect(store.model.entityVersionHashes() == store.metadata.entityVersionHashes)
            #expect(store.comparison.isMatch)
            let collection = try #require(store.model.entity(named: "Collection"))
            #expect(collection.relationship(named: "childCollections")?.inverseName == "parentCollections")
            #expect(store.model.validate().filter { $0.severity == .error }.isEmpty)
        }
    }

    /// Strata's layout rules, applied to the recovered model, give the store Core Data wrote.
    @Test func layoutOfTheRecoveredModelIsTheFinalCutSchema() throws {
        let store = try PersistentStore.open(at: Fixtures.store("FinalCutEvent.sqlite").path, configuration: .readOnly)
        let folder = try TemporaryFolder()
        let created = try PersistentStore.create(at: folder.path("FinalCut.sqlite"), model: store.model)
        #expect(try normalizedSchema(of: created.database) == (try normalizedSchema(of: store.database)))
    }

    @Test func coreDataBooksWithoutModelOrCacheIsInferred() throws {
        let store = try PersistentStore.open(at: Fixtures.store("CoreDataBooks.sqlite").path, configuration: .readOnly)
        #expect(store.modelSource == .inferred)
        let book = try #require(store.model.entity(named: "Book"))
        #expect(book.attributes.map(\.name).sorted() == ["author", "contents", "copyright", "title"])
        #expect(book.attribute(named: "copyright")?.type == .date)
        #expect(try StoreReport(store: store).comparison == nil)
    }

    @Test func tavantTradeInferredRelationshipFindsItsDestination() throws {
        let store = try PersistentStore.open(at: Fixtures.store("TavantTrade.sqlite").path, configuration: .readOnly)
        #expect(store.modelSource == .inferred)
        let relationship = store.model.entity(named: "FeedbackSubCategory")?.relationship(named: "category")
        #expect(relationship?.destinationEntityName == "FeedbackCategory")
    }

    @Test func aDifferentModelIsRefusedNamingTheEntities() throws {
        let model = try ModelLoader.load(Fixtures.model("Sync-151-many-to-many.xcdatamodeld")).currentVersion.model
        #expect {
            _ = try PersistentStore.open(at: Fixtures.store("TavantTrade.sqlite").path, model: model, configuration: .readOnly)
        } throws: { error in
            String(describing: error).hasSuffix(
                "the store was made with another model; entities that differ: Note (only in the model), Tag (only in the model), FeedbackCategory (only in the store), FeedbackSubCategory (only in the store)")
        }
    }

    /// Regression: opening a store read-write once switched it to WAL, rewriting its header.
    /// Run on writable copies, so that a regression cannot damage the fixtures themselves.
    @Test func openingAStoreWritableChangesNoByte() throws {
        let folder = try TemporaryFolder()
        for name in ["CoreDataBooks.sqlite", "TavantTrade.sqlite", "FinalCutEvent.sqlite", "FinalCutLibrary.sqlite"] {
            let copy = folder.path(name)
            try FileManager.default.copyItem(atPath: Fixtures.store(name).path, toPath: copy)
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: copy)
            let before = try fileDigest(copy)
            do {
                let store = try PersistentStore.open(at: copy)
                _ = try store.database.rows("SELECT * FROM Z_PRIMARYKEY")
                #expect(try store.database.journalMode() == "delete")
            }
            #expect(try fileDigest(copy) == before, "\(name) changed on open")
        }
    }

    @Test func aFileWithoutWritePermissionOpensReadOnly() throws {
        let folder = try TemporaryFolder()
        let copy = folder.path("TavantTrade.sqlite")
        try FileManager.default.copyItem(atPath: Fixtures.store("TavantTrade.sqlite").path, toPath: copy)
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: copy)
        let store = try PersistentStore.open(at: copy)
        #expect(store.database.configuration.isReadOnly)
        #expect(throws: DatabaseError.self) { try store.database.execute("DELETE FROM ZFEEDBACKCATEGORY") }
    }
}
