import ArgumentParser
import Foundation
import Logging
import Strata

/// The options of every command that reads a store or a model, written after the command name:
/// `strata model show --model Library.xcdatamodeld`. Each takes its default from the
/// environment.
struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The SQLite store file. Default: $STRATA_STORE.", valueName: "path"))
    var store: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The model: an .xcdatamodeld bundle, an .xcdatamodel folder, its contents file, or a Strata JSON model. Default: $STRATA_MODEL.",
            valueName: "path"))
    var model: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The version of a model bundle to use. Default: $STRATA_MODEL_VERSION, else the bundle's current version.",
            valueName: "name"))
    var modelVersion: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "How much to log on standard error: fatal, error, warn, info or verbose. Default: $STRATA_LOG_LEVEL, else warn.",
            valueName: "level"))
    var logLevel: LogLevel?

    var environment: [String: String] { ProcessInfo.processInfo.environment }

    func validate() throws {
        if logLevel == nil, let text = environment["STRATA_LOG_LEVEL"], LogLevel(rawValue: text.lowercased()) == nil {
            throw ValidationError(
                "STRATA_LOG_LEVEL is '\(text)'; expected one of \(LogLevel.allCases.map(\.rawValue).joined(separator: ", "))")
        }
    }

    // MARK: - Resolved values

    var storePath: String? { store ?? environment["STRATA_STORE"].flatMap { $0.isEmpty ? nil : $0 } }
    var modelPath: String? { model ?? environment["STRATA_MODEL"].flatMap { $0.isEmpty ? nil : $0 } }
    var modelVersionName: String? { modelVersion ?? environment["STRATA_MODEL_VERSION"].flatMap { $0.isEmpty ? nil : $0 } }

    var resolvedLogLevel: LogLevel {
        logLevel ?? environment["STRATA_LOG_LEVEL"].flatMap { LogLevel(rawValue: $0.lowercased()) } ?? .warn
    }

    /// The model path, or a usage error saying how to give one.
    func requireModelURL() throws -> URL {
        guard let path = modelPath else {
            throw CLIError("no model given: pass --model PATH or set STRATA_MODEL", status: .usage)
        }
        return URL(fileURLWithPath: path)
    }

    /// The chosen version of the model, validated; warnings, and a version chosen without the
    /// bundle naming it, go to the log.
    func loadModel() throws -> ModelBundle.Version {
        try loadValidatedModel().version
    }

    /// The chosen version of the model, validated, with its bundle; warnings, and a version
    /// chosen without the bundle naming it, go to the log.
    func loadValidatedModel() throws -> ValidatedModel {
        let loaded = try ModelLoader.loadValidated(try requireModelURL(), version: modelVersionName)
        let logger = Logger(label: "strata.model")
        if loaded.versionWasGuessed {
            logger.warning("\(loaded.bundle.url.path): using model version '\(loaded.version.name)': \(loaded.bundle.currentVersionReason)")
        }
        for warning in loaded.warnings { logger.warning("\(loaded.version.file.path): \(warning)") }
        return loaded
    }
}

/// A command that takes the ``StoreOptions``.
protocol ReadsModelOrStore {
    var options: StoreOptions { get }
}

extension LogLevel: ExpressibleByArgument {
    public init?(argument: String) {
        self.init(rawValue: argument.lowercased())
    }
}
