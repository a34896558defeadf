import Foundation
import Strata
import Testing
import StrataTestSupport

/// The corpus of real apps' models and stores in `shared/fixtures/coredata/corpus`, as the
/// command-line tests run them.
enum CorpusStores {
    static let folder = StrataRunner.sharedFixtures.appendingPathComponent("corpus")
    static let available = FileManager.default.fileExists(atPath: folder.appendingPathComponent("stores.tsv").path)

    /// A store of the corpus and the `--model`/`--model-version` arguments of the model that wrote it.
    struct Store: CustomTestStringConvertible, Sendable {
        var path: String
        var modelArguments: [String]?
        var testDescription: String { path + (modelArguments == nil ? " without a model" : " with its model") }
    }

    /// Each store of `stores.tsv`, once without a model and once with the one that wrote it.
    static var runs: [Store] {
        guard available, let text = try? String(contentsOf: folder.appendingPathComponent("stores.tsv"), encoding: .utf8) else { return [] }
        return text.split(separator: "\n").filter { !$0.hasPrefix("#") }.flatMap { line -> [Store] in
            let fields = line.split(separator: "\t").map(String.init)
            guard fields.count == 2 else { return [] }
            let parts = fields[1] == "-" ? [] : fields[1].components(separatedBy: " | ").map { $0.components(separatedBy: "::") }
            guard !parts.isEmpty else { return [Store(path: fields[0])] }
            let models = parts.flatMap { ["--model", folder.appendingPathComponent($0[0]).path] }
            return [Store(path: fields[0]), Store(path: fields[0], modelArguments: models + ["--model-version", parts[0][1]])]
        }
    }
}

/// The read commands on every store of the corpus, as an admin would run them: with the model
/// that wrote the store (per `stores.tsv`) and without one, each must succeed and leave the
/// store byte for byte as it was.
@Suite(.enabled(if: CorpusStores.available, "shared/fixtures/coredata/corpus not found next to the checkout: corpus test skipped"))
struct CorpusCommandTests {
    @Test(arguments: CorpusStores.runs)
    func inspectFetchCountAndExportEveryEntityAndChangeNothing(_ run: CorpusStores.Store) throws {
        let temporary = try TemporaryFolder("strata-corpus")
        let folder = temporary.url
        let source = CorpusStores.folder.appendingPathComponent(run.path)
        let store = folder.appendingPathComponent(source.lastPathComponent).path
        for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: source.path + suffix) {
            try FileManager.default.copyItem(atPath: source.path + suffix, toPath: store + suffix)
        }
        let before = BadInputTests.checksum(store)
        let common = ["--store", store] + (run.modelArguments ?? [])

        let inspected = try StrataRunner.run(["inspect", "--format", "json"] + common)
        try #require(inspected.status == 0, "\(inspected.standardError)")
        #expect(inspected.standardError.isEmpty, "\(inspected.standardError)")
        let report = try JSONReader.parse(Data(inspected.standardOutput.utf8))
        if run.modelArguments != nil { #expect(report["model"]?["matches"]?.boolValue == true) }
        let entities = report["entities"]?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? []
        #expect(!entities.isEmpty)
        // One export of every entity: the same records as an export per entity, in one process
        // rather than one each (a process of the debug build takes a tenth of a second).
        for command in entities.flatMap({ [["count", $0], ["fetch", $0, "--limit", "5", "--format", "json"]] }) + [["export"] + entities] {
            let result = try StrataRunner.run(command + common)
            #expect(result.status == 0, "\(command.joined(separator: " ")): \(result.standardError)")
        }
        #expect(BadInputTests.checksum(store) == before)
    }
}
