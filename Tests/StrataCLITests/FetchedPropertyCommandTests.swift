import Foundation
import Strata
import Testing
import StrataTestSupport

/// `strata fetch --select` showing fetched properties, and `inspect` and `fetch` on a store
/// whose tables lack columns its model names (issue 32).
@Suite struct FetchedPropertyCommandTests {
    static let model = """
        {"entities": [
          {"name": "Author", "attributes": [{"name": "name", "type": "string"}],
           "relationships": [{"name": "books", "destination": "Book", "inverse": "author", "toMany": true}],
           "fetchedProperties": [
             {"name": "ownBooks", "fetchRequest": {"name": "fetchedPropertyFetchRequest", "entity": "Book", "predicate": "author == $FETCH_SOURCE"}},
             {"name": "broken", "fetchRequest": {"name": "fetchedPropertyFetchRequest", "entity": "Book", "predicate": "name == $FETCH_SOURCE.nme"}}]},
          {"name": "Book", "attributes": [{"name": "name", "type": "string"}, {"name": "isbn", "type": "string"}],
           "relationships": [{"name": "author", "destination": "Author", "inverse": "books"}]}
        ]}
        """

    /// A store of ``model`` with Le Guin's two books and Dune, and the model's file.
    private func library(_ folder: TemporaryFolder) throws -> (store: String, model: String, uuid: String) {
        let modelPath = folder.url.appendingPathComponent("Library.json").path
        try Data(Self.model.utf8).write(to: URL(fileURLWithPath: modelPath))
        let path = folder.url.appendingPathComponent("Library.sqlite").path
        let store = try PersistentStore.create(at: path, model: try JSONModelReader.read(Data(Self.model.utf8), path: modelPath))
        defer { store.close() }
        try seed(store)
        return (path, modelPath, store.metadata.uuid)
    }

    /// Le Guin's two books and Dune.
    private func seed(_ store: PersistentStore) throws {
        let context = ObjectContext(store: store, name: "seed")
        try context.performAndWait {
            let leGuin = try context.insert("Author")
            try leGuin.setValue("Le Guin", forKey: "name")
            for name in ["Earthsea", "Tombs"] {
                let book = try context.insert("Book")
                try book.setValue(name, forKey: "name")
                try book.setValue(leGuin, forKey: "author")
            }
            try context.insert("Book").setValue("Dune", forKey: "name")
            try context.save()
        }
    }

