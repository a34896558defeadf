import Foundation
import Testing
@testable import Strata
import StrataTestSupport

/// An abstract entity has no objects of its own: Core Data refuses to insert one, and so does
/// every way into Strata (issue 32).
@Suite struct AbstractEntityTests {
    static let model: ObjectModel = {
        var shape = EntityDescription(name: "Shape")
        shape.isAbstract = true
        shape.attributes = [AttributeDescription(name: "name", type: .string)]
        var circle = EntityDescription(name: "Circle")
        circle.superentityName = "Shape"
        var polygon = EntityDescription(name: "Polygon")
        polygon.superentityName = "Shape"
        polygon.isAbstract = true
        var square = EntityDescription(name: "Square")
        square.superentityName = "Polygon"
        return ObjectModel(entities: [shape, circle, polygon, square])
    }()

    @Test func insertingAnAbstractEntityIsRefusedNamingTheSubEntitiesToUse() throws {
        let folder = try TemporaryFolder()
        let store = try PersistentStore.create(at: folder.path("Shapes.sqlite"), model: Self.model)
        let context = ObjectContext(store: store)
        try context.performAndWait {
            #expect(throws: ContextError.abstractEntity("Shape", subentities: ["Circle", "Square"])) { try context.insert("Shape") }
            #expect(throws: ContextError.abstractEntity("Polygon", subentities: ["Square"])) { try context.insert("Polygon") }
            #expect(!context.hasChanges)
            try context.insert("Square").setValue("unit", forKey: "name")
            try context.save()
            #expect(try context.count(for: FetchRequest(entityName: "Shape")) == 1)
        }
        #expect(ContextError.abstractEntity("Shape", subentities: ["Circle", "Square"]).description
            == "entity 'Shape' is abstract: create an object of one of its sub-entities (Circle, Square)")
    }
}
