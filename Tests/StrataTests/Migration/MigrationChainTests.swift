import Foundation
import Testing
@testable import Strata

/// Migration straight to a version and through a route of versions written here, and the
/// changes a migration refuses, each leaving the store as it was.
@Suite struct MigrationChainTests {
    static let version1 = """
        {"entities": [
          {"name": "Author", "attributes": [{"name": "name", "type": "string"}, {"name": "born", "type": "integer16"}, {"name": "rating", "type": "integer32"}],
           "relationships": [{"name": "books", "destination": "Book", "inverse": "author", "toMany": true}]},
          {"name": "Book", "attributes": [{"name": "title", "type": "string"}, {"name": "pages", "type": "integer16"}],
           "relationships": [{"name": "author", "destination": "Author", "inverse": "books"}]}
        ]}
        """
    /// Renames title to name, widens pages, makes born required with a default, rating a
    /// Double, and adds an attribute and an entity.
    static let version2 = """
        {"entities": [
          {"name": "Author", "attributes": [{"name": "name", "type": "string"}, {"name": "born", "type": "integer16", "optional": false, "default": "1900"},
             {"name": "rating", "type": "double"}],
           "relationships": [{"name": "books", "destination": "Book", "inverse": "author", "toMany": true}]},
          {"name": "Book", "attributes": [{"name": "name", "type": "string", "renamingIdentifier": "title"}, {"name": "pages", "type": "integer64"},
             {"name": "isbn", "type": "string"}],
           "relationships": [{"name": "author", "destination": "Author", "inverse": "books"}]},
          {"name": "Publisher", "attributes": [{"name": "name", "type": "string"}]}
        ]}
        """
    /// Splits the to-one author into an ordered to-many, turns pages into text, and renames
    /// Publisher to Imprint.
    static let version3 = """
        {"entities": [
          {"name": "Author", "attributes": [{"name": "name", "type": "string"}, {"name": "born", "type": "integer16", "optional": false, "default": "1900"},
             {"name": "rating", "type": "double"}],
           "relationships": [{"name": "books", "destination": "Book", "inverse": "authors", "toMany": true}]},
          {"name": "Book", "attributes": [{"name": "name", "type": "string", "renamingIdentifier": "title"}, {"name": "pages", "type": "string"},
             {"name": "isbn", "type": "string"}],
           "relationships": [{"name": "authors", "destination": "Author", "inverse": "books", "toMany": true, "ordered": true, "renamingIdentifier": "author"}]},
          {"name": "Imprint", "renamingIdentifier": "Publisher", "attributes": [{"name": "name", "type": "string"}]}
        ]}
        """

    static func library() throws -> MigrationFixture {
        try MigrationFixture(versions: [("Library", version1), ("Library 2", version2), ("Library 10", version3)]) { context in
            let leGuin = try context.make("Author", ["name": "Le Guin", "born": 1929, "rating": 5])
            let herbert = try context.make("Author", ["name": "Herbert", "rating": 4])
            try context.make("Author", ["name": "Nobody"])
            try context.make("Book", ["title": "Earthsea", "pages": 183, "author": leGuin])
            try context.make("Book", ["title": "Tombs", "pages": 160, "author": leGuin])
            try context.make("Book", ["title": "Dune", "pages": 412, "author": herbert])
            try context.make("Book", ["title": "Orphan"])
        }
    }

