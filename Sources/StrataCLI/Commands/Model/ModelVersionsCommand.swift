import ArgumentParser
import Strata

/// `strata model versions`: the versions of a model bundle, the current one marked.
struct ModelVersionsCommand: AsyncParsableCommand, ReadsModelOrStore {
    static let configuration = CommandConfiguration(
        commandName: "versions",
        abstract: "List the versions of a model bundle, marking the current one.")

    @OptionGroup var options: StoreOptions

    @OptionGroup var output: FormatOptions<OutputFormat>

    var format: OutputFormat { output.format }

    func run() async throws {
        let bundles = try options.requireModelURLs().map { url in try ModelLoader.load(url) }
        switch format {
        case .json:
            let documents = bundles.map { bundle in document(of: bundle) }
            print(JSONWriter.string(from: documents.count == 1 ? documents[0] : .array(documents)))
        case .table:
            for (index, bundle) in bundles.enumerated() {
                if index > 0 { print() }
                printTable(of: bundle)
            }
        }
    }

    private func document(of bundle: ModelBundle) -> JSONValue {
        let versions = bundle.versions.map { version in
            JSONValue.object([
                "name": .string(version.name),
                "current": .bool(version.name == bundle.currentVersionName),
                "file": .string(version.file.path),
                "entities": .number(version.model.entities.count),
                "versionIdentifier": .string(version.model.versionIdentifier),
            ])
        }
        let unreadable = bundle.unreadableVersions.map { version in
            JSONValue.object([
                "name": .string(version.name), "current": .bool(version.name == bundle.currentVersionName),
                "file": .string(version.file.path), "error": .string(version.error.description),
            ])
        }
        return JSONValue.object([
            "current": .string(bundle.currentVersionName),
            "reason": .string(bundle.currentVersionReason),
            "versions": .array(versions),
            "unreadable": .array(unreadable),
        ])
    }

    private func printTable(of bundle: ModelBundle) {
        var table = TextTable(header: ["", "version", "entities", "identifier"])
        let rows = bundle.versions.map { ($0.name, String($0.model.entities.count), $0.model.versionIdentifier) }
            + bundle.unreadableVersions.map { ($0.name, "unreadable", "") }
        for (name, entities, identifier) in rows.sorted(by: { $0.0.compare($1.0, options: .numeric) == .orderedAscending }) {
            table.append([name == bundle.currentVersionName ? "*" : "", name, entities, identifier])
        }
        print(table.rendered)
        print("current: \(bundle.currentVersionName) (\(bundle.currentVersionReason))")
        for version in bundle.unreadableVersions { print("unreadable: \(version.error)") }
    }
}
