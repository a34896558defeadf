import Foundation
import Testing
@testable import Strata
import StrataTestSupport

/// Binary attributes that allow external storage through `strata`: `fetch` and `export` show
/// the data (never Core Data's marker or a file reference), `import` writes it back in Core
/// Data's format, and a missing file is a data error naming it.
@Suite struct ExternalDataCommandTests {
    static let model = """
        {"entities": [{"name": "Photo", "attributes": [
          {"name": "name", "type": "string"}, {"name": "image", "type": "binary", "externalBinaryStorage": true}]}]}
        """
    static let small = Data((0..<64).map { UInt8($0) })
    static let large = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })

    /// A store holding a photo with a small image (in its row) and one with a large image (in a file).
    private func photoStore(in folder: TemporaryFolder) throws -> (store: String, model: String) {
        let model = folder.url.appendingPathComponent("Photos.json")
        try Self.model.write(to: model, atomically: true, encoding: .utf8)
        let path = folder.url.appendingPathComponent("Photos.sqlite").path
        let store = try PersistentStore.create(at: path, model: try ModelLoader.load(model).currentVersion.model)
        defer { store.close() }
        let context = ObjectContext(store: store)
        try context.performAndWait {
            for (name, image) in [("small", Self.small), ("large", Self.large)] {
                let photo = try context.insert("Photo")
                try photo.setValue(name, forKey: "name")
                try photo.setValue(image, forKey: "image")
            }
            try context.save()
        }
        return (path, model.path)
    }

    @Test func fetchExportAndImportCarryTheDataItself() throws {
        let folder = try TemporaryFolder()
        let (store, model) = try photoStore(in: folder)
        let fetched = try StrataRunner.run(["fetch", "Photo", "--store", store, "--select", "name,image", "--format", "json"])
        #expect(fetched.status == 0, "\(fetched.standardError)")
        #expect(fetched.standardOutput.contains(Self.small.base64EncodedString()))
        #expect(fetched.standardOutput.contains(Self.large.base64EncodedString()))
        #expect(!fetched.standardOutput.contains((Data([1]) + Self.small).base64EncodedString()), "no marker")
        let table = try StrataRunner.run(["fetch", "Photo", "--store", store, "--select", "name,image", "--sort", "name"])
        #expect(table.standardOutput == "name   image\nlarge  <200000 bytes>\nsmall  <64 bytes>\n", "\(table.standardError)")

        let exported = try StrataRunner.run(["export", "--store", store])
        #expect(exported.status == 0, "\(exported.standardError)")
        #expect(exported.standardOutput.contains(Self.large.base64EncodedString()))
        let file = folder.url.appendingPathComponent("photos.json")
        try Data(exported.standardOutput.utf8).write(to: file)
        let copy = folder.url.appendingPathComponent("Copy.sqlite").path
        let imported = try StrataRunner.run(["import", "Photo", "--create", file.path, "--store", copy, "--model", model])
        #expect(imported.status == 0, "\(imported.standardError)")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.url.appendingPathComponent(".Copy_SUPPORT/_EXTERNAL_DATA").path)
        #expect(files.count == 1, "the large image went to a file of the new store")
        #expect(try StrataRunner.run(["export", "--store", copy]).standardOutput == exported.standardOutput)
    }

    @Test func aMissingFileIsADataErrorNamingIt() throws {
        let folder = try TemporaryFolder()
        let (store, _) = try photoStore(in: folder)
        let files = folder.url.appendingPathComponent(".Photos_SUPPORT/_EXTERNAL_DATA")
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: files.path).first)
        try FileManager.default.removeItem(at: files.appendingPathComponent(name))
        let result = try StrataRunner.run(["fetch", "Photo", "--store", store, "--format", "json"])
        #expect(result.status == 3)
        #expect(result.standardError.contains(name) && result.standardError.contains("Photo.image") && result.standardError.contains("missing"), "\(result.standardError)")
        let exported = try StrataRunner.run(["export", "--store", store])
        #expect(exported.status == 3 && exported.standardError.contains(name), "\(exported.standardError)")
    }
}
