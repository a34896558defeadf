import Foundation
import Testing
@testable import Strata
import StrataTestSupport

/// A to-many without an inverse (artsy-energy's `Album.documents`) is kept as Core Data keeps
/// it: the owner's `Z_PK` in a `Z<n><NAME>` column on the members' rows.
@Suite struct InverselessToManyTests {
    /// Album (1) with a to-many `documents` to Document (2), which has no relationship back.
    static var model: ObjectModel {
        var album = EntityDescription(name: "Album")
        album.attributes = [AttributeDescription(name: "name", type: .string)]
        album.relationships = [RelationshipDescription(name: "documents", destination: "Document", isToMany: true)]
        var document = EntityDescription(name: "Document")
        document.attributes = [AttributeDescription(name: "title", type: .string)]
        return ObjectModel(entities: [album, document])
    }

    @Test func theKeyColumnIsOnTheMembersTableWithItsIndex() {
        let layout = StoreLayout(model: Self.model)
        #expect(layout.entity(named: "Album")?.toManyKeyColumns == ["documents": "Z1DOCUMENTS"])
        #expect(layout.tables.first { $0.name == "ZDOCUMENT" }?.columns.map(\.name) == ["Z_PK", "Z_ENT", "Z_OPT", "Z1DOCUMENTS", "ZTITLE"])
        #expect(layout.indexes.map(\.createStatement).contains("CREATE INDEX ZDOCUMENT_Z1DOCUMENTS_INDEX ON ZDOCUMENT (Z1DOCUMENTS)"))
        #expect(layout.joinTables.isEmpty)
    }

    @Test func membersAreSavedReadFetchedAndRemoved() throws {
        let folder = try TemporaryFolder()
        let store = try PersistentStore.create(at: folder.path("Albums.sqlite"), model: Self.model)
        let context = ObjectContext(store: store, name: "test")
        let albumID = try context.performAndWait {
            let album = try context.insert("Album")
            try album.setValue("Blue", forKey: "name")
            for title in ["liner notes", "press kit", "lyrics"] {
                let document = try context.insert("Document")
                try document.setValue(title, forKey: "title")
                try album.add(document, toKey: "documents")
            }
            try context.save()
            return album.objectID
        }
        #expect(try store.database.scalar("SELECT count(*) FROM ZDOCUMENT WHERE Z1DOCUMENTS = 1")?.int64Value == 3)

        let other = ObjectContext(store: try PersistentStore.open(at: store.path, model: Self.model), name: "other")
        try other.performAndWait {
            let album = try other.existingObject(with: albumID)
            let titles = try (album.value(forKey: "documents") as? [ManagedObject])?.compactMap { try $0.value(forKey: "title") as? String }
            #expect(titles?.sorted() == ["liner notes", "lyrics", "press kit"])
            let matching = try other.fetch(FetchRequest(entityName: "Album", predicate: try ObjectPredicate(format: "ANY documents.title == 'lyrics'")))
            #expect(matching.map(\.objectID) == [albumID])
            #expect(try other.count(for: FetchRequest(entityName: "Album", predicate: try ObjectPredicate(format: "documents.@count == 3"))) == 1)

            let lyrics = try #require((try album.value(forKey: "documents") as? [ManagedObject])?.first { try $0.value(forKey: "title") as? String == "lyrics" })
            try album.remove(lyrics, fromKey: "documents")
            try other.save()
        }
        #expect(try store.database.scalar("SELECT count(*) FROM ZDOCUMENT WHERE Z1DOCUMENTS = 1")?.int64Value == 2)
        #expect(try store.database.scalar("SELECT count(*) FROM ZDOCUMENT WHERE Z1DOCUMENTS IS NULL")?.int64Value == 1)
    }

    /// Without its model, the store's `Z1DOCUMENTS` column reads back as the to-many it is.
    @Test func aStoreWithoutItsModelInfersTheToMany() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("Albums.sqlite")
        try PersistentStore.create(at: path, model: Self.model).close()
        let schema = try StoreSchema(reading: try Database(path: path, configuration: .readOnly))
        let inferred = SchemaInference.model(from: schema)
        let documents = try #require(inferred.entity(named: "Album")?.relationship(named: "documents"))
        #expect(documents.isToMany && documents.destinationEntityName == "Document" && documents.inverseName == nil)
        #expect(inferred.validate().filter { $0.severity == .error }.isEmpty)
    }
}