    /// A store `strata create` made keeps its fetched properties' predicates in its model
    /// cache, as Core Data does: opened without its model, and without the copy of the model
    /// Strata keeps in the metadata (which would give the predicates by itself), the fetched
    /// property evaluates.
    @Test func aCreatedStoreEvaluatesItsFetchedPropertyWithoutItsModel() throws {
        let folder = try TemporaryFolder()
        let modelPath = folder.url.appendingPathComponent("Library.json").path
        try Data(Self.model.utf8).write(to: URL(fileURLWithPath: modelPath))
        let path = folder.url.appendingPathComponent("Library.sqlite").path
        let created = try StrataRunner.run(["create", "--store", path, "--model", modelPath])
        #expect(created.status == 0, "\(created.standardError)")
        let store = try PersistentStore.open(at: path, model: try JSONModelReader.read(Data(Self.model.utf8), path: modelPath))
        let uuid = store.metadata.uuid
        try seed(store)
        var metadata = store.metadata
        metadata.properties[StoreMetadata.modelKey] = nil
        try metadata.write(to: store.database)
        store.close()

        let result = try StrataRunner.run(["fetch", "Author", "--store", path, "--select", "name,ownBooks", "--format", "json"])
        #expect(result.status == 0, "\(result.standardError)")
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [[String: Any]])
        #expect(rows.first?["name"] as? String == "Le Guin")
        #expect((rows.first?["ownBooks"] as? [String])?.sorted() == ["x-coredata://\(uuid)/Book/p1", "x-coredata://\(uuid)/Book/p2"])
        let inspected = try StrataRunner.run(["inspect", "--store", path])
        #expect(inspected.standardOutput.contains("model cache"), "\(inspected.standardOutput)")
    }

    @Test func selectShowsAFetchedPropertyAsTheURIsOfItsObjects() throws {
        let folder = try TemporaryFolder()
        let (store, model, uuid) = try library(folder)
        let result = try StrataRunner.run(["fetch", "Author", "--store", store, "--model", model, "--select", "name,ownBooks", "--format", "json"])
        #expect(result.status == 0, "\(result.standardError)")
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [[String: Any]])
        #expect(rows.count == 1)
        #expect(rows.first?["name"] as? String == "Le Guin")
        #expect((rows.first?["ownBooks"] as? [String])?.sorted() == ["x-coredata://\(uuid)/Book/p1", "x-coredata://\(uuid)/Book/p2"])
        let table = try StrataRunner.run(["fetch", "Author", "--store", store, "--model", model, "--select", "ownBooks"])
        #expect(table.status == 0, "\(table.standardError)")
        #expect(table.standardOutput.contains("Book/p1") && table.standardOutput.contains("Book/p2") && !table.standardOutput.contains("Book/p3"))
    }

    @Test func aFetchedPropertyThatCannotBeEvaluatedIsADataErrorNamingIt() throws {
        let folder = try TemporaryFolder()
        let (store, model, _) = try library(folder)
        let result = try StrataRunner.run(["fetch", "Author", "--store", store, "--model", model, "--select", "broken"])
        #expect(result.status == 3)
        #expect(result.standardError.contains("Author.broken (fetched property, fetching Book): $FETCH_SOURCE.nme cannot be read on the object"), "\(result.standardError)")
        #expect(result.standardError.contains("  name == $FETCH_SOURCE.nme\n          ^"), "\(result.standardError)")
    }

    @Test func aStoreLackingColumnsIsInspectedWithAWarningAndReadWhereItCanBe() throws {
        let folder = try TemporaryFolder()
        let (store, model, _) = try library(folder)
        let database = try Database(path: store)
        try database.execute("ALTER TABLE ZBOOK DROP COLUMN ZISBN")
        database.close()

        let inspected = try StrataRunner.run(["inspect", "--store", store, "--model", model])
        #expect(inspected.status == 0, "\(inspected.standardError)")
        #expect(inspected.standardOutput.contains("warning     table ZBOOK has no column ZISBN for attribute Book.isbn"), "\(inspected.standardOutput)")
        #expect(inspected.standardOutput.contains("the model matches the store; but its tables lack 1 column the model names"))
        #expect(inspected.standardError.contains("ZBOOK.ZISBN (attribute Book.isbn)"), "\(inspected.standardError)")
        let json = try StrataRunner.run(["inspect", "--store", store, "--model", model, "--format", "json"])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
        let missing = ((report["model"] as? [String: Any])?["missingColumns"] as? [[String: String]]) ?? []
        #expect(missing == [["table": "ZBOOK", "column": "ZISBN", "entity": "Book", "property": "isbn", "kind": "attribute"]])

        let names = try StrataRunner.run(["fetch", "Book", "--store", store, "--model", model, "--select", "name", "--sort", "name"])
        #expect(names.status == 0, "\(names.standardError)")
        #expect(names.standardOutput.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.suffix(3) == ["Dune", "Earthsea", "Tombs"])
        // By default, the columns the store holds; chosen, a missing one is named.
        let held = try StrataRunner.run(["fetch", "Book", "--store", store, "--model", model, "--sort", "name", "--format", "json"])
        #expect(held.status == 0, "\(held.standardError)")
        let books = try #require(try JSONSerialization.jsonObject(with: Data(held.standardOutput.utf8)) as? [[String: Any]])
        #expect(books.map { $0["name"] as? String } == ["Dune", "Earthsea", "Tombs"])
        #expect(books.first.map { Set($0.keys) } == ["uri", "name", "author"])
        let chosen = try StrataRunner.run(["fetch", "Book", "--store", store, "--model", model, "--select", "name,isbn"])
        #expect(chosen.status == 3)
        #expect(chosen.standardError.contains("Book.isbn cannot be read or written: the store's table ZBOOK has no column ZISBN"), "\(chosen.standardError)")
        #expect(!chosen.standardError.contains("no such column"))
        let filtered = try StrataRunner.run(["count", "Book", "--store", store, "--model", model, "--where", "isbn == nil"])
        #expect(filtered.status == 3)
        #expect(filtered.standardError.contains("Book.isbn cannot be read or written"), "\(filtered.standardError)")
    }
}
