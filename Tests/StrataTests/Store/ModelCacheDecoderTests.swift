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

extension ModelCacheDecoderTests {
    /// A sub-entity in a model cache, archived as Core Data archived the CoreDataPlus stores
    /// (`SampleModel_V1.sqlite`): each entity's property dictionary holds its own copy of every
    /// inherited property, whose `NSEntity` names the sub-entity, not the ancestor.
    @Suite struct Subentities {
        /// Appends archive objects and hands back their UIDs.
        struct Builder {
            var objects: [PropertyListValue] = [.string("$null")]
            mutating func add(_ object: PropertyListValue) -> PropertyListValue {
                objects.append(object)
                return .uid(UInt64(objects.count - 1))
            }
            mutating func `class`(_ name: String) -> PropertyListValue {
                add(.dictionary(["$classname": .string(name), "$classes": .array([.string(name)])]))
            }
            mutating func dictionary(_ pairs: [(String, PropertyListValue)]) -> PropertyListValue {
                var keys: [PropertyListValue] = []
                for pair in pairs { keys.append(add(.string(pair.0))) }
                let type = `class`("NSDictionary")
                return add(.dictionary(["$class": type, "NS.keys": .array(keys), "NS.objects": .array(pairs.map(\.1))]))
            }
            mutating func array(_ elements: [PropertyListValue]) -> PropertyListValue {
                let type = `class`("NSArray")
                return add(.dictionary(["$class": type, "NS.objects": .array(elements)]))
            }
        }

        /// `Car` (maker, a String, and `numberPlate`, unique), its sub-entity `SportCar` and its
        /// sub-entity `ExpensiveSportCar` with its own `isLimitedEdition`; `copyType` is the type
        /// of `ExpensiveSportCar`'s copy of `maker`.
        static func archive(copyType: Int64 = 700) -> PropertyListValue {
            var builder = Builder()
            let model = builder.add(.string("placeholder"))  // the root, filled in last
            let entityClass = builder.class("NSEntityDescription"), attributeClass = builder.class("NSAttributeDescription")
            var entityUIDs: [String: PropertyListValue] = [:]
            for name in ["Car", "SportCar", "ExpensiveSportCar"] { entityUIDs[name] = builder.add(.string("placeholder")) }
            func attribute(_ name: String, _ type: Int64, of entity: String, optional: Bool = true) -> PropertyListValue {
                let propertyName = builder.add(.string(name))
                var fields: [String: PropertyListValue] = [
                    "$class": attributeClass, "NSPropertyName": propertyName, "NSAttributeType": .integer(type),
                    "NSEntity": entityUIDs[entity]!, "NSFlagsKey": .integer(0),
                ]
                if optional { fields["NSIsOptional"] = .bool(true) }
                return builder.add(.dictionary(fields))
            }
            let lineage = ["Car": (nil as String?, [("maker", 700), ("numberPlate", 700)]),
                           "SportCar": ("Car", [("maker", 700), ("numberPlate", 700)]),
                           "ExpensiveSportCar": ("SportCar", [("isLimitedEdition", 800), ("maker", copyType), ("numberPlate", 700)])]
            var entityObjects: [String: [String: PropertyListValue]] = [:]
            for (name, (parent, properties)) in lineage {
                let pairs = properties.map { ($0.0, attribute($0.0, Int64($0.1), of: name, optional: $0.0 != "numberPlate")) }
                let dictionary = builder.dictionary(pairs)
                let entityName = builder.add(.string(name))
                var fields: [String: PropertyListValue] = [
                    "$class": entityClass, "NSEntityName": entityName, "NSProperties": dictionary,
                    "NSSuperentity": parent.map { entityUIDs[$0]! } ?? .uid(0),
                ]
                if name == "Car" {
                    let property = builder.add(.string("numberPlate"))
                    let tuple = builder.array([property])
                    fields["NSUniqueTuples"] = builder.array([tuple])
                }
                entityObjects[name] = fields
            }
            var objects = builder.objects
            for (name, fields) in entityObjects {
                guard case .uid(let index) = entityUIDs[name]! else { continue }
                objects[Int(index)] = .dictionary(fields)
            }
            var rootBuilder = Builder(objects: objects)
            let entityPairs = ["Car", "SportCar", "ExpensiveSportCar"].map { ($0, entityUIDs[$0]!) }
            let entities = rootBuilder.dictionary(entityPairs)
            let modelClass = rootBuilder.class("NSManagedObjectModel")
            objects = rootBuilder.objects
            guard case .uid(let root) = model else { return .string("") }
            objects[Int(root)] = .dictionary(["$class": modelClass, "NSEntities": entities])
            return .dictionary([
                "$archiver": .string("NSKeyedArchiver"), "$version": .integer(100000), "$top": .dictionary(["root": model]),
                "$objects": .array(objects),
            ])
        }

