import Foundation
import Testing
@testable import Strata
import StrataTestSupport

/// A table that holds one entity alone is the entity's, whatever a row's `Z_ENT` says, as Core
/// Data reads it: artsy-energy's `ArtsyPartner_2.0.sqlite` has an Artwork row whose `Z_ENT` is
/// Album's, which `inspect` counted but `fetch` and `count` left out.
@Suite struct StrayEntityNumberTests {
    @Test func aRowWithAnotherEntitysNumberIsReadAsTheTablesEntity() throws {
        let folder = try TemporaryFolder()
        let store = try PersistentStore.create(at: folder.path("Albums.sqlite"), model: InverselessToManyTests.model)
        try store.database.execute("INSERT INTO ZDOCUMENT (Z_PK, Z_ENT, Z_OPT, ZTITLE) VALUES (1, 1, 1, 'stray')")
        #expect(try store.rowCountExcludingSubentities(of: "Document") == 1)
        #expect(try store.rows("Document").map(\.entityName) == ["Document"])
        let context = ObjectContext(store: store, name: "test")
        try context.performAndWait {
            let documents = try context.fetch(FetchRequest(entityName: "Document"))
            #expect(try documents.map { try $0.value(forKey: "title") as? String } == ["stray"])
            #expect(documents.map(\.entity.name) == ["Document"])
            #expect(try context.count(for: FetchRequest(entityName: "Document")) == 1)
            var own = FetchRequest(entityName: "Document")
            own.includesSubentities = false
            #expect(try context.count(for: own) == 1, "its own rows, sub-entities aside, are every row too")
        }
    }
}
