import ArgumentParser
import Foundation
import Strata

/// `strata model convert`: writes a model in Strata's JSON format or as an Xcode model.
struct ModelConvertCommand: AsyncParsableCommand, ReadsModelOrStore {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Convert a model to Strata's JSON format or to an Xcode model.",
        discussion: """
            --to json writes a JSON model file (- for standard output). --to xcdatamodel writes \
            an .xcdatamodel folder or, when OUT ends in .xcdatamodeld, a bundle holding every \
            version of the model (only --model-version when given) with the current one marked. \
            OUT is replaced only when the new one is completely written.

            With --store and no --model, the model the store holds is converted (its model \
            cache, Strata's record of it, or one inferred from its tables), so that an app's \
            model can be recovered from its store:

              strata model convert --store App.sqlite --to xcdatamodel App.xcdatamodeld
            """)

    enum TargetFormat: String, CaseIterable, ExpressibleByArgument {
        case json
        case xcdatamodel
    }

    @OptionGroup var options: StoreOptions

    @Option(help: "The format to write: json or xcdatamodel.")
    var to: TargetFormat

    @Argument(help: ArgumentHelp("Where to write the converted model.", valueName: "out"), completion: .file())
    var output: String

    @Flag(help: "Replace OUT if it exists.")
    var force = false

    func validate() throws {
        if output == "-", to != .json {
            throw ValidationError("only --to json can write to standard output")
        }
    }

    func run() async throws {
        let (versions, current) = try modelToWrite()
        if output == "-" {
            print(JSONModelWriter.string(for: versions[0].model), terminator: "")
            return
        }
        let url = URL(fileURLWithPath: output)
        let fileManager = FileManager.default
        let exists = fileManager.fileExists(atPath: url.path)
        if exists, !force { throw CLIError.outputExists(path: output) }

        // Written beside OUT first and swapped in whole, so that a failure leaves OUT as it was.
        let staging = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).strata-\(UUID().uuidString)")
        let backup = staging.appendingPathExtension("old")
        do {
            try write(versions, current: current, to: staging)
            if exists { try fileManager.moveItem(at: url, to: backup) }
            do {
                try fileManager.moveItem(at: staging, to: url)
            } catch {
                if exists { try? fileManager.moveItem(at: backup, to: url) }
                throw error
            }
            if exists { try? fileManager.removeItem(at: backup) }
        } catch {
            try? fileManager.removeItem(at: staging)
            throw CLIError.unwritableFile(path: output, cause: error)
        }
    }

    /// The versions to write and the one to mark current: with --model, the bundle's (see
    /// ``versionsToWrite(_:)``); with only --store, the model the store holds (its model cache,
    /// Strata's record, or one inferred from its tables), named after the store's file, so that
    /// an app's model can be recovered from a store.
    private func modelToWrite() throws -> (versions: [ModelBundle.Version], current: String) {
        guard options.modelPaths.isEmpty else {
            let loaded = try options.loadValidatedModel()
            return (try versionsToWrite(loaded), loaded.bundle.currentVersionName)
        }
        let stored = try options.loadModelOrStoresModel()
        let name = stored.file.deletingPathExtension().lastPathComponent
        return ([ModelBundle.Version(name: name, file: stored.file, model: stored.model)], name)
    }

    /// The chosen version, or for a bundle written from a bundle every version, each valid.
    private func versionsToWrite(_ loaded: ValidatedModel) throws -> [ModelBundle.Version] {
        guard to == .xcdatamodel, output.hasSuffix(".xcdatamodeld"), options.modelVersionName == nil else {
            return [loaded.version]
        }
        for version in loaded.bundle.versions {
            let issues = version.model.validateForStore()
            if issues.contains(where: { $0.severity == .error }) {
                throw ModelError.invalid(path: version.file.path, issues: issues)
            }
        }
        return loaded.bundle.versions
    }

    private func write(_ versions: [ModelBundle.Version], current: String, to url: URL) throws {
        switch to {
        case .json:
            try Data(JSONModelWriter.string(for: versions[0].model).utf8).write(to: url)
        case .xcdatamodel where output.hasSuffix(".xcdatamodeld"):
            for version in versions {
                try XcodeModelWriter.write(version.model, toModelFolder: url.appendingPathComponent(version.name + ".xcdatamodel"))
            }
            let marked = versions.contains { $0.name == current } ? current : versions[0].name
            try ModelBundle.writeCurrentVersionMarker(in: url, versionName: marked)
        case .xcdatamodel:
            try XcodeModelWriter.write(versions[0].model, toModelFolder: url)
        }
    }
}
