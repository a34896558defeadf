import Foundation
import Testing
@testable import Strata
import StrataTestSupport

/// Migrations of particular stores: hierarchies that change, ordered relationships, a store
/// with a write-ahead log, a store in use, and a real Core Data store migrated from its model
/// cache.
@Suite struct MigrationStoreTests {
    static let animals = """
        {"entities": [
          {"name": "Animal", "attributes": [{"name": "name", "type": "string"}]},
          {"name": "Dog", "parent": "Animal", "attributes": [{"name": "breed", "type": "string"}]},
          {"name": "Plant", "attributes": [{"name": "name", "type": "string"}]}
        ]}
        """

    @Test func anEntityMovesOutOfItsHierarchy() throws {
        let standalone = """
            {"entities": [
              {"name": "Animal", "attributes": [{"name": "name", "type": "string"}]},
              {"name": "Dog", "attributes": [{"name": "name", "type": "string"}, {"name": "breed", "type": "string"}]},
              {"name": "Plant", "attributes": [{"name": "name", "type": "string"}]}
            ]}
            """
        let fixture = try MigrationFixture(versions: [("V1", Self.animals), ("V2", standalone)]) { context in
            try context.make("Animal", ["name": "cat"])
            try context.make("Dog", ["name": "rex", "breed": "collie"])
        }
        #expect(try fixture.migrator().plan().steps[0].mapping.changes.contains(.entityMovedHierarchy(entity: "Dog", fromRoot: "Animal", toRoot: "Dog")))
        try fixture.migrator().migrate()
        try fixture.read { context in
            #expect(try context.all("Animal", by: "name").map { try $0.attributeValue(forKey: "name") } == [.string("cat")])
            let dogs = try context.all("Dog", by: "name")
            #expect(try dogs.map { try $0.attributeValue(forKey: "breed") } == [.string("collie")])
            #expect(try dogs.map { try $0.attributeValue(forKey: "name") } == [.string("rex")], "the inherited attribute comes along")
        }
    }

    /// Plant becomes an Animal: the store's objects come together in one table.
    static let plantsAreAnimals = """
        {"entities": [
          {"name": "Animal", "attributes": [{"name": "name", "type": "string"}]},
          {"name": "Dog", "parent": "Animal", "attributes": [{"name": "breed", "type": "string"}]},
          {"name": "Plant", "parent": "Animal", "attributes": []}
        ]}
        """

    @Test func anEntityMovesIntoAHierarchyWhenNoKeysClash() throws {
        let fixture = try MigrationFixture(versions: [("V1", Self.animals), ("V2", Self.plantsAreAnimals)]) { context in
            try context.make("Plant", ["name": "fern"])
        }
        try fixture.migrator().migrate()
        try fixture.read { context in
            let animals = try context.all("Animal", by: "name")
            #expect(animals.map(\.entity.name) == ["Plant"])
            #expect(try animals.map { try $0.attributeValue(forKey: "name") } == [.string("fern")])
        }
    }

