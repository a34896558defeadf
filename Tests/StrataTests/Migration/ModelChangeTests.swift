import Foundation
import Testing
@testable import Strata

/// The changes of a migration plan are values a program matches on, and the plan prints each
/// as the line `strata migrate --dry-run` has always shown.
@Suite struct ModelChangeTests {
    static let before = #"""
        {"entities": [
          {"name": "Author", "attributes": [{"name": "name", "type": "string"}],
           "relationships": [{"name": "books", "destination": "Book", "inverse": "author", "toMany": true}]},
          {"name": "Book", "attributes": [{"name": "title", "type": "string", "optional": true}, {"name": "pages", "type": "integer16", "optional": false},
                                          {"name": "note", "type": "string"}],
           "relationships": [{"name": "author", "destination": "Author", "inverse": "books"}]},
          {"name": "Shelf", "attributes": [{"name": "label", "type": "string"}]}
        ]}
        """#
    static let after = #"""
        {"entities": [
          {"name": "Author", "attributes": [{"name": "name", "type": "string"}],
           "relationships": [{"name": "books", "destination": "Book", "inverse": "author", "toMany": true, "ordered": true}]},
          {"name": "Book", "attributes": [{"name": "heading", "type": "string", "renamingIdentifier": "title", "optional": false, "default": "untitled"},
                                          {"name": "pages", "type": "integer64", "optional": true}, {"name": "isbn", "type": "string"}],
           "relationships": [{"name": "author", "destination": "Author", "inverse": "books"}]},
          {"name": "Genre", "attributes": [{"name": "name", "type": "string"}]}
        ]}
        """#

    @Test func aMappingListsEachChangeAsAValueNamingTheEntityAndProperty() throws {
        let mapping = try ModelMapping(
            from: JSONModelReader.read(Data(Self.before.utf8), path: "v1"), to: JSONModelReader.read(Data(Self.after.utf8), path: "v2"))
        #expect(Set(mapping.changes) == [
            .relationshipOrderingChanged(entity: "Author", relationship: "books", isOrdered: true),
            .propertyRenamed(entity: "Book", from: "title", to: "heading"),
            .attributeBecameRequired(entity: "Book", attribute: "heading", defaultValue: .string("untitled")),
            .attributeTypeChanged(entity: "Book", attribute: "pages", from: .integer16, to: .integer64),
            .attributeBecameOptional(entity: "Book", attribute: "pages"),
            .attributeAdded(entity: "Book", attribute: "isbn", defaultValue: nil, isOptional: true),
            .attributeRemoved(entity: "Book", attribute: "note"),
            .entityAdded("Genre"),
            .entityRemoved("Shelf"),
        ])
        #expect(mapping.changes.compactMap(\.removedProperty) == ["Book.note"])
    }

    @Test func eachChangePrintsTheLineOfAPlan() {
        let lines: [ModelChange: String] = [
            .entityRenamed(from: "Publisher", to: "Imprint"): "entity Publisher renamed to Imprint",
            .entityRemoved("Shelf"): "entity Shelf removed, with its objects",
            .attributeAdded(entity: "Item", attribute: "code", defaultValue: nil, isOptional: false):
                "Item.code added, required with no default: the entity must have no objects",
            .attributeAdded(entity: "Item", attribute: "size", defaultValue: .integer(3), isOptional: false): "Item.size added, filled with its default 3",
            .attributeTypeChanged(entity: "Book", attribute: "pages", from: .integer16, to: .string): "Book.pages: Integer 16 → String",
            .attributeBecameRequired(entity: "Book", attribute: "title", defaultValue: nil): "Book.title becomes required, with no default: no object may be nil",
            .relationshipCardinalityChanged(entity: "Book", relationship: "authors", isToMany: false):
                "Book.authors: to-many → to-one; no object may hold several",
            .relationshipInverseChanged(entity: "Book", relationship: "shelf", from: nil, to: "books"): "Book.shelf: inverse none → books",
            .relationshipRetargeted(entity: "Show", relationship: "images", destination: "Shot", destinationIsNew: false, previous: "images", previousDestination: "Image"):
                "Show.images now points to Shot, whose objects are not those it held (Image): it starts empty, and no object may hold any in images",
        ]
        for (change, line) in lines { #expect(change.description == line) }
    }

    /// The dropped values are counted by the removed property the value names, not by the
    /// wording of its line.
    @Test func aPlanStepSaysHowItIsCarriedOutAndWhatItDrops() throws {
        let fixture = try MigrationFixture(versions: [("V1", Self.before), ("V2", Self.after)]) { context in
            try context.make("Book", ["title": "Dune", "pages": 412, "note": "signed"])
            try context.make("Book", ["title": "Emma", "pages": 474])
        }
        let plan = try fixture.migrator().plan()
        let step = try #require(plan.steps.first)
        #expect(step.kind == .inferred)
        #expect(step.sourceVersion == "V1" && step.destinationVersion == "V2")
        #expect(step.droppedValueCounts["Book.note"] == 1)
        #expect(step.description.contains("  - Book.note removed, dropping 1 value\n"))
    }
}
