import Foundation
import Strata
import Testing
import StrataTestSupport

@Suite struct CreateCommandTests {
    @Test func createsAStoreForTheModelAndNeverReplacesOne() throws {
        let temporary = try TemporaryFolder("strata-create")
        let folder = temporary.url
        let path = folder.appendingPathComponent("Library.sqlite").path
        let created = try StrataRunner.run(["create", "--store", path, "--model", ModelCommandTests.example])
        #expect(created.status == 0, "\(created.standardError)")
        #expect(created.standardOutput.hasPrefix("created \(path): 5 entities, 5 tables, store UUID "))

        let inspected = try StrataRunner.run(["inspect", "--format", "json", "--store", path, "--model", ModelCommandTests.example])
        let report = try JSONReader.parse(Data(inspected.standardOutput.utf8))
        #expect(report["model"]?["matches"]?.boolValue == true)
        #expect(report["store"]?["journalMode"]?.stringValue == "wal")
        #expect(report["entities"]?.arrayValue?.map { $0["name"]?.stringValue } == ["Author", "Book", "EBook", "Page", "Tag"])

        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let again = try StrataRunner.run(["create", "--store", path, "--model", ModelCommandTests.example])
        #expect(again.status == 1)
        #expect(again.standardError == "strata: \(path): a store already exists there\n")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    /// The store keeps its model in Z_MODELCACHE, as Core Data's do: `inspect` needs no
    /// `--model`, even with Strata's own copy of the model gone from the metadata.
    @Test func inspectOfACreatedStoreNeedsNoModel() throws {
        let temporary = try TemporaryFolder("strata-create")
        let folder = temporary.url
        let path = folder.appendingPathComponent("Library.sqlite").path
        let created = try StrataRunner.run(["create", "--store", path, "--model", ModelCommandTests.example])
        #expect(created.status == 0, "\(created.standardError)")
        let database = try Database(path: path)
        var metadata = try StoreMetadata(reading: database)
        metadata.properties[StoreMetadata.modelKey] = nil
        try metadata.write(to: database)
        database.close()

        let inspected = try StrataRunner.run(["inspect", "--store", path])
        #expect(inspected.status == 0, "\(inspected.standardError)")
        #expect(inspected.standardOutput.contains("model       model cache (Z_MODELCACHE)"), "\(inspected.standardOutput)")
        #expect(inspected.standardOutput.contains("match       the model matches the store"), "\(inspected.standardOutput)")
        let json = try StrataRunner.run(["inspect", "--format", "json", "--store", path])
        let report = try JSONReader.parse(Data(json.standardOutput.utf8))
        #expect(report["entities"]?.arrayValue?.map { $0["name"]?.stringValue } == ["Author", "Book", "EBook", "Page", "Tag"])
    }

    @Test func anInvalidModelCreatesNothing() throws {
        let temporary = try TemporaryFolder("strata-create")
        let folder = temporary.url
        let model = folder.appendingPathComponent("broken.json")
        try Data(#"{"entities": [{"name": "A", "relationships": [{"name": "b", "destination": "B"}]}]}"#.utf8).write(to: model)
        let path = folder.appendingPathComponent("x.sqlite").path
        let result = try StrataRunner.run(["create", "--store", path, "--model", model.path])
        #expect(result.status == 3)
        #expect(!FileManager.default.fileExists(atPath: path))
    }
}
