import Foundation
import Testing
@testable import Strata

/// Attribute conversions and defaults, primary keys after hierarchies change, and the safety
/// of a migration: regressions from review, each with the case that showed it.
@Suite struct MigrationRegressionTests {
    // MARK: - Attributes

    /// every AttributeConversion, read back through a context.
    @Test func everyAttributeConversionKeepsTheValues() throws {
        let kinds: [(String, String, String)] = [
            ("i16", "integer16", "integer64"), ("b2i", "boolean", "integer32"), ("i2d", "integer32", "double"),
            ("i2f", "integer16", "float"), ("i2m", "integer64", "decimal"), ("f2d", "float", "double"),
            ("i2s", "integer64", "string"), ("d2s", "double", "string"), ("b2s", "boolean", "string"),
            ("t2s", "date", "string"), ("u2s", "uuid", "string"), ("x2s", "binary", "string"),
            ("m2s", "decimal", "string"), ("r2s", "uri", "string"), ("x2t", "binary", "transformable"),
        ]
        func model(_ index: Int) -> String {
            let attributes = kinds.map { #"{"name": "\#($0.0)", "type": "\#(index == 0 ? $0.1 : $0.2)"}"# }.joined(separator: ", ")
            return #"{"entities": [{"name": "Item", "attributes": [\#(attributes), {"name": "name", "type": "string"}]}]}"#
        }
        let uuid = UUID(uuidString: "12345678-90AB-CDEF-1234-567890ABCDEF")!
        let fixture = try MigrationFixture(versions: [("V1", model(0)), ("V2", model(1))]) { context in
            try context.make("Item", [
                "name": "a", "i16": 32000, "b2i": true, "i2d": 2_000_000_000, "i2f": -300, "i2m": 123_456_789_012, "f2d": 1.5,
                "i2s": -42, "d2s": 0.1, "b2s": false, "t2s": Date(timeIntervalSince1970: 1_714_559_415.25), "u2s": uuid,
                "x2s": Data([0, 1, 2, 255]), "m2s": Decimal(string: "12.75")!, "r2s": URL(string: "https://example.com/a?b=c")!,
                "x2t": Data([9, 8]),
            ])
            try context.make("Item", ["name": "b"])
        }
        try fixture.migrator().migrate()
        try fixture.read { context in
            let items = try context.all("Item", by: "name")
            let a = items[0]
            #expect(try a.attributeValue(forKey: "i16") == .integer(32000))
            #expect(try a.attributeValue(forKey: "b2i") == .integer(1))
            #expect(try a.attributeValue(forKey: "i2d") == .double(2_000_000_000))
            #expect(try a.attributeValue(forKey: "i2f") == .double(-300))
            #expect(try a.attributeValue(forKey: "i2m") == .decimal(Decimal(123_456_789_012)))
            #expect(try a.attributeValue(forKey: "f2d") == .double(1.5))
            #expect(try a.attributeValue(forKey: "i2s") == .string("-42"))
            #expect(try a.attributeValue(forKey: "d2s") == .string("0.1"))
            #expect(try a.attributeValue(forKey: "b2s") == .string("false"))
            #expect(try a.attributeValue(forKey: "t2s") == .string("2024-05-01T10:30:15.250Z"))
            #expect(try a.attributeValue(forKey: "u2s") == .string("12345678-90AB-CDEF-1234-567890ABCDEF"))
            #expect(try a.attributeValue(forKey: "x2s") == .string("AAEC/w=="))
            #expect(try a.attributeValue(forKey: "m2s") == .string("12.75"))
            #expect(try a.attributeValue(forKey: "r2s") == .string("https://example.com/a?b=c"))
            #expect(try a.attributeValue(forKey: "x2t") == .binary(Data([9, 8])))
            for kind in kinds { #expect(try items[1].attributeValue(forKey: kind.0) == nil, "\(kind.0) stays nil") }
        }
    }

    /// Regression: an Integer 64 holding Int64.min converted to Double: the check that refuses
    /// integers Double cannot hold computes ABS(Int64.min), which SQLite refuses with "integer
    /// overflow", so the user gets an SQLite error instead of the migration's own reason.
    @Test func int64MinToDoubleIsRefusedWithTheMigrationsReason() throws {
        let fixture = try MigrationFixture(versions: [
            ("V1", #"{"entities": [{"name": "Item", "attributes": [{"name": "n", "type": "integer64"}]}]}"#),
            ("V2", #"{"entities": [{"name": "Item", "attributes": [{"name": "n", "type": "double"}]}]}"#),
        ]) { context in
            try context.make("Item", ["n": Int64.min])
        }
        #expect {
            try fixture.migrator().migrate()
        } throws: { error in
            "\(error)".contains("cannot hold exactly")
        }
        #expect(try fixture.otherFiles() == [])
    }

    /// new attributes of every type with a default fill the existing objects, in a
    /// hierarchy (the parent and a sub-entity share the table).
    @Test func defaultsOfEveryTypeFillExistingObjects() throws {
        let v1 = """
            {"entities": [{"name": "Thing", "attributes": [{"name": "name", "type": "string"}]},
              {"name": "Gadget", "parent": "Thing", "attributes": []}]}
            """
        let v2 = """
            {"entities": [{"name": "Thing", "attributes": [{"name": "name", "type": "string"},
                {"name": "when", "type": "date", "default": "736000000.5"},
                {"name": "price", "type": "decimal", "default": "19.99"},
                {"name": "flag", "type": "boolean", "default": "YES", "optional": false},
                {"name": "ident", "type": "uuid", "default": "12345678-90AB-CDEF-1234-567890ABCDEF"},
                {"name": "text", "type": "string", "default": "it's"},
                {"name": "count", "type": "integer32", "default": "-7", "optional": false},
                {"name": "ratio", "type": "double", "default": "0.25"},
                {"name": "link", "type": "uri", "default": "https://example.com/x"}]},
              {"name": "Gadget", "parent": "Thing", "attributes": []}]}
            """
        let fixture = try MigrationFixture(versions: [("V1", v1), ("V2", v2)]) { context in
            try context.make("Thing", ["name": "a"])
            try context.make("Gadget", ["name": "b"])
        }
        try fixture.migrator().migrate()
        try fixture.read { context in
            for thing in try context.all("Thing", by: "name") {
                #expect(try thing.attributeValue(forKey: "when") == .date(Date(timeIntervalSinceReferenceDate: 736_000_000.5)))
                #expect(try thing.attributeValue(forKey: "price") == .decimal(Decimal(string: "19.99")!))
                #expect(try thing.attributeValue(forKey: "flag") == .boolean(true))
                #expect(try thing.attributeValue(forKey: "ident") == .uuid(UUID(uuidString: "12345678-90AB-CDEF-1234-567890ABCDEF")!))
                #expect(try thing.attributeValue(forKey: "text") == .string("it's"))
                #expect(try thing.attributeValue(forKey: "count") == .integer(-7))
                #expect(try thing.attributeValue(forKey: "ratio") == .double(0.25))
                #expect(try thing.attributeValue(forKey: "link") == .uri(URL(string: "https://example.com/x")!))
            }
        }
    }

    /// an attribute moves from the parent to a sub-entity and another from a
    /// sub-entity to the parent; a transient becomes stored and a stored one transient.
    @Test func attributesMoveWithinAHierarchyAndTransientChanges() throws {
        let v1 = """
            {"entities": [{"name": "Thing", "attributes": [{"name": "name", "type": "string"}, {"name": "colour", "type": "string"},
                {"name": "scratch", "type": "string", "transient": true}, {"name": "cache", "type": "string"}]},
              {"name": "Gadget", "parent": "Thing", "attributes": [{"name": "volts", "type": "integer32"}]}]}
            """
        let v2 = """
            {"entities": [{"name": "Thing", "attributes": [{"name": "name", "type": "string"}, {"name": "volts", "type": "integer32"},
                {"name": "scratch", "type": "string", "default": "fresh"}, {"name": "cache", "type": "string", "transient": true}]},
              {"name": "Gadget", "parent": "Thing", "attributes": [{"name": "colour", "type": "string"}]}]}
            """
        let fixture = try MigrationFixture(versions: [("V1", v1), ("V2", v2)]) { context in
            try context.make("Thing", ["name": "a", "colour": "red", "cache": "x"])
            try context.make("Gadget", ["name": "b", "colour": "blue", "volts": 12])
        }
        try fixture.migrator().migrate()
        try fixture.read { context in
            let things = try context.all("Thing", by: "name")
            #expect(try things.map { try $0.attributeValue(forKey: "volts") } == [nil, .integer(12)])
            #expect(try things[1].attributeValue(forKey: "colour") == .string("blue"))
            #expect(try things.map { try $0.attributeValue(forKey: "scratch") } == [.string("fresh"), .string("fresh")])
        }
    }

    /// Regression: the destination model gives two attributes the same identity (a renamed
    /// attribute whose renaming identifier is the name of a new attribute), so both would take
    /// the one old column's values; refused.
    @Test func twoDestinationAttributesWithOneIdentityAreRefused() throws {
        let v1 = #"{"entities": [{"name": "Book", "attributes": [{"name": "title", "type": "string"}]}]}"#
        let v2 = #"{"entities": [{"name": "Book", "attributes": [{"name": "name", "type": "string", "renamingIdentifier": "title"}, {"name": "title", "type": "string"}]}]}"#
        let source = try JSONModelReader.read(Data(v1.utf8), path: "v1")
        let destination = try JSONModelReader.read(Data(v2.utf8), path: "v2")
        #expect(throws: ModelMappingError(reasons: ["entity Book of the destination model: name and title would both take the values of title; give each its own renaming identifier"])) {
            try ModelMapping(from: source, to: destination)
        }
    }

    // MARK: - Primary keys

    /// Regression: Dog moves out of Animal's hierarchy after the dog with the largest key was
    /// deleted. The new ZDOG hierarchy's Z_MAX is taken from the remaining rows only (the old
    /// Dog row of Z_PRIMARYKEY never held the counter), so a new Dog gets the deleted dog's key,
    /// and with the store's UUID kept, the deleted object's URI now names another object.
    @Test func anEntityLeavingAHierarchyDoesNotReuseKeysOfDeletedObjects() throws {
        let v1 = """
            {"entities": [{"name": "Animal", "attributes": [{"name": "name", "type": "string"}]},
              {"name": "Dog", "parent": "Animal", "attributes": []}]}
            """
        let v2 = """
            {"entities": [{"name": "Animal", "attributes": [{"name": "name", "type": "string"}]},
              {"name": "Dog", "attributes": [{"name": "name", "type": "string"}]}]}
            """
        var deletedKey: Int64 = 0
        let fixture = try MigrationFixture(versions: [("V1", v1), ("V2", v2)]) { context in
            try context.make("Dog", ["name": "rex"])
            let gone = try context.make("Dog", ["name": "gone"])
            try context.save()
            deletedKey = gone.objectID.primaryKey ?? 0
            _ = try context.delete(gone)
        }
        try fixture.migrator().migrate()
        try fixture.read { context in
            let dog = try context.make("Dog", ["name": "new"])
            let animal = try context.make("Animal", ["name": "cat"])
            try context.save()
            #expect((dog.objectID.primaryKey ?? 0) > deletedKey, "new Dog got p\(dog.objectID.primaryKey ?? 0), the key of the deleted Dog p\(deletedKey)")
            #expect((animal.objectID.primaryKey ?? 0) > deletedKey)
        }
    }

    /// an entity moves into a hierarchy; new objects of every entity of the merged
    /// table get fresh keys, and Z_PRIMARYKEY names every destination entity with its parent.
    @Test func keysAfterEntitiesComeTogetherAreFresh() throws {
        let v1 = """
            {"entities": [{"name": "Animal", "attributes": [{"name": "name", "type": "string"}]},
              {"name": "Plant", "attributes": [{"name": "name", "type": "string"}]}]}
            """
        let v2 = """
            {"entities": [{"name": "Animal", "attributes": [{"name": "name", "type": "string"}]},
              {"name": "Plant", "parent": "Animal", "attributes": []}]}
            """
        let fixture = try MigrationFixture(versions: [("V1", v1), ("V2", v2)]) { context in
            try context.make("Animal", ["name": "a1"])
            try context.save()
            // Plant keys 1...5, the last four deleted: Plant's counter is 5.
            let plants = try (1...5).map { try context.make("Plant", ["name": "p\($0)"]) }
            try context.save()
            for plant in plants.dropFirst() { _ = try context.delete(plant) }
            try context.save()
            // p1 of Plant collides with p1 of Animal, so delete the animal: no collision.
            _ = try context.delete(try context.all("Animal", by: "name")[0])
        }
        try fixture.migrator().migrate()
        let database = try Database(path: fixture.path, configuration: .readOnly)
        let rows = try database.rows("SELECT Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT")
        database.close()
        #expect(rows.map { $0[0].stringValue } == ["Animal", "Plant"])
        #expect(rows.map { $0[1].int64Value } == [0, 1])
        #expect((rows.first?[2].int64Value ?? 0) >= 5)
        try fixture.read { context in
            let plant = try context.make("Plant", ["name": "new"])
            try context.save()
            #expect((plant.objectID.primaryKey ?? 0) > 5)
        }
    }

    /// Regression: rows are copied in batches of 50,000 consecutive keys from the
    /// smallest to the largest, so one object with a large key (inserted with a chosen key,
    /// say) makes the copy run one statement per 50,000 unused keys: here 200,001 statements.
    @Test func sparseKeysDoNotMakeTheCopyRunABatchPerUnusedRange() throws {
        let v1 = #"{"entities": [{"name": "Item", "attributes": [{"name": "code", "type": "string"}]}]}"#
        let v2 = #"{"entities": [{"name": "Item", "attributes": [{"name": "code", "type": "string"}, {"name": "note", "type": "string"}]}]}"#
        let fixture = try MigrationFixture(versions: [("V1", v1), ("V2", v2)]) { context in
            try context.make("Item", ["code": "a"])
        }
        let store = try PersistentStore.open(at: fixture.path, model: fixture.bundle.versions[0].model)
        _ = try store.withConnection {
            try store.database.inTransaction { try store.insert("Item", values: ["code": .text("far")], primaryKey: 10_000_000_000) }
        }
        store.close()
        final class Counter: @unchecked Sendable { var calls = 0 }
        let counter = Counter()
        try fixture.migrator().migrate(progress: { _ in counter.calls += 1 })
        #expect(counter.calls < 100, "the copy ran \(counter.calls) batches for 2 objects")
        #expect(try fixture.read { try $0.count(for: FetchRequest(entityName: "Item")) } == 2)
    }

    // MARK: - Safety

    /// Regression: a plan made before the store changed is run later (a plan shown and then
    /// confirmed, as `strata migrate` does, while another process migrated the store). The
    /// migrator does not check that the store is still of the plan's source version: it treats
    /// the V2 store as V1, and the values written into V2's new attribute are replaced by its
    /// default.
    @Test func aStalePlanIsRefusedAndDoesNotLoseData() throws {
        let v1 = #"{"entities": [{"name": "Item", "attributes": [{"name": "code", "type": "string"}]}]}"#
        let v2 = #"{"entities": [{"name": "Item", "attributes": [{"name": "code", "type": "string"}, {"name": "note", "type": "string", "default": "none"}]}]}"#
        let fixture = try MigrationFixture(versions: [("V1", v1), ("V2", v2)]) { context in
            try context.make("Item", ["code": "a"])
        }
        let plan = try fixture.migrator().plan()
        try fixture.migrator().migrate()
        try fixture.read { context in
            try context.all("Item", by: "code")[0].setValue("precious", forKey: "note")
            try context.save()
        }
        let before = try fixture.bytes()
        #expect {
            try fixture.migrator().migrate(plan)
        } throws: { error in
            "\(error)".contains("the store's model changed since the plan was made; plan the migration again")
        }
        let note = try fixture.read { try $0.all("Item", by: "code")[0].attributeValue(forKey: "note") }
        #expect(note == .string("precious"))
        #expect(try fixture.bytes() == before)
    }

    /// the second of two steps fails on the data: the store stays byte for byte, no
    /// file is left (the first step's output included), and a dry run changes nothing either.
    @Test func aFailingSecondStepLeavesNothing() throws {
        let v1 = #"{"entities": [{"name": "Item", "attributes": [{"name": "code", "type": "string"}]}]}"#
        let v2 = #"{"entities": [{"name": "Item", "attributes": [{"name": "code", "type": "string"}, {"name": "note", "type": "string"}]}]}"#
        let v3 = #"{"entities": [{"name": "Item", "attributes": [{"name": "code", "type": "string"}, {"name": "note", "type": "string", "optional": false}]}]}"#
        let fixture = try MigrationFixture(versions: [("V1", v1), ("V2", v2), ("V3", v3)]) { context in
            try context.make("Item", ["code": "a"])
        }
        let before = try fixture.bytes()
        let plan = try fixture.migrator(through: ["V2"]).plan()
        #expect(plan.steps.count == 2)
        #expect(throws: MigrationError.self) { try fixture.migrator(through: ["V2"]).check(plan) }
        #expect(throws: MigrationError.self) { try fixture.migrator(through: ["V2"]).migrate(plan) }
        #expect(try fixture.bytes() == before)
        #expect(try fixture.otherFiles() == [])
    }

    /// the backup is the old store, byte for byte.
    @Test func theBackupEqualsTheOldStore() throws {
        let v1 = #"{"entities": [{"name": "Item", "attributes": [{"name": "code", "type": "string"}]}]}"#
        let v2 = #"{"entities": [{"name": "Item", "attributes": [{"name": "code", "type": "string"}, {"name": "note", "type": "string"}]}]}"#
        let fixture = try MigrationFixture(versions: [("V1", v1), ("V2", v2)]) { context in
            for code in 1...30 { try context.make("Item", ["code": "c\(code)"]) }
        }
        let before = try fixture.bytes()
        let result = try fixture.migrator().migrate()
        let backup = try #require(result.backupPath)
        #expect(try Data(contentsOf: URL(fileURLWithPath: backup)) == before)
        #expect(try fixture.otherFiles() == [(backup as NSString).lastPathComponent])
    }

    /// Regression: a store in a read-only folder (0555) should be refused like a
    /// read-only store (0444) is. The store's check looks at the permission bits, but the
    /// folder's only asks access(2), which is always yes for root, so the migration goes ahead
    /// and writes into the read-only folder.
    @Test func aReadOnlyFolderIsRefusedEvenForRoot() throws {
        let v1 = #"{"entities": [{"name": "Item", "attributes": [{"name": "code", "type": "string"}]}]}"#
        let v2 = #"{"entities": [{"name": "Item", "attributes": [{"name": "code", "type": "string"}, {"name": "note", "type": "string"}]}]}"#
        let fixture = try MigrationFixture(versions: [("V1", v1), ("V2", v2)]) { context in
            try context.make("Item", ["code": "a"])
        }
        let before = try fixture.bytes()
        // The read-only store first: refused.
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: fixture.path)
        #expect { try fixture.migrator().migrate() } throws: { "\($0)".contains("read-only") }
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: fixture.path)
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: fixture.folder.url.path)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: fixture.folder.url.path) }
        #expect { try fixture.migrator().migrate() } throws: { "\($0)".contains("read-only") }
        #expect(try fixture.bytes() == before)
    }
}
