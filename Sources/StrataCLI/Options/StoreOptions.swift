import ArgumentParser
import Foundation
import Logging
import Strata

/// The options of every command that reads a store or a model, written after the command name:
/// `strata model show --model Library.xcdatamodeld`. Each takes its default from the
/// environment.
struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The SQLite store file. Default: $STRATA_STORE.", valueName: "path"), completion: .file())
    var store: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The model: an .xcdatamodeld bundle, an .xcdatamodel folder, its contents file, a Strata JSON model, or a folder of models. Repeat it for a store of several models merged. Default: $STRATA_MODEL.",
            valueName: "path"),
        completion: .file())
    var model: [String] = []

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

    @Flag(name: .long, help: "Open the store read-only. Commands that only read a store always do.")
    var readOnly = false

    @Option(
        name: .long,
        help: ArgumentHelp("How long to wait for a store another process has locked, in seconds.", valueName: "seconds"))
    var busyTimeout: Double = 5

    @Flag(
        name: .long,
        help: "Record persistent history of the store's changes, making Core Data's history tables (ACHANGE, ATRANSACTION, ATRANSACTIONSTRING) when it has none. A store that has them records history either way.")
    var trackHistory = false

    @Option(
        name: .long,
        help: ArgumentHelp("The author persistent history records for this command's changes.", valueName: "name"))
    var historyAuthor: String = "strata"

    /// The environment variable `name`: one `getenv`, where `ProcessInfo`'s `environment`
    /// builds a dictionary of every variable on each use.
    func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    func validate() throws {
        if trackHistory, readOnly { throw ValidationError("--track-history writes the history tables; it cannot go with --read-only") }
        if busyTimeout < 0 || busyTimeout > 86_400 || !busyTimeout.isFinite {
            throw ValidationError("--busy-timeout must be a number of seconds from 0 to 86400")
        }
        if logLevel == nil, let text = environment("STRATA_LOG_LEVEL"), LogLevel(rawValue: text.lowercased()) == nil {
            throw ValidationError(
                "STRATA_LOG_LEVEL is '\(text)'; expected one of \(LogLevel.allCases.map(\.rawValue).joined(separator: ", "))")
        }
    }

    // MARK: - Resolved values

    var storePath: String? { store ?? environment("STRATA_STORE").flatMap { $0.isEmpty ? nil : $0 } }
    /// The models given, in order: several for a store of models merged into one.
    var modelPaths: [String] { model.isEmpty ? environment("STRATA_MODEL").flatMap { $0.isEmpty ? nil : [$0] } ?? [] : model }
    var modelPath: String? { modelPaths.first }
    var modelVersionName: String? { modelVersion ?? environment("STRATA_MODEL_VERSION").flatMap { $0.isEmpty ? nil : $0 } }

    var resolvedLogLevel: LogLevel {
        logLevel ?? environment("STRATA_LOG_LEVEL").flatMap { LogLevel(rawValue: $0.lowercased()) } ?? .warn
    }

    /// The store path, or a usage error saying how to give one.
    func requireStorePath() throws -> String {
        guard let path = storePath else {
            throw CLIError.missing(.store(creatable: false))
        }
        return path
    }

    /// Opens the store for reading only: with the model given by --model, which must be the
    /// store's, else with the store's own model (its model cache, or one inferred from its schema).
    /// A store made by an older version of a --model bundle is read with that version, as Core
    /// Data finds a store's model among an app's versions, unless --model-version names another.
    func openStoreForReading() throws -> (PersistentStore, origin: String?) {
        var configuration = Database.Configuration.readOnly
        configuration.busyTimeout = .milliseconds(Int(busyTimeout * 1000))
        let path = try requireStorePath()
        guard modelPath != nil else {
            return (try PersistentStore.open(at: path, configuration: configuration), nil)
        }
        let loaded = try loadValidatedModel()
        let version = loaded.version
        do {
            let store = try PersistentStore.open(at: path, model: version.model, modelOrigin: version.file.path, configuration: configuration)
            return (store, version.file.path)
        } catch StoreError.modelMismatch(let path, let comparison) {
            return try openWithTheVersionThatMadeIt(path, of: loaded, configuration: configuration, comparedWithChosen: comparison)
        }
    }

    /// The store at `path` opened with the version of `loaded`'s bundle that made it, unless
    /// --model-version named another, with a warning naming that version and the entities in
    /// which the chosen one (`comparison`) differs from the store; else a data error saying so
    /// and which version the store is.
    private func openWithTheVersionThatMadeIt(
        _ path: String, of loaded: ValidatedModel, configuration: Database.Configuration, comparedWithChosen comparison: HashComparison
    ) throws -> (PersistentStore, origin: String?) {
        let mismatch = StoreError.modelMismatch(path: path, comparison: comparison)
        let own = try PersistentStore.open(at: path, configuration: configuration)
        let storeVersion = loaded.bundle.version(thatMade: own.metadata, storeModel: own.modelSource == .modelCache ? own.model : nil)
        own.close()
        if let storeVersion, modelVersionName == nil {
            let differences = comparison.summary.replacingOccurrences(of: "entities that differ: ", with: "entities ")
            Logger(label: "strata.model").warning(
                "\(path): made with version '\(storeVersion.name)' of \(loaded.bundle.url.lastPathComponent), not '\(loaded.version.name)': read with that version; '\(loaded.version.name)' differs from the store in \(differences)")
            let store = try PersistentStore.open(at: path, model: storeVersion.model, modelOrigin: storeVersion.file.path, configuration: configuration)
            return (store, storeVersion.file.path)
        }
        throw CLIError.modelMismatch(mismatch, modelPath: loaded.version.file.path, storeVersion: storeVersion?.name)
    }

    /// Opens the store for writing: with the model given by --model, which must be the
    /// store's (a missing store is created for it when `creatingIfMissing`), else with the
    /// store's own model. A store the user may not write is refused.
    func openStoreForWriting(creatingIfMissing: Bool = true) throws -> PersistentStore {
        if readOnly { throw CLIError.refused(.readOnly) }
        var configuration = Database.Configuration()
        configuration.busyTimeout = .milliseconds(Int(busyTimeout * 1000))
        configuration.tracksPersistentHistory = trackHistory
        let path = try requireStorePath()
        let exists = FileManager.default.fileExists(atPath: path)
        guard exists || (creatingIfMissing && modelPath != nil) else { throw CLIError.noSuchStore(path: path, remedy: .passStore) }
        let store: PersistentStore
        if modelPath == nil {
            store = try PersistentStore.open(at: path, configuration: configuration)
        } else {
            let version = try loadModel()
            store = try exists
                ? PersistentStore.open(at: path, model: version.model, modelOrigin: version.file.path, configuration: configuration)
                : PersistentStore.create(at: path, model: version.model, configuration: configuration, predicates: .objectPredicates)
        }
        if store.database.configuration.isReadOnly {
            store.close()
            throw CLIError.storeNotWritable(path: path)
        }
        store.defaultTransactionAuthor = historyAuthor
        return store
    }

    /// The stack on --store with the model the store keeps (Core Data's model cache, or the
    /// model Strata recorded creating it): for a command that rewrites the store whole and
    /// needs no --model. A store that keeps none is a usage error, since a model inferred from
    /// its tables is not the app's own.
    func openStackWithStoresModel(readOnly: Bool = false) throws -> DataStack {
        let path = try requireStorePath()
        let (store, _) = try openStoreForReading()
        let (model, source) = (store.model, store.modelSource)
        store.close()
        guard source == .modelCache || source == .storeMetadata else {
            throw CLIError.refused(.noModelOfItsOwn(path: path, source: source))
        }
        var stackOptions = DataStack.Options()
        stackOptions.configuration = stackConfiguration(readOnly: readOnly)
        stackOptions.automigrates = false
        let name = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        return authored(try DataStack(model: model, modelName: name, store: .sqlite(URL(fileURLWithPath: path)), options: stackOptions))
    }

    /// Where the stack's store is without --store: `<model name>.sqlite` in the current folder.
    func defaultStorePath() throws -> String {
        URL(fileURLWithPath: try requireModelURL().path).deletingPathExtension().lastPathComponent + ".sqlite"
    }

    /// The stack on the store (default: `<model name>.sqlite` in the current folder), creating
    /// the store when it is missing (unless `readOnly`). A store made with another version
    /// of the bundle is migrated when `automigrates`; a store of another model is refused.
    /// `readOnly` opens the store with SQLite's read-only flag: a save fails.
    func openStack(automigrates: Bool = true, readOnly: Bool = false) throws -> DataStack {
        let loaded = try loadValidatedModel()
        let modelName = URL(fileURLWithPath: try requireModelURL().path).deletingPathExtension().lastPathComponent
        var stackOptions = DataStack.Options()
        stackOptions.configuration = stackConfiguration(readOnly: readOnly)
        stackOptions.automigrates = automigrates && !readOnly
        stackOptions.modelVersions = loaded.bundle
        return authored(try DataStack(
            model: loaded.version.model, modelName: modelName, store: .sqlite(storePath.map(URL.init(fileURLWithPath:))), options: stackOptions))
    }

    /// The stack with its saves recorded in persistent history as --history-author's.
    private func authored(_ stack: DataStack) -> DataStack {
        stack.store.defaultTransactionAuthor = historyAuthor
        return stack
    }

    /// How a stack opens its store: with --busy-timeout, and read-only when `readOnly`.
    private func stackConfiguration(readOnly: Bool) -> Database.Configuration {
        var configuration = readOnly ? Database.Configuration.readOnly : Database.Configuration()
        configuration.busyTimeout = .milliseconds(Int(busyTimeout * 1000))
        configuration.tracksPersistentHistory = trackHistory && !readOnly
        return configuration
    }

    /// The model path, or a usage error saying how to give one.
    func requireModelURL() throws -> URL {
        try requireModelURLs()[0]
    }

    /// Every model path given, at least one, or a usage error saying how to give one.
    func requireModelURLs() throws -> [URL] {
        guard !modelPaths.isEmpty else {
            throw CLIError.missing(.model(orStore: false))
        }
        return modelPaths.map(URL.init(fileURLWithPath:))
    }

    /// The model given by --model, else the model of the store given by --store (its model
    /// cache, the model Strata recorded, or one inferred from its schema, as `inspect` reads
    /// it), for the commands that describe a model.
    func loadModelOrStoresModel() throws -> ModelBundle.Version {
        if storePath == nil, modelPaths.isEmpty {
            throw CLIError.missing(.model(orStore: true))
        }
        if !modelPaths.isEmpty { return try loadModel() }
        let (store, _) = try openStoreForReading()
        defer { store.close() }
        return ModelBundle.Version(name: "\(store.modelSource)", file: URL(fileURLWithPath: store.path), model: store.model)
    }

    /// The chosen version of the model, validated; warnings, and a version chosen without the
    /// bundle naming it, go to the log.
    func loadModel() throws -> ModelBundle.Version {
        try loadValidatedModel().version
    }

    /// The chosen version of the model, validated, with its bundle. A version chosen without
    /// the bundle naming it is logged as a warning; the model's warnings, which Xcode compiles
    /// (and `model validate` prints), at info level, so that every command on a real app's
    /// model does not repeat them.
    func loadValidatedModel() throws -> ValidatedModel {
        let urls = try requireModelURLs()
        let loaded = urls.count > 1
            ? try ModelLoader.validated(try ModelLoader.loadMerged(urls, version: modelVersionName), checkingWith: { $0.validateForStore() })
            : try ModelLoader.loadValidated(urls[0], version: modelVersionName, checkingWith: { $0.validateForStore() })
        let logger = Logger(label: "strata.model")
        if loaded.versionWasGuessed {
            logger.warning("\(loaded.bundle.url.path): using model version '\(loaded.version.name)': \(loaded.bundle.currentVersionReason)")
        }
        for warning in loaded.warnings { logger.info("\(loaded.version.file.path): \(warning)") }
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
