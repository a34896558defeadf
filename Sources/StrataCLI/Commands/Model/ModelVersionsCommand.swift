import ArgumentParser
import Strata

/// `strata model versions`: the versions of a model bundle, the current one marked.
struct ModelVersionsCommand: AsyncParsableCommand, ReadsModelOrStore {
    static let configuration = CommandConfiguration(
        commandName: "versions",
        abstract: "List the versions of a model bundle, marking the current one.")

    @OptionGroup var options: StoreOptions

    @Option(help: "Output format: table or json.")
    var format: OutputFormat = .table

    func run() async throws {
        let bundle = try ModelLoader.load(try options.requireModelURL())
        switch format {
        case .json:
            let versions = bundle.versions.map { version in
                JSONValue.object([
                    "name": .string(version.name),
                    "current": .bool(version.name == bundle.currentVersionName),
                    "file": .string(version.file.path),
                    "entities": .number(version.model.entities.count),
                    "versionIdentifier": .string(version.model.versionIdentifier),
                ])
            }
            let document = JSONValue.object([
                "current": .string(bundle.currentVersionName),
                "reason": .string(bundle.currentVersionReason),
                "versions": .array(versions),
            ])
            print(JSONWriter.string(from: document))
        case .table:
            var table = TextTable(header: ["", "version", "entities", "identifier"])
            for version in bundle.versions {
                table.append([
                    version.name == bundle.currentVersionName ? "*" : "", version.name,
                    String(version.model.entities.count), version.model.versionIdentifier,
                ])
            }
            print(table.rendered)
            print("current: \(bundle.currentVersionName) (\(bundle.currentVersionReason))")
        }
    }
}