    @Test func anEntityMovingIntoAHierarchyWhoseKeysClashIsRefused() throws {
        let fixture = try MigrationFixture(versions: [("V1", Self.animals), ("V2", Self.plantsAreAnimals)]) { context in
            try context.make("Animal", ["name": "cat"])
            try context.make("Plant", ["name": "fern"])
        }
        let before = try fixture.bytes()
        #expect {
            try fixture.migrator().migrate()
        } throws: { error in
            "\(error)".contains("the objects of Animal, Dog and of Plant come together in ZANIMAL, but 1 primary key is taken on both sides (p1)")
        }
        #expect(try fixture.bytes() == before)
        #expect(try fixture.otherFiles() == [])
    }

    @Test func orderedRelationshipsKeepTheirOrderThroughARename() throws {
        let v1 = """
            {"entities": [
              {"name": "List", "attributes": [{"name": "title", "type": "string"}],
               "relationships": [{"name": "items", "destination": "Item", "inverse": "list", "toMany": true, "ordered": true},
                                 {"name": "tags", "destination": "Tag", "inverse": "lists", "toMany": true, "ordered": true}]},
              {"name": "Item", "attributes": [{"name": "text", "type": "string"}], "relationships": [{"name": "list", "destination": "List", "inverse": "items"}]},
              {"name": "Tag", "attributes": [{"name": "name", "type": "string"}], "relationships": [{"name": "lists", "destination": "List", "inverse": "tags", "toMany": true}]}
            ]}
            """
        let v2 = v1.replacingOccurrences(of: #"{"name": "List", "attributes""#, with: #"{"name": "Checklist", "renamingIdentifier": "List", "attributes""#)
            .replacingOccurrences(of: #""destination": "List""#, with: #""destination": "Checklist""#)
        let fixture = try MigrationFixture(versions: [("V1", v1), ("V2", v2)]) { context in
            let items = try ["c", "a", "b"].map { try context.make("Item", ["text": $0]) }
            let tags = try ["z", "x", "y"].map { try context.make("Tag", ["name": $0]) }
            // Not the order the tags were made in, which their keys follow.
            try context.make("List", ["title": "todo", "items": items, "tags": [tags[1], tags[2], tags[0]]])
        }
        try fixture.migrator().migrate()
        try fixture.read { context in
            let list = try #require(try context.all("Checklist", by: "title").first)
            #expect(try list.objects(forKey: "items").map { try $0.attributeValue(forKey: "text") } == ["c", "a", "b"].map { .string($0) })
            #expect(try list.objects(forKey: "tags").map { try $0.attributeValue(forKey: "name") } == ["x", "y", "z"].map { .string($0) })
        }
    }

    @Test func aStoreWithAWriteAheadLogMigratesWithEverythingAndAWriterIsWaitedFor() throws {
        let v1 = #"{"entities": [{"name": "Item", "attributes": [{"name": "code", "type": "string"}]}]}"#
        let v2 = #"{"entities": [{"name": "Item", "attributes": [{"name": "code", "type": "string"}, {"name": "note", "type": "string"}]}]}"#
        let fixture = try MigrationFixture(versions: [("V1", v1), ("V2", v2)]) { context in
            for code in 1...50 { try context.make("Item", ["code": "c\(code)"]) }
        }
        // Twenty more objects stay in the write-ahead log of a connection left open.
        let open = try PersistentStore.open(at: fixture.path, model: fixture.bundle.versions[0].model)
        defer { open.close() }
        try open.withConnection { try open.database.execute("PRAGMA wal_autocheckpoint = 0") }
        let context = ObjectContext(store: open)
        try context.performAndWait {
            for code in 51...70 { try context.make("Item", ["code": "c\(code)"]) }
            try context.save()
        }
        #expect((try FileManager.default.attributesOfItem(atPath: fixture.path + "-wal")[.size] as? Int ?? 0) > 0)

        let writer = try Database(path: fixture.path)
        try writer.execute("BEGIN IMMEDIATE")
        #expect {
            try fixture.migrator().migrate()
        } throws: { error in
            "\(error)".contains("another connection is")
        }
        try writer.execute("ROLLBACK")
        writer.close()

        let result = try fixture.migrator().migrate()
        let backup = try #require(result.backupPath)
        let old = try Database(path: backup, configuration: .readOnly)
        #expect(try old.scalar("SELECT COUNT(*) FROM ZITEM") == .integer(70), "the backup holds what the log held")
        old.close()
        #expect(try fixture.read { try $0.count(for: FetchRequest(entityName: "Item")) } == 70)
    }

    /// The last rename fails (a folder took the store's place while the migration ran): the
    /// error keeps the system's errno as a value, and the migrated copy goes.
    @Test func aFailedRenameKeepsItsErrnoAsAValue() throws {
        let v1 = #"{"entities": [{"name": "Item", "attributes": [{"name": "code", "type": "string"}]}]}"#
        let v2 = #"{"entities": [{"name": "Item", "attributes": [{"name": "code", "type": "string"}, {"name": "note", "type": "string"}]}]}"#
        let fixture = try MigrationFixture(versions: [("V1", v1), ("V2", v2)]) { context in
            try context.make("Item", ["code": "c1"])
        }
        let aside = fixture.folder.path("Aside.sqlite")
        let error = #expect(throws: MigrationError.self) {
            try fixture.migrator().migrate(backup: false, customStep: { _ in
                try FileManager.default.moveItem(atPath: fixture.path, toPath: aside)
                try FileManager.default.createDirectory(atPath: fixture.path + "/inside", withIntermediateDirectories: true)
            })
        }
        guard case .cannotMigrate(let path, let reason, let cause)? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(path == fixture.path && reason == "cannot put the migrated store in place")
        #expect(cause?.code == .EISDIR)
        #expect(error?.description == "\(fixture.path): cannot migrate: cannot put the migrated store in place: \(String(cString: strerror(EISDIR)))")
        // The migrated copy goes (the log files beside it are those of the store moved aside).
        let others = try fixture.otherFiles()
        #expect(others.contains("Aside.sqlite") && !others.contains { $0.contains(".migrating") })
    }

    @Test(.enabled(if: Fixtures.available, Fixtures.skipReason), arguments: ["FinalCutEvent.sqlite", "FinalCutLibrary.sqlite"])
    func aRealCoreDataStoreMigratesFromItsModelCache(name: String) throws {
        let folder = try TemporaryFolder()
        let path = folder.path("Store.sqlite")
        try FileManager.default.copyItem(atPath: Fixtures.store(name).path, toPath: path)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        let store = try PersistentStore.open(at: path)
        let cached = store.model
        let counts = try store.rowCountsExcludingSubentities()
        store.close()
        // The next version adds an attribute to the first entity that is not abstract.
        var next = cached
        let index = try #require(next.entities.firstIndex { !$0.isAbstract })
        next.entities[index].attributes.append(AttributeDescription(name: "strataNote", type: .string))
        let bundle = ModelBundle(
            url: URL(fileURLWithPath: "/models/Next.xcdatamodeld"), versions: [ModelBundle.Version(name: "Next", file: URL(fileURLWithPath: "/models/Next"), model: next)],
            currentVersionName: "Next", currentVersionReason: "the only one")
        let plan = try StoreMigrator(storePath: path, bundle: bundle).plan()
        #expect(plan.sourceVersion == "the store's model cache")
        #expect(!plan.steps[0].leftOut.contains("table Z_MODELCACHE"), "the new store gets a model cache of its own")
        try StoreMigrator(storePath: path, bundle: bundle).migrate(plan)
        let migrated = try PersistentStore.open(at: path, model: next)
        #expect(try migrated.rowCountsExcludingSubentities() == counts)
        let cache = try #require(try migrated.database.scalar("SELECT Z_CONTENT FROM Z_MODELCACHE")?.dataValue)
        #expect(try ModelCacheDecoder.decode(cache).entityVersionHashes() == next.entityVersionHashes())
        #expect(try migrated.withConnection { try migrated.database.rows("PRAGMA integrity_check") } == [[.text("ok")]])
        migrated.close()
    }
}
