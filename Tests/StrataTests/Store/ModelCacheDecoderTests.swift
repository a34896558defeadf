import Foundation
import Testing
@testable import Strata

/// What the keyed archive in `Z_MODELCACHE` says of a property, read as Core Data wrote it.
@Suite struct ModelCacheDecoderTests {
    /// An archive of one entity `Note` with an optional `title` (which carries `NSIsOptional`, as
    /// every optional property of the Final Cut caches does) and a required `body` (which
    /// carries no such key).
    static var archive: PropertyListValue {
        let classes: [String: PropertyListValue] = [
            "model": .dictionary(["$classname": .string("NSManagedObjectModel"), "$classes": .array([.string("NSManagedObjectModel")])]),
            "entity": .dictionary(["$classname": .string("NSEntityDescription"), "$classes": .array([.string("NSEntityDescription")])]),
            "attribute": .dictionary(["$classname": .string("NSAttributeDescription"), "$classes": .array([.string("NSAttributeDescription")])]),
            "dictionary": .dictionary(["$classname": .string("NSDictionary"), "$classes": .array([.string("NSDictionary")])]),
        ]
        let objects: [PropertyListValue] = [
            .string("$null"),
            .dictionary(["$class": .uid(2), "NSEntities": .uid(3)]),  // 1 the model
            classes["model"]!,  // 2
            .dictionary(["$class": .uid(10), "NS.keys": .array([.uid(4)]), "NS.objects": .array([.uid(5)])]),  // 3 entities by name
            .string("Note"),  // 4
            .dictionary(["$class": .uid(11), "NSEntityName": .uid(4), "NSProperties": .uid(6)]),  // 5 the entity
            .dictionary(["$class": .uid(10), "NS.keys": .array([.uid(7), .uid(8)]), "NS.objects": .array([.uid(9), .uid(12)])]),  // 6
            .string("title"),  // 7
            .string("body"),  // 8
            .dictionary(["$class": .uid(13), "NSAttributeType": .integer(700), "NSIsOptional": .bool(true)]),  // 9 title
            classes["dictionary"]!,  // 10
            classes["entity"]!,  // 11
            .dictionary(["$class": .uid(13), "NSAttributeType": .integer(700)]),  // 12 body
            classes["attribute"]!,  // 13
        ]
        return .dictionary([
            "$archiver": .string("NSKeyedArchiver"), "$version": .integer(100000), "$top": .dictionary(["root": .uid(1)]),
            "$objects": .array(objects),
        ])
    }

    @Test func aPropertyWithoutNSIsOptionalIsRequired() throws {
        let model = try ModelCacheDecoder.model(fromArchive: Self.archive)
        let note = try #require(model.entity(named: "Note"))
        #expect(note.attribute(named: "title")?.isOptional == true)
        #expect(note.attribute(named: "body")?.isOptional == false)
    }
}
