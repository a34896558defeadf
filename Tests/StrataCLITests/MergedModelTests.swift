import Foundation
import Strata
import Testing
import StrataTestSupport

/// An app whose entities are spread over several model files has one store for all of them,
/// matched by the merged model's hashes: `--model` repeated, or a folder of models.
@Suite struct MergedModelTests {
    @Test func aStoreOfMergedModelsOpensWithAllOfThemAndNotWithOne() throws {
        let folder = try TemporaryFolder()
        let (notes, accounts) = try folder.writeModels()
        let store = folder.path("App.sqlite")
        let created = try StrataRunner.run(["create", "--store", store, "--model", notes, "--model", accounts])
        #expect(created.status == 0, "\(created.standardError)")

        let hashes = try StrataRunner.run(["model", "hashes", "--model", notes, "--model", accounts, "--format", "json"])
        let entities = try JSONReader.parse(Data(hashes.standardOutput.utf8))["entities"]?.objectMembers?.map(\.key).sorted()
        #expect(entities == ["Account", "Note"])

        for models in [["--model", notes, "--model", accounts], ["--model", folder.path("Models")]] {
            let inspected = try StrataRunner.run(["inspect", "--format", "json", "--store", store] + models)
            #expect(inspected.status == 0, "\(inspected.standardError)")
            let report = try JSONReader.parse(Data(inspected.standardOutput.utf8))
            #expect(report["model"]?["matches"]?.boolValue == true)
            #expect(report["entities"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == ["Account", "Note"])
        }
        let imported = try StrataRunner.run(
            ["import", "Note", "-", "--store", store, "--model", notes, "--model", accounts], input: Data(#"[{"title": "hello"}]"#.utf8))
        #expect(imported.status == 0, "\(imported.standardError)")
        #expect(try StrataRunner.run(["count", "Note", "--store", store, "--model", folder.path("Models")]).standardOutput == "1\n")

        let one = try StrataRunner.run(["count", "Note", "--store", store, "--model", notes])
        #expect(one.status == 3)
        #expect(one.standardError.contains("the store was made with another model"))
    }

    @Test func modelsSharingAnEntityNameAreRefusedNamingBoth() throws {
        let folder = try TemporaryFolder()
        let (notes, _) = try folder.writeModels()
        let copy = folder.path("Copy.json")
        try FileManager.default.copyItem(atPath: notes, toPath: copy)
        let result = try StrataRunner.run(["model", "hashes", "--model", notes, "--model", copy])
        #expect(result.status != 0)
        #expect(result.standardError == "strata: \(copy): entity 'Note' is also defined by \(notes); models merged into one must not share entity names\n")
    }
}

private extension TemporaryFolder {
    /// `Models/Notes.json` (Note) and `Models/Accounts.json` (Account).
    func writeModels() throws -> (notes: String, accounts: String) {
        try FileManager.default.createDirectory(atPath: path("Models"), withIntermediateDirectories: true)
        let notes = path("Models/Notes.json"), accounts = path("Models/Accounts.json")
        try Data(#"{"entities": [{"name": "Note", "attributes": [{"name": "title", "type": "string"}]}]}"#.utf8)
            .write(to: URL(fileURLWithPath: notes))
        try Data(#"{"entities": [{"name": "Account", "attributes": [{"name": "owner", "type": "string"}]}]}"#.utf8)
            .write(to: URL(fileURLWithPath: accounts))
        return (notes, accounts)
    }
}
