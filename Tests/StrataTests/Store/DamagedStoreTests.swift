import Foundation
import Testing
@testable import Strata
import StrataTestSupport

/// Stores damaged by accident or on purpose: each is an error naming the store, never a crash,
/// a hang, or SQL that runs.
@Suite struct DamagedStoreTests {
    let folder: TemporaryFolder

    init() throws {
        folder = try TemporaryFolder()
    }

    /// A store of a one-entity model, with `change` applied to its database afterwards.
    private func store(_ name: String, _ change: (Database) throws -> Void) throws -> String {
        let path = folder.path(name)
        var item = EntityDescription(name: "Item")
        item.attributes = [AttributeDescription(name: "name", type: .string)]
        do {
            let store = try PersistentStore.create(at: path, model: ObjectModel(entities: [item]))
            try change(store.database)
        }
        return path
    }

    /// Removes the models the store keeps (Strata's copy in the metadata and the model cache),
    /// so that opening infers one.
    private func forgetRecordedModel(_ database: Database) throws {
        var metadata = try StoreMetadata(reading: database)
        metadata.properties[StoreMetadata.modelKey] = nil
        try metadata.write(to: database)
        try database.execute("DROP TABLE Z_MODELCACHE")
    }

    private func openError(_ path: String) -> String? {
        do {
            _ = try PersistentStore.open(at: path, configuration: .readOnly)
            return nil
        } catch {
            return String(describing: error)
        }
    }

    /// Raw DEFLATE of `data` as one stored (uncompressed) block.
    private func storedDeflate(_ data: Data) -> Data {
        let length = UInt16(data.count)
        return Data([0x01, UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8(~length >> 8)]) + data
    }

    private func setModelCache(_ archive: PropertyListValue, in database: Database) throws {
        try database.execute("DELETE FROM Z_MODELCACHE")  // the cache Strata wrote
        try database.execute("INSERT INTO Z_MODELCACHE VALUES (?)", [.blob(storedDeflate(BinaryPropertyListWriter.data(for: archive)))])
    }

    @Test func garbageMetadataAndModelCache() throws {
        let metadata = try store("metadata.sqlite") { try $0.execute("UPDATE Z_METADATA SET Z_PLIST = X'00010203'") }
        #expect(openError(metadata)?.contains("not a Core Data store: the metadata cannot be read") == true)
        let text = try store("text.sqlite") { try $0.execute("UPDATE Z_METADATA SET Z_PLIST = 'hello'") }
        #expect(openError(text)?.hasSuffix("the metadata (Z_PLIST) is not a binary property list") == true)
        let cache = try store("cache.sqlite") { database in
            try database.execute("DELETE FROM Z_MODELCACHE")  // the cache Strata wrote
            try database.execute("INSERT INTO Z_MODELCACHE VALUES (X'FF00FF00')")
        }
        #expect(openError(cache)?.contains("the model cache cannot be read") == true)
    }

    @Test func hostileModelCachesAreRefused() throws {
        let outOfRange = try store("uid.sqlite") { database in
            try setModelCache(.dictionary(["$archiver": .string("NSKeyedArchiver"), "$top": .dictionary(["root": .uid(UInt64.max)]), "$objects": .array([.string("$null")])]), in: database)
        }
        #expect(openError(outOfRange)?.contains("the archive has no root object") == true)
        let injected = try store("injected.sqlite") { database in
            let objects: [PropertyListValue] = [
                .string("$null"),
                .dictionary(["NSEntities": .uid(2), "$class": .uid(5)]),
                .dictionary(["NS.keys": .array([.uid(3)]), "NS.objects": .array([.uid(4)])]),
                .string("Item"),
                .dictionary(["NSEntityName": .uid(6), "NSAttributeType": .integer(-1), "$class": .uid(7)]),
                .dictionary(["$classname": .string("NSManagedObjectModel")]),
                .string("Item (X); DROP TABLE Z_METADATA; --"),
                .dictionary(["$classname": .string("NSEntityDescription")]),
            ]
            try setModelCache(.dictionary(["$archiver": .string("NSKeyedArchiver"), "$top": .dictionary(["root": .uid(1)]), "$objects": .array(objects)]), in: database)
        }
        #expect(openError(injected)?.contains("the model cache describes an invalid model: error: entity 'Item (X); DROP TABLE Z_METADATA; --': the entity name must start with a letter") == true)
    }