    /// What the library's store holds after either route to Library 10.
    static func expectMigratedLibrary(_ fixture: MigrationFixture) throws {
        try fixture.read { context in
            let authors = try context.all("Author", by: "name")
            #expect(try authors.map { try $0.attributeValue(forKey: "born") } == [.integer(1900), .integer(1929), .integer(1900)], "nil takes the default")
            #expect(try authors.map { try $0.attributeValue(forKey: "rating") } == [.double(4), .double(5), nil])
            let books = try context.all("Book", by: "name")
            #expect(try books.map { try $0.attributeValue(forKey: "name") } == ["Dune", "Earthsea", "Orphan", "Tombs"].map { .string($0) })
            #expect(try books.map { try $0.attributeValue(forKey: "pages") } == [.string("412"), .string("183"), nil, .string("160")])
            #expect(try books.map { try $0.objects(forKey: "authors").map { try $0.attributeValue(forKey: "name") } }
                == [[.string("Herbert")], [.string("Le Guin")], [], [.string("Le Guin")]])
            #expect(try authors[1].objects(forKey: "books").count == 2, "the inverse follows")
            // Keys go on after the largest the old store handed out.
            let added = try context.make("Book", ["name": "New"])
            try context.save()
            #expect((added.objectID.primaryKey ?? 0) > 4)
        }
    }

    /// As Core Data's automatic migration: one step inferred from the store's version to the
    /// destination, whatever lies between.
    @Test func migratesStraightToTheDestinationInOneStep() throws {
        let fixture = try Self.library()
        let plan = try fixture.migrator().plan()
        #expect(plan.steps.map(\.name) == ["Library → Library 10"])
        #expect(plan.description.hasPrefix("\(fixture.path): from Library to Library 10 in 1 step\n"))
        let changes = plan.steps[0].mapping.changes
        for change: ModelChange in [
            .propertyRenamed(entity: "Book", from: "title", to: "name"), .attributeTypeChanged(entity: "Book", attribute: "pages", from: .integer16, to: .string),
            .propertyRenamed(entity: "Book", from: "author", to: "authors"), .relationshipCardinalityChanged(entity: "Book", relationship: "authors", isToMany: true),
            .entityAdded("Imprint"),
        ] {
            #expect(changes.contains(change), "\(changes)")
        }
        let result = try fixture.migrator().migrate(plan)
        #expect(result.counts == ["Author": 3, "Book": 4, "Imprint": 0])
        try Self.expectMigratedLibrary(fixture)
    }

    @Test func aRouteMigratesThroughTheVersionsItNames() throws {
        let fixture = try Self.library()
        let plan = try fixture.migrator(through: ["Library 2"]).plan()
        #expect(plan.steps.map(\.name) == ["Library → Library 2", "Library 2 → Library 10"])
        #expect(plan.description.hasPrefix("\(fixture.path): from Library to Library 10 in 2 steps, through Library 2\n"))
        #expect(plan.steps[0].mapping.changes.contains(.attributeTypeChanged(entity: "Book", attribute: "pages", from: .integer16, to: .integer64)))
        #expect(plan.steps[1].mapping.changes.contains(.entityRenamed(from: "Publisher", to: "Imprint")))
        let result = try fixture.migrator(through: ["Library 2"]).migrate(plan)
        #expect(result.counts == ["Author": 3, "Book": 4, "Imprint": 0])
        try Self.expectMigratedLibrary(fixture)
        #expect(throws: MigrationError.self) { try fixture.migrator(through: ["Library 7"]) }
    }

    /// Regression: versions were stepped through in name order, so a version removing an
    /// entity that a later one adds back lost its objects; straight to the destination, they
    /// stay, and version names play no part.
    @Test func anEntityThatAVersionBetweenRemovesKeepsItsObjects() throws {
        let withNote = #"{"entities": [{"name": "Item", "attributes": [{"name": "code", "type": "string"}]}, {"name": "Note", "attributes": [{"name": "text", "type": "string"}]}]}"#
        let withoutNote = #"{"entities": [{"name": "Item", "attributes": [{"name": "code", "type": "string"}]}]}"#
        let back = #"{"entities": [{"name": "Item", "attributes": [{"name": "code", "type": "string"}, {"name": "size", "type": "integer32"}]}, {"name": "Note", "attributes": [{"name": "text", "type": "string"}]}]}"#
        let fixture = try MigrationFixture(versions: [("Zeta", withNote), ("Alpha", withoutNote), ("Beta", back)]) { context in
            try context.make("Note", ["text": "kept"])
        }
        let result = try fixture.migrator().migrate()
        #expect(result.plan.steps.map(\.name) == ["Zeta → Beta"])
        #expect(result.counts["Note"] == 1)
        #expect(try fixture.read { try $0.all("Note", by: "text").map { try $0.attributeValue(forKey: "text") } } == [.string("kept")])
    }

    // Stores whose version identifier sorts after the destination's: MigrationVersionIdentifierTests.

    /// A model change a migration refuses: the store stays byte for byte, and no file is left.
    static func expectRefusal(from old: String, to new: String, seed: (ObjectContext) throws -> Void, message: String) throws {
        let fixture = try MigrationFixture(versions: [("V1", old), ("V2", new)], seed: seed)
        let before = try fixture.bytes()
        #expect {
            try fixture.migrator().migrate()
        } throws: { error in
            let text = "\(error)"
            #expect(text.contains(message), "\(text)")
            return error is MigrationError
        }
        #expect(try fixture.bytes() == before)
        #expect(try fixture.otherFiles() == [])
    }

    @Test func aLossyTypeChangeIsRefused() throws {
        try Self.expectRefusal(
            from: #"{"entities": [{"name": "Item", "attributes": [{"name": "score", "type": "double"}]}]}"#,
            to: #"{"entities": [{"name": "Item", "attributes": [{"name": "score", "type": "integer32"}]}]}"#,
            seed: { try $0.make("Item", ["score": 1.5]) },
            message: "Item.score: Double → Integer 32 would lose values")
    }

    @Test func aRequiredAttributeWithoutDefaultOnObjectsWithoutValueIsRefused() throws {
        try Self.expectRefusal(
            from: #"{"entities": [{"name": "Item", "attributes": [{"name": "code", "type": "string"}]}]}"#,
            to: #"{"entities": [{"name": "Item", "attributes": [{"name": "code", "type": "string", "optional": false}]}]}"#,
            seed: { context in
                try context.make("Item", ["code": "a"])
                try context.make("Item", [:])
            },
            message: "Item.code is required and has no default value, but 1 object has no value for it (p2)")
    }

    @Test func aNewUniquenessConstraintThatTheDataBreaksIsRefused() throws {
        try Self.expectRefusal(
            from: #"{"entities": [{"name": "Item", "attributes": [{"name": "code", "type": "string"}]}]}"#,
            to: #"{"entities": [{"name": "Item", "attributes": [{"name": "code", "type": "string"}], "uniquenessConstraints": [["code"]]}]}"#,
            seed: { context in
                for code in ["a", "b", "a", "c", "b", "a"] { try context.make("Item", ["code": code]) }
            },
            message: "Item (code) must be unique, but 2 values are held by several objects ('a': 3 objects; 'b': 2 objects)")
    }

    @Test func aToManyThatBecomesToOneMustHoldOneObject() throws {
        let old = """
            {"entities": [{"name": "Shelf", "attributes": [{"name": "label", "type": "string"}],
               "relationships": [{"name": "items", "destination": "Item", "inverse": "shelves", "toMany": true}]},
              {"name": "Item", "attributes": [{"name": "code", "type": "string"}],
               "relationships": [{"name": "shelves", "destination": "Shelf", "inverse": "items", "toMany": true}]}]}
            """
        let new = old.replacingOccurrences(of: #"{"name": "shelves", "destination": "Shelf", "inverse": "items", "toMany": true}"#,
            with: #"{"name": "shelf", "renamingIdentifier": "shelves", "destination": "Shelf", "inverse": "items"}"#)
            .replacingOccurrences(of: #""inverse": "shelves""#, with: #""inverse": "shelf""#)
        try Self.expectRefusal(from: old, to: new, seed: { context in
            let shelves = try (1...2).map { try context.make("Shelf", ["label": "s\($0)"]) }
            try context.make("Item", ["code": "both", "shelves": shelves])
            try context.make("Item", ["code": "one", "shelves": [shelves[0]]])
        }, message: "Item.shelf becomes to-one, but 1 object holds several (p1: 2 objects)")

        // With one shelf each, the links carry over.
        let fixture = try MigrationFixture(versions: [("V1", old), ("V2", new)]) { context in
            let shelf = try context.make("Shelf", ["label": "s"])
            try context.make("Item", ["code": "x", "shelves": [shelf]])
            try context.make("Item", ["code": "y"])
        }
        try fixture.migrator().migrate()
        try fixture.read { context in
            let items = try context.all("Item", by: "code")
            #expect(try items.map { try ($0.value(forKey: "shelf") as? ManagedObject)?.attributeValue(forKey: "label") } == [.string("s"), nil])
        }
    }

    @Test func aStackMigratesAStoreOfAnEarlierVersionOfItsBundle() throws {
        let fixture = try Self.library()
        var options = DataStack.Options()
        options.modelVersions = fixture.bundle
        let stack = try DataStack(model: fixture.bundle.currentVersion.model, store: .sqlite(URL(fileURLWithPath: fixture.path)), options: options)
        #expect(stack.store.comparison.isMatch && !stack.createdStore)
        #expect(try stack.store.count(of: "Book") == 4)
        #expect(try fixture.otherFiles().contains { $0.hasSuffix(".bak") }, "the old store is kept")
        stack.store.close()

        // Without the bundle, the stack knows no version that made the store.
        let other = try Self.library()
        #expect {
            _ = try DataStack(model: other.bundle.currentVersion.model, store: .sqlite(URL(fileURLWithPath: other.path)))
        } throws: { error in
            "\(error)".contains("cannot find the model the store was made with: it is none of the versions")
        }
    }

    @Test func aRefusalInALaterStepNamesTheStoreAndLeavesItAsItWas() throws {
        let v1 = #"{"entities": [{"name": "Item", "attributes": [{"name": "code", "type": "string"}]}]}"#
        let v2 = #"{"entities": [{"name": "Item", "attributes": [{"name": "code", "type": "string"}, {"name": "note", "type": "string"}]}]}"#
        let v3 = #"{"entities": [{"name": "Item", "attributes": [{"name": "code", "type": "string", "optional": false}, {"name": "note", "type": "string"}]}]}"#
        let fixture = try MigrationFixture(versions: [("V1", v1), ("V2", v2), ("V3", v3)]) { try $0.make("Item", [:]) }
        let before = try fixture.bytes()
        #expect {
            try fixture.migrator(through: ["V2"]).migrate()
        } throws: { error in
            "\(error)".hasPrefix("\(fixture.path): the store's data does not fit V2 → V3:\n  Item.code is required")
        }
        #expect(try fixture.bytes() == before)
        #expect(try fixture.otherFiles() == [], "the first step's file is gone too")
    }

    @Test func aCustomStepRunsOnTheCopyAndItsFailureLeavesTheStore() throws {
        struct Refused: Error {}
        let fixture = try Self.library()
        let before = try fixture.bytes()
        #expect {
            try fixture.migrator().migrate(customStep: { _ in throw Refused() })
        } throws: { error in
            if case .customStepFailed(let path, let inner) = error as? MigrationError { return path == fixture.path && inner is Refused }
            return false
        }
        #expect(try fixture.bytes() == before)
        #expect(try fixture.otherFiles() == [])
        // A step that adds an object: the result counts what the copy holds after it.
        let result = try fixture.migrator().migrate(customStep: { path in
            let store = try PersistentStore.open(at: path, model: fixture.bundle.currentVersion.model)
            defer { store.close() }
            let context = ObjectContext(store: store)
            try context.performAndWait {
                try context.make("Book", ["name": "Added by the step"])
                try context.save()
            }
        })
        #expect(result.counts["Book"] == 5)
        #expect(try fixture.read { try $0.count(for: FetchRequest(entityName: "Book")) } == 5)
    }
}
