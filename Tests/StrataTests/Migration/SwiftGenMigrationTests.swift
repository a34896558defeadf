import Foundation
import Testing
@testable import Strata
import StrataTestSupport

/// The SwiftGen fixture bundle's two versions: a store seeded with `Model` migrates to
/// `Model 2` with every value both versions hold, and the data Model 2 cannot hold is refused.
@Suite(.enabled(if: Fixtures.available, Fixtures.skipReason))
struct SwiftGenMigrationTests {
    static func bundle() throws -> ModelBundle {
        try ModelLoader.load(Fixtures.model("SwiftGen.xcdatamodeld"))
    }

    /// A store of `Model` with two main objects (one with nil numbers) and a child.
    static func seededStore(in folder: TemporaryFolder, withSecondary: Bool = false) throws -> String {
        let path = folder.path("SwiftGen.sqlite")
        let store = try PersistentStore.create(at: path, model: try bundle().version(named: "Model").model)
        defer { store.close() }
        let context = ObjectContext(store: store)
        try context.performAndWait {
            let first = try context.insert("MainEntity")
            let values: [String: Any?] = [
                "binaryData": Data([1, 2, 3]), "boolean": true, "date": Date(timeIntervalSinceReferenceDate: 700_000_000.5),
                "decimal": Decimal(string: "12.25")!, "double": 2.5, "float": Float(1.5), "int16": 16, "int32": 32, "int64": Int64(1) << 40,
                "string": "first", "uri": URL(string: "https://example.com/a"), "uuid": UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!,
            ]
            for (key, value) in values { try first.setValue(value, forKey: key) }
            let second = try context.insert("MainEntity")
            try second.setValue(false, forKey: "boolean")
            try second.setValue("second", forKey: "string")
            for key in ["double", "float", "int16", "int32", "int64"] { try second.setValue(nil, forKey: key) }
            let child = try context.insert("ChildEntity")
            try child.setValue(true, forKey: "boolean")
            try child.setValue("child", forKey: "string")
            if withSecondary {
                let secondary = try context.insert("SecondaryEntity")
                try secondary.setValue(first, forKey: "oneToOne")
            }
            try context.save()
        }
        return path
    }

    static func checksum(_ path: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: path))
    }

    /// Every object's stored attributes by entity and key, read with `model`.
    static func objects(at path: String, model: ObjectModel) throws -> [String: [String: AttributeValue?]] {
        let store = try PersistentStore.open(at: path, model: model, configuration: .readOnly)
        defer { store.close() }
        let context = ObjectContext(store: store)
        return try context.performAndWait {
            var result: [String: [String: AttributeValue?]] = [:]
            for entity in model.entities where !entity.isAbstract {
                var request = FetchRequest(entityName: entity.name)
                request.includesSubentities = false
                for object in try context.fetch(request) {
                    let key = "\(entity.name) \(object.objectID.primaryKey ?? 0)"
                    for attribute in model.allAttributes(of: entity) where !attribute.isTransient {
                        result[key, default: [:]][attribute.name] = try object.attributeValue(forKey: attribute.name)
                    }
                }
            }
            return result
        }
    }

    @Test func aSeededStoreMigratesWithEveryValueBothVersionsHold() throws {
        let folder = try TemporaryFolder()
        let path = try Self.seededStore(in: folder)
        let bundle = try Self.bundle()
        let before = try Self.objects(at: path, model: bundle.version(named: "Model").model)
        let original = try Self.checksum(path)

        let migrator = try StoreMigrator(storePath: path, bundle: bundle)
        let plan = try migrator.plan()
        #expect(plan.steps.map(\.name) == ["Model → Model 2"])
        let changes = plan.steps[0].mapping.changes
        for expected: ModelChange in [
            .attributeRemoved(entity: "MainEntity", attribute: "color"), .relationshipOrderingChanged(entity: "MainEntity", relationship: "oneToMany", isOrdered: true),
            .attributeBecameRequired(entity: "MainEntity", attribute: "int16", defaultValue: .integer(0)),
            .attributeBecameRequired(entity: "MainEntity", attribute: "string", defaultValue: nil),
            .attributeAdded(entity: "SecondaryEntity", attribute: "name", defaultValue: nil, isOptional: false), .entityAdded("NewEntity"), .entityAdded("AbstractEntity"),
        ] {
            #expect(changes.contains(expected), "\(expected) in \(changes)")
        }
        let result = try migrator.migrate(plan)
        #expect(result.counts["MainEntity"] == 2 && result.counts["ChildEntity"] == 1)
        let backup = try #require(result.backupPath)
        #expect(try Self.checksum(backup) == original, "the backup is the old store")

        let model2 = try bundle.version(named: "Model 2").model
        let after = try Self.objects(at: path, model: model2)
        #expect(Set(after.keys) == Set(before.keys), "every object keeps its key")
        let main = try #require(model2.entity(named: "MainEntity"))
        for (object, values) in before {
            for (name, value) in values where name != "color" {
                let attribute = try #require(model2.attribute(named: name, in: main))
                if value == nil, !attribute.isOptional, let fill = attribute.defaultValue {
                    #expect(after[object]?[name] == AttributeValue(modelText: fill, type: attribute.type), "\(object).\(name): nil takes the default")
                } else {
                    #expect(after[object]?[name] == value, "\(object).\(name)")
                }
            }
            #expect(after[object]?["optionalInt32"] == .integer(0), "a new required attribute takes its default")
        }
        let reopened = try PersistentStore.open(at: path, model: model2)
        #expect(reopened.comparison.isMatch)
        reopened.close()
        #expect(try StoreMigrator(storePath: path, bundle: bundle).plan().isEmpty, "migrated once, nothing more to do")
    }

    @Test func secondaryObjectsWithoutTheNewRequiredNameAreRefusedAndTheStoreStays() throws {
        let folder = try TemporaryFolder()
        let path = try Self.seededStore(in: folder, withSecondary: true)
        let original = try Self.checksum(path)
        let migrator = try StoreMigrator(storePath: path, bundle: Self.bundle())
        #expect {
            try migrator.migrate()
        } throws: { error in
            "\(error)".contains("SecondaryEntity.name is required and has no default value, but 1 object has no value for it (p1)")
        }
        #expect(try Self.checksum(path) == original)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { $0 != "SwiftGen.sqlite" }
        #expect(leftovers.isEmpty, "\(leftovers)")
    }
}