    @Test func deeplyNestedAndSelfSharingPlistsFailFastOrDecodeOnce() throws {
        var deep = PropertyListValue.string("leaf")
        // Just past the reader's limit: far deeper only overflows the writer's recursion on a
        // worker thread's stack in an AddressSanitizer build, whose frames are larger.
        for _ in 0..<(BinaryPropertyListReader.maximumDepth + 10) { deep = .array([deep]) }
        #expect { try BinaryPropertyListReader.read(BinaryPropertyListWriter.data(for: deep)) } throws: {
            ($0 as? PropertyListError)?.message.contains("nest deeper than") == true
        }
        // Each level holds the next one twice: decoded naively this is 2^60 objects.
        var bytes = Array("bplist00".utf8)
        var offsets: [Int] = []
        for level in 0..<60 {
            offsets.append(bytes.count)
            bytes += [0xA2, UInt8(level + 1), UInt8(level + 1)]
        }
        offsets.append(bytes.count)
        bytes += [0x51, UInt8(ascii: "x")]
        let table = bytes.count
        for offset in offsets { bytes += [UInt8(offset >> 8), UInt8(offset & 0xFF)] }
        bytes += [0, 0, 0, 0, 0, 0, 2, 1] + [0, 0, 0, 0, 0, 0, 0, UInt8(offsets.count)] + Array(repeating: 0, count: 8)
            + [0, 0, 0, 0, 0, 0, UInt8(table >> 8), UInt8(table & 0xFF)]
        let value = try BinaryPropertyListReader.read(Data(bytes))
        #expect(value.arrayValue?.count == 2)
    }

    @Test func aHierarchyCycleInPrimaryKeysIsRefused() throws {
        let path = try store("cycle.sqlite") { database in
            try forgetRecordedModel(database)
            try database.execute("INSERT INTO Z_PRIMARYKEY VALUES (2, 'Other', 3, 0), (3, 'Third', 2, 0)")
        }
        #expect(openError(path)?.contains("the schema describes an invalid model: error: entity 'Other': the parent entities form a cycle") == true)
    }

    @Test func anEntityWithoutATableIsCountedAsEmptyAndItsRowsReportedClearly() throws {
        let path = try store("ghost.sqlite") { database in
            try forgetRecordedModel(database)
            try database.execute("INSERT INTO Z_PRIMARYKEY VALUES (2, 'Ghost', 0, 0)")
        }
        let store = try PersistentStore.open(at: path, configuration: .readOnly)
        #expect(try store.rowCountsExcludingSubentities()["Ghost"] == 0)
        #expect { try store.rows("Ghost") } throws: { String(describing: $0).contains("no such table: ZGHOST") }
    }

    @Test func aDamagedFileIsADataError() throws {
        let path = try store("damaged.sqlite") { _ in }
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        for index in 4096..<bytes.count { bytes[index] = 0xA5 }
        try bytes.write(to: URL(fileURLWithPath: path))
        #expect(openError(path)?.contains("not a Core Data store: the database is damaged") == true
            || openError(path)?.contains("not a Core Data store") == true)
    }

    @Test func aWALStoreIsReadWithoutMakingFilesBesideIt() throws {
        let path = try store("wal.sqlite") { database in
            try database.inTransaction { _ = try PersistentStore.open(at: database.path) }
        }
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        let store = try PersistentStore.open(at: path, configuration: .readOnly)
        #expect(store.database.configuration.isImmutable)
        #expect(try StoreReport(store: store).journalMode == "wal")
        #expect(try store.rowCountsExcludingSubentities() == ["Item": 0])
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        #expect(!FileManager.default.fileExists(atPath: path + "-shm"))
    }

    @Test func createRefusesAnythingAlreadyThereAndKeepsOthersFiles() throws {
        let path = folder.path("empty.sqlite")
        _ = FileManager.default.createFile(atPath: path, contents: Data())
        let model = ObjectModel(entities: [EntityDescription(name: "Item")])
        #expect { try PersistentStore.create(at: path, model: model) } throws: { String(describing: $0).hasSuffix("a store already exists there") }
        #expect(FileManager.default.fileExists(atPath: path))

        let journal = folder.path("bad.sqlite-journal")
        _ = FileManager.default.createFile(atPath: journal, contents: Data("someone else's".utf8))
        var invalid = EntityDescription(name: "Item")
        invalid.uniquenessConstraints = [["missing"], ["missing"]]
        var duplicate = ObjectModel(entities: [invalid])
        duplicate.entities.append(EntityDescription(name: "Item"))
        #expect { try PersistentStore.create(at: folder.path("bad.sqlite"), model: model) } throws: {
            String(describing: $0).hasSuffix("bad.sqlite-journal: a journal file lies there without its store; move it away first")
        }
        #expect(try String(contentsOfFile: journal, encoding: .utf8) == "someone else's")
        #expect { try PersistentStore.create(at: folder.path("dup.sqlite"), model: duplicate) } throws: {
            String(describing: $0).contains("dup.sqlite: the model is invalid: error: entity 'Item': the model defines this entity more than once")
        }
        #expect(!FileManager.default.fileExists(atPath: folder.path("dup.sqlite")))
        #expect { try PersistentStore.create(at: folder.path("no/such/folder/x.sqlite"), model: model) } throws: {
            String(describing: $0).hasSuffix("no/such/folder/x.sqlite: cannot create the store: no such folder \(folder.path("no/such/folder"))")
        }
    }

    @Test func aStoreStrataMadeOpensWithItsRecordedModel() throws {
        var book = EntityDescription(name: "Book")
        book.attributes = [AttributeDescription(name: "firstPublished", type: .date)]
        let model = ObjectModel(entities: [book])
        let path = folder.path("recorded.sqlite")
        _ = try PersistentStore.create(at: path, model: model)
        let store = try PersistentStore.open(at: path, configuration: .readOnly)
        #expect(store.modelSource == .modelCache)
        #expect(store.model.entities == model.entities)
        #expect(store.comparison.isMatch)
    }


    /// The recorded model's patterns are not compiled when a store opens (Strata checked them
    /// when the model was first read): one that does not compile still passes no value.
    @Test func aRecordedPatternThatDoesNotCompileOpensAndPassesNoValue() throws {
        var item = EntityDescription(name: "Item")
        var code = AttributeDescription(name: "code", type: .string)
        code.regularExpression = "[a-z]+"
        item.attributes = [code]
        let path = folder.path("pattern.sqlite")
        do {
            let store = try PersistentStore.create(at: path, model: ObjectModel(entities: [item]))
            defer { store.close() }
            var metadata = try StoreMetadata(reading: store.database)
            let recorded = try #require(metadata.properties[StoreMetadata.modelKey]?.dataValue)
            let broken = String(decoding: recorded, as: UTF8.self).replacingOccurrences(of: "[a-z]+", with: "[a-")
            metadata.properties[StoreMetadata.modelKey] = .data(Data(broken.utf8))
            try metadata.write(to: store.database)
        }
        let store = try PersistentStore.open(at: path)
        defer { store.close() }
        #expect(store.model.entity(named: "Item")?.attribute(named: "code")?.regularExpression == "[a-")
        let context = ObjectContext(store: store)
        try context.performAndWait {
            try context.insert("Item").setValue("abc", forKey: "code")
            let error = #expect(throws: ContextError.self) { try context.save() }
            #expect(String(describing: error).contains("cannot be checked"))
        }
        #expect(try store.database.scalar("SELECT count(*) FROM ZITEM") == .integer(0))
    }
    @Test func aStaleRecordedModelIsNotUsed() throws {
        // A store Strata made before it wrote a model cache: the recorded model is all it keeps.
        let path = try store("stale.sqlite") { database in
            try database.execute("DROP TABLE Z_MODELCACHE")
            var metadata = try StoreMetadata(reading: database)
            metadata.properties["NSStoreModelVersionHashes"] = .dictionary(["Item": .data(Data(repeating: 1, count: 32))])
            try metadata.write(to: database)
        }
        #expect(try PersistentStore.open(at: path, configuration: .readOnly).modelSource == .inferred)
    }

    @Test func namesThatAreNotIdentifiersAreInvalidModels() {
        var entity = EntityDescription(name: "A (X INTEGER); CREATE TABLE PWNED (Y INTEGER); CREATE TABLE Q")
        entity.attributes = [AttributeDescription(name: "book-title", type: .string)]
        #expect(ObjectModel(entities: [entity]).validate().map(\.message) == [
            "the entity name must start with a letter or _ and hold only letters, digits and _",
            "the property name must start with a letter or _ and hold only letters, digits and _",
        ])
    }

    @Test func aSecondStatementIsNeverRun() throws {
        let database = try Database(path: folder.path("tail.sqlite"))
        try database.execute("CREATE TABLE T (V)")
        #expect { try database.rows("SELECT 1; DROP TABLE T") } throws: { String(describing: $0).contains("more than one statement") }
        #expect(try database.tableNames() == ["T"])
    }
}
