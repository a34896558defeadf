import Foundation
import Strata

/// The small model the predicate and JSON import targets run against, so that fuzzed input
/// can name real entities, attributes and relationships: an attribute of every storable type
/// (`Author`), to-one and to-many relationships, an ordered to-many, a self-relationship, a
/// sub-entity (`EBook`), and an identity attribute per entity (`remoteID`, fed by the JSON key
/// `id`; `bookID`; `Tag`'s uniqueness constraint on `name`).
public enum FuzzModel {
    /// The model in Strata's JSON model format; the seed corpora and dictionaries use its names.
    public static let json = """
        {"entities": [
          {"name": "Author",
           "attributes": [
             {"name": "remoteID", "type": "integer64"}, {"name": "name", "type": "string"},
             {"name": "age", "type": "integer16"}, {"name": "count", "type": "integer32"},
             {"name": "price", "type": "decimal"}, {"name": "score", "type": "double"},
             {"name": "ratio", "type": "float"}, {"name": "active", "type": "boolean"},
             {"name": "born", "type": "date"}, {"name": "photo", "type": "binary"},
             {"name": "token", "type": "uuid"}, {"name": "site", "type": "uri"}],
           "relationships": [
             {"name": "books", "destination": "Book", "inverse": "author", "toMany": true, "deleteRule": "cascade"},
             {"name": "mentor", "destination": "Author", "inverse": "students"},
             {"name": "students", "destination": "Author", "inverse": "mentor", "toMany": true}]},
          {"name": "Book",
           "attributes": [
             {"name": "bookID", "type": "integer64"}, {"name": "title", "type": "string"},
             {"name": "rating", "type": "double"}, {"name": "published", "type": "date"}],
           "relationships": [
             {"name": "author", "destination": "Author", "inverse": "books"},
             {"name": "tags", "destination": "Tag", "inverse": "books", "toMany": true},
             {"name": "pages", "destination": "Page", "inverse": "book", "toMany": true, "ordered": true, "deleteRule": "cascade"}]},
          {"name": "EBook", "parent": "Book",
           "attributes": [{"name": "format", "type": "string"}, {"name": "fileSize", "type": "integer64"}]},
          {"name": "Tag", "attributes": [{"name": "name", "type": "string"}], "uniquenessConstraints": [["name"]],
           "relationships": [{"name": "books", "destination": "Book", "inverse": "tags", "toMany": true}]},
          {"name": "Page", "attributes": [{"name": "number", "type": "integer32"}, {"name": "text", "type": "string"}],
           "relationships": [{"name": "book", "destination": "Book", "inverse": "pages"}]}
        ]}
        """

    /// The entities of the model, the root ones first.
    public static let entityNames = ["Author", "Book", "EBook", "Tag", "Page"]

    /// The model read from ``json``; a failure is a bug of the harness, so it traps.
    public static let model: ObjectModel = {
        do {
            return try JSONModelReader.read(Data(json.utf8), path: "FuzzModel.json")
        } catch {
            fatalError("the fuzz model does not read: \(error)")
        }
    }()

    /// A new stack on an empty store in memory, and its root context (on the store, on a
    /// private queue); ``DataStack/cleanUp()`` closes the store.
    public static func newStack() -> (stack: DataStack, context: ObjectContext) {
        do {
            let stack = try DataStack(model: model, modelName: "Fuzz", store: .inMemory)
            return (stack, stack.rootContext)
        } catch {
            fatalError("cannot create the fuzz store: \(error)")
        }
    }

    /// libFuzzer's bytes as text; invalid UTF-8 becomes U+FFFD, as a file read as text would.
    public static func text(_ data: UnsafePointer<UInt8>, _ size: Int) -> String {
        String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    }
}
