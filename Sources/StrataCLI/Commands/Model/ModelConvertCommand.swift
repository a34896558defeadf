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
            an .xcdatamodel folder, or, when OUT ends in .xcdatamodeld, a bundle holding the \
            version with it marked current.
            """)

    enum TargetFormat: String, CaseIterable, ExpressibleByArgument {
        case json
        case xcdatamodel
    }

    @OptionGroup var options: StoreOptions

    @Option(help: "The format to write: json or xcdatamodel.")
    var to: TargetFormat

    @Argument(help: ArgumentHelp("Where to write the converted model.", valueName: "out"))
    var output: String

    @Flag(help: "Replace OUT if it exists.")
    var force = false

    func validate() throws {
        if output == "-", to != .json {
            throw ValidationError("only --to json can write to standard output")
        }
    }

    func run() async throws {
        let version = try options.loadModel()
        if output == "-" {
            print(JSONModelWriter.string(for: version.model), terminator: "")
            return
        }
        let url = URL(fileURLWithPath: output)
        if FileManager.default.fileExists(atPath: url.path) {
            guard force else { throw CLIError("\(output) exists; pass --force to replace it") }
            try FileManager.default.removeItem(at: url)
        }
        switch to {
        case .json:
            try Data(JSONModelWriter.string(for: version.model).utf8).write(to: url, options: .atomic)
        case .xcdatamodel where url.pathExtension == "xcdatamodeld":
            try XcodeModelWriter.write(version.model, toModelFolder: url.appendingPathComponent(version.name + ".xcdatamodel"))
            try ModelBundle.writeCurrentVersionMarker(in: url, versionName: version.name)
        case .xcdatamodel:
            try XcodeModelWriter.write(version.model, toModelFolder: url)
        }
    }
}