        @Test func inheritedCopiesStayOnTheEntityThatDeclaresThem() throws {
            let model = try ModelCacheDecoder.model(fromArchive: Self.archive())
            #expect(model.validate().filter { $0.severity == .error }.isEmpty)
            #expect(model.entity(named: "Car")?.attributes.map(\.name) == ["maker", "numberPlate"])
            #expect(model.entity(named: "Car")?.uniquenessConstraints == [["numberPlate"]])
            #expect(model.entity(named: "SportCar")?.attributes.map(\.name) == [])
            #expect(model.entity(named: "ExpensiveSportCar")?.attributes.map(\.name) == ["isLimitedEdition"])
            #expect(model.entity(named: "ExpensiveSportCar")?.superentityName == "SportCar")
        }

        /// The same model written by hand hashes as the decoded one: the decoder neither drops nor
        /// doubles an inherited property, and reads the constraint from `NSUniqueTuples`.
        @Test func theDecodedHierarchyHashesAsTheModelItDescribes() throws {
            let decoded = try ModelCacheDecoder.model(fromArchive: Self.archive())
            var car = EntityDescription(name: "Car")
            car.attributes = [AttributeDescription(name: "maker", type: .string), AttributeDescription(name: "numberPlate", type: .string)]
            car.attributes[1].isOptional = false
            car.uniquenessConstraints = [["numberPlate"]]
            var sportCar = EntityDescription(name: "SportCar")
            sportCar.superentityName = "Car"
            var expensive = EntityDescription(name: "ExpensiveSportCar")
            expensive.superentityName = "SportCar"
            expensive.attributes = [AttributeDescription(name: "isLimitedEdition", type: .boolean)]
            #expect(decoded.entityVersionHashes() == ObjectModel(entities: [car, expensive, sportCar]).entityVersionHashes())
        }

        /// A copy that is not the inherited property (here a Date where the ancestor has a String)
        /// is a cache that contradicts itself: refused, naming the entity, property and parent.
        @Test func aCopyThatDiffersFromTheAncestorsIsRefused() {
            #expect {
                _ = try ModelCacheDecoder.model(fromArchive: Self.archive(copyType: 900))
            } throws: { error in
                let message = (error as? KeyedArchive.Failure)?.message ?? ""
                return message.contains("'ExpensiveSportCar'") && message.contains("'maker'") && message.contains("'SportCar'")
            }
        }

        /// An unbounded to-many archived as NSMaxCount -1 (the SampleModel2 stores) is read as
        /// UInt32.max, which hashes as Core Data hashed it, rather than refused as out of range.
        @Test func aMaxCountOfMinusOneIsUInt32Max() throws {
            var builder = Builder()
            let model = builder.add(.string("placeholder"))
            let entity = builder.add(.string("placeholder"))
            let relationshipClass = builder.class("NSRelationshipDescription"), books = builder.add(.string("books"))
            let author = builder.add(.string("Author"))
            let relationship = builder.add(.dictionary([
                "$class": relationshipClass, "NSPropertyName": books, "NSEntity": entity, "NSMaxCount": .integer(-1),
                "NSMinCount": .integer(0), "NSIsOptional": .bool(true), "_NSDestinationEntityName": author, "_NSInverseRelationshipName": books,
            ]))
            let properties = builder.dictionary([("books", relationship)])
            let entityClass = builder.class("NSEntityDescription")
            let entityFields: [String: PropertyListValue] = ["$class": entityClass, "NSEntityName": author, "NSProperties": properties]
            let entities = builder.dictionary([("Author", entity)])
            let modelClass = builder.class("NSManagedObjectModel")
            let modelFields: [String: PropertyListValue] = ["$class": modelClass, "NSEntities": entities]
            builder.objects[2] = .dictionary(entityFields)
            builder.objects[1] = .dictionary(modelFields)
            let decoded = try ModelCacheDecoder.model(fromArchive: .dictionary([
                "$archiver": .string("NSKeyedArchiver"), "$version": .integer(100000), "$top": .dictionary(["root": model]),
                "$objects": .array(builder.objects),
            ]))
            let decodedBooks = try #require(decoded.entity(named: "Author")?.relationship(named: "books"))
            #expect(decodedBooks.maxCount == Int(UInt32.max))
            #expect(decodedBooks.isToMany)
            #expect(decoded.validate().filter { $0.severity == .error }.isEmpty)
        }
    }
}
