import ArgumentParser
import Strata

/// `strata create`: a new, empty store for a model, laid out as Core Data lays it out.
struct CreateCommand: AsyncParsableCommand, ReadsModelOrStore {
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract: "Create an empty store for a model.",
        discussion: """
            The store gets Core Data's SQLite layout for the model (tables, columns, join \
            tables, indexes, Z_PRIMARYKEY and Z_METADATA with the model's version hashes, and \
            Z_MODELCACHE with the model itself, so that commands need no --model for it), in \
            WAL mode. An existing store is never replaced.
            """)

    @OptionGroup var options: StoreOptions

    @Option(
        help: ArgumentHelp(
            "Lay the store out as this Core Data release (NSPersistenceFrameworkVersion) does, and record it.",
            discussion: "Releases before 600 wrote no index on join tables, before 637 no Z_MODELCACHE, and before 800 indexed an attribute with <TABLE>_<COLUMN>_INDEX rather than a fetch index.",
            valueName: "release"))
    var frameworkVersion: Int64 = StoreMetadata.frameworkVersion

    func validate() throws {
        if options.readOnly { throw ValidationError("create writes a new store; --read-only cannot be used with it") }
        if frameworkVersion < 1 { throw ValidationError("--framework-version takes a Core Data release number such as 479 or 1522, not \(frameworkVersion)") }
    }

    func run() async throws {
        let path = try options.requireStorePath()
        let version = try options.loadModel()
        var configuration = Database.Configuration()
        configuration.tracksPersistentHistory = options.trackHistory
        let store = try PersistentStore.create(
            at: path, model: version.model, configuration: configuration, frameworkVersion: frameworkVersion, predicates: .objectPredicates)
        print("created \(path): \(store.layout.entities.count) entities, \(store.layout.tables.count) tables, store UUID \(store.metadata.uuid)"
            + (store.hasPersistentHistory ? ", with persistent history" : ""))
    }
}
