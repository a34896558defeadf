import Foundation
import Testing
@testable import Strata
import StrataTestSupport

/// Binary attributes that allow external storage, in Core Data's format: `01` + the data in
/// the row, or `02` + a file name + `00` pointing into `.<Store>_SUPPORT/_EXTERNAL_DATA`.
@Suite struct ExternalBinaryDataTests {
    static let model = """
        {"entities": [
          {"name": "Photo", "uniquenessConstraints": [["name"]], "attributes": [
             {"name": "name", "type": "string"},
             {"name": "image", "type": "binary", "externalBinaryStorage": true},
             {"name": "thumbnail", "type": "binary"}]}
        ]}
        """

    struct Fixture {
        let folder: TemporaryFolder
        let path: String
        let store: PersistentStore
        var files: String { folder.path(".Photos_SUPPORT/_EXTERNAL_DATA") }

        init(model: String = ExternalBinaryDataTests.model) throws {
            folder = try TemporaryFolder()
            path = folder.path("Photos.sqlite")
            store = try PersistentStore.create(at: path, model: try JSONModelReader.read(Data(model.utf8), path: "m.json"))
        }

        /// The names of the files in the external data folder.
        func fileNames() -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: files)) ?? []).sorted()
        }

        /// The raw column value of the photo named `name`.
        func stored(_ name: String, _ column: String = "ZIMAGE") throws -> DatabaseValue? {
            try store.database.scalar("SELECT \(column) FROM ZPHOTO WHERE ZNAME = ?", [.text(name)])
        }

        /// The `image` of the photo named `name`, read by a context of its own.
        func image(_ name: String) throws -> Data? {
            let context = ObjectContext(store: store)
            return try context.performAndWait {
                let photo = try context.fetch(FetchRequest(entityName: "Photo", predicate: try ObjectPredicate(format: "name == %@", name))).first
                guard case .binary(let data)? = try photo?.attributeValue(forKey: "image") else { return nil }
                return data
            }
        }
    }

    static func bytes(_ count: Int, seed: UInt8 = 1) -> Data {
        Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) })
    }

    @Test func smallValuesStayInTheRowBehindTheInlineMarker() throws {
        let fixture = try Fixture()
        defer { fixture.store.close() }
        let small = Self.bytes(100), limit = Self.bytes(ExternalBinaryStorage.largestInlineCount, seed: 2)
        let context = ObjectContext(store: fixture.store)
        try context.performAndWait {
            try context.make("Photo", ["name": "small", "image": small, "thumbnail": small])
            try context.make("Photo", ["name": "limit", "image": limit])
            try context.make("Photo", ["name": "empty", "image": Data()])
            try context.save()
        }
        #expect(try fixture.stored("small") == .blob(Data([0x01]) + small))
        #expect(try fixture.stored("limit") == .blob(Data([0x01]) + limit))
        #expect(try fixture.stored("empty") == .blob(Data([0x01])))
        // An attribute without external storage keeps its bytes as they are.
        #expect(try fixture.stored("small", "ZTHUMBNAIL") == .blob(small))
        #expect(fixture.fileNames().isEmpty)
        #expect(try fixture.image("small") == small)
        #expect(try fixture.image("limit") == limit)
        #expect(try fixture.image("empty") == Data())
    }

    @Test func largeValuesGoToAFileNamedInTheRow() throws {
        let fixture = try Fixture()
        defer { fixture.store.close() }
        let large = Self.bytes(ExternalBinaryStorage.largestInlineCount + 1)
        let context = ObjectContext(store: fixture.store)
        try context.performAndWait {
            try context.make("Photo", ["name": "large", "image": large])
            try context.save()
        }
        let names = fixture.fileNames()
        #expect(names.count == 1)
        let name = try #require(names.first)
        #expect(UUID(uuidString: name)?.uuidString == name, "an upper-case UUID: \(name)")
        #expect(try fixture.stored("large") == .blob(Data([0x02]) + Data(name.utf8) + Data([0x00])))
        #expect(try fixture.stored("large")?.dataValue?.count == 38)
        #expect(try Data(contentsOf: URL(fileURLWithPath: (fixture.files as NSString).appendingPathComponent(name))) == large)
        #expect(try fixture.image("large") == large)
        // A dictionary fetch reads the data too.
        var request = FetchRequest(entityName: "Photo")
        request.propertiesToFetch = [.keyPath("image")]
        let rows = try fixture.store.fetchDictionaries(request)
        #expect(rows.first?.values["image"] == .attribute(.binary(large)))
    }

    @Test func aReplacedOrDeletedValueTakesItsFileAlongOnceSaved() throws {
        let fixture = try Fixture()
        defer { fixture.store.close() }
        let first = Self.bytes(200_000), second = Self.bytes(300_000, seed: 9)
        let context = ObjectContext(store: fixture.store)
        try context.performAndWait {
            let photo = try context.make("Photo", ["name": "p", "image": first])
            let other = try context.make("Photo", ["name": "q", "image": first])
            try context.save()
            let original = fixture.fileNames()
            #expect(original.count == 2)

            try photo.setValue(second, forKey: "image")
            try context.save()
            let replaced = fixture.fileNames()
            #expect(replaced.count == 2 && Set(replaced).intersection(original).count == 1, "the old file went, the new one came")

            try photo.setValue(Self.bytes(10), forKey: "image")
            try context.save()
            #expect(fixture.fileNames().count == 1, "a small value keeps no file")

            try context.delete(other)
            try context.save()
            #expect(fixture.fileNames().isEmpty)
        }
    }

    @Test func aFailedSaveLeavesNoFileAndTheOldOneInPlace() throws {
        let fixture = try Fixture()
        defer { fixture.store.close() }
        let context = ObjectContext(store: fixture.store)
        try context.performAndWait {
            let kept = try context.make("Photo", ["name": "kept", "image": Self.bytes(200_000)])
            try context.save()
            let before = fixture.fileNames()
            // The second insert breaks the uniqueness constraint: the save writes nothing.
            try kept.setValue(Self.bytes(250_000, seed: 3), forKey: "image")
            try context.make("Photo", ["name": "twin", "image": Self.bytes(200_001)])
            try context.make("Photo", ["name": "twin", "image": Self.bytes(200_002)])
            #expect(throws: ContextError.self) { try context.save() }
            #expect(fixture.fileNames() == before)
        }
        #expect(try fixture.image("kept") == Self.bytes(200_000))
    }

    @Test func batchRequestsWriteInlineAndLetFilesGo() throws {
        let fixture = try Fixture()
        defer { fixture.store.close() }
        let context = ObjectContext(store: fixture.store)
        try context.performAndWait {
            try context.make("Photo", ["name": "a", "image": Self.bytes(200_000)])
            try context.make("Photo", ["name": "b", "image": Self.bytes(200_000, seed: 4)])
            try context.save()
            #expect(fixture.fileNames().count == 2)
            try context.execute(BatchUpdateRequest(entityName: "Photo", predicate: try ObjectPredicate(format: "name == 'a'"), propertiesToUpdate: ["image": .binary(Self.bytes(150_000))]))
            #expect(fixture.fileNames().count == 1)
            try context.execute(BatchInsertRequest(entityName: "Photo", objects: [["name": .string("c"), "image": .binary(Self.bytes(140_000))]]))
            try context.execute(BatchDeleteRequest(fetchRequest: FetchRequest(entityName: "Photo", predicate: try ObjectPredicate(format: "name == 'b'"))))
            #expect(fixture.fileNames().isEmpty)
        }
        #expect(try fixture.stored("a")?.dataValue?.first == 0x01)
        #expect(try fixture.image("a") == Self.bytes(150_000))
        #expect(try fixture.image("c") == Self.bytes(140_000))
    }

    @Test func aMissingFileIsAnErrorNamingIt() throws {
        let fixture = try Fixture()
        defer { fixture.store.close() }
        let context = ObjectContext(store: fixture.store)
        try context.performAndWait {
            try context.make("Photo", ["name": "gone", "image": Self.bytes(200_000)])
            try context.save()
        }
        let file = (fixture.files as NSString).appendingPathComponent(try #require(fixture.fileNames().first))
        try FileManager.default.removeItem(atPath: file)
        do {
            _ = try fixture.image("gone")
            Issue.record("a missing file was read")
        } catch {
            let text = String(describing: error)
            #expect(text.contains(file) && text.contains("Photo.image") && text.contains("missing"), "\(text)")
        }
    }

    @Test func resetTakesTheFolderAlong() throws {
        let fixture = try Fixture()
        let context = ObjectContext(store: fixture.store)
        try context.performAndWait {
            try context.make("Photo", ["name": "a", "image": Self.bytes(200_000)])
            try context.save()
        }
        fixture.store.close()
        #expect(fixture.fileNames().count == 1)
        let removed = try PersistentStore.resetFiles(at: fixture.path, model: fixture.store.model)
        #expect(removed.contains(fixture.folder.path(".Photos_SUPPORT")))
        #expect(!FileManager.default.fileExists(atPath: fixture.folder.path(".Photos_SUPPORT")))
    }

    @Test func migrationsCarryTheFolderAndBackUpItsFiles() throws {
        let v2 = Self.model.replacingOccurrences(of: #"{"name": "thumbnail", "type": "binary"}"#, with: #"{"name": "thumbnail", "type": "binary"}, {"name": "caption", "type": "string"}"#)
        let v3 = v2.replacingOccurrences(of: #", "externalBinaryStorage": true"#, with: "")
            .replacingOccurrences(of: #"{"name": "thumbnail", "type": "binary"}"#, with: #"{"name": "thumbnail", "type": "binary", "externalBinaryStorage": true}"#)
        let large = Self.bytes(200_000), small = Self.bytes(64, seed: 5)
        let fixture = try MigrationFixture(versions: [("V1", Self.model), ("V2", v2), ("V3", v3)]) { context in
            try context.make("Photo", ["name": "p", "image": large, "thumbnail": small])
        }
        let support = fixture.folder.path(".Store_SUPPORT/_EXTERNAL_DATA")
        let names = try FileManager.default.contentsOfDirectory(atPath: support)
        #expect(names.count == 1)

        // V2 keeps the reference: the data reads through the same file.
        let second = try fixture.migrator(to: "V2").migrate()
        let backup = try #require(second.backupPath)
        let backupFiles = try #require(StoreFileLocation(backup)).support + "/_EXTERNAL_DATA"
        #expect(try FileManager.default.contentsOfDirectory(atPath: backupFiles) == names, "the backup has its own folder")
        let store = try PersistentStore.open(at: fixture.path, model: try fixture.bundle.version(named: "V2").model)
        let context = ObjectContext(store: store)
        let image = try context.performAndWait {
            try context.fetch(FetchRequest(entityName: "Photo")).first?.attributeValue(forKey: "image")
        }
        store.close()
        #expect(image == .binary(large))

        // V3 keeps `image` in the row and gives `thumbnail` external storage.
        try fixture.migrator(to: "V3").migrate()
        try fixture.read { context in
            let photo = try #require(try context.fetch(FetchRequest(entityName: "Photo")).first)
            #expect(try photo.attributeValue(forKey: "image") == .binary(large))
            #expect(try photo.attributeValue(forKey: "thumbnail") == .binary(small))
        }
        let raw = try Database(path: fixture.path, configuration: .readOnly)
        #expect(try raw.scalar("SELECT ZIMAGE FROM ZPHOTO") == .blob(large))
        #expect(try raw.scalar("SELECT ZTHUMBNAIL FROM ZPHOTO") == .blob(Data([0x01]) + small))
        raw.close()
        #expect(try FileManager.default.contentsOfDirectory(atPath: support).isEmpty, "the file no row names went")
        #expect(try FileManager.default.contentsOfDirectory(atPath: backupFiles) == names, "the backup's stayed")
    }
}
