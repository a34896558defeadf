import ArgumentParser
import Foundation
import Logging
import Strata
import StrataLua

/// `strata migrate`: migrates a store to a version of its model bundle, as Core Data's
/// lightweight migration does, in one inferred step or through the versions `--through` names;
/// `--dry-run` plans and checks the migration on a throwaway copy without changing the store.
struct MigrateCommand: AsyncParsableCommand, ReadsModelOrStore {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Migrate a store to a version of its model bundle, keeping a backup of the old store.",
        discussion: """
            The store's version hashes say which version of the --model bundle made it; the \
            migration goes from it straight to --to (default: the version --model-version or \
            $STRATA_MODEL_VERSION names, else the bundle's current version) in one step, as \
            Core Data's automatic migration does: the versions in between play no part. \
            --through VERSION, repeated, migrates step by step through the versions named, in \
            the order given. Version identifiers are labels, as in Core Data, and are not \
            compared: a store of any version of the bundle migrates to any other, whichever \
            identifier sorts first (what the destination lacks is dropped, as the plan says). \
            A store made with a model the bundle does not hold migrates from --from-model, or \
            from the model the store keeps itself (Core Data's model cache, or the copy Strata \
            records).

            Each step is inferred as Core Data infers a lightweight migration: entities, \
            attributes and relationships match by renaming identifier, else by name; new \
            attributes take their default values; types change only without loss (a wider \
            integer, integer to floating point or Decimal, Double to Float within its range, \
            anything to String); a relationship that now points to another entity starts \
            empty, so no object may hold any in it. A change that \
            cannot be inferred, or data the new version cannot hold (nil in a newly required \
            attribute, duplicates of a new uniqueness constraint, several objects in a \
            to-many that became to-one), is refused with the entity and property (exit \
            status 3), and the store is left as it was.

            The objects are copied into a new file beside the store, which is checked (the \
            data's rules, SQLite's integrity check, the objects per entity, the model's \
            hashes) and only then takes the store's place in one rename. The old store is \
            kept as <store>.<UTC time>.bak unless --no-backup. Other processes must close the \
            store first: the migration stops when one is writing to it, but cannot see one \
            that only holds it open, which would go on using the old store.

            Where an app ships mapping models (.xcmappingmodel folders, as Xcode saves \
            them, found in the bundle's folder, beside it or in the folders beside it, or \
            given with --mapping PATH), a step whose source and destination versions have a \
            mapping model's version hashes, as Core Data matches them, is carried out by it \
            instead of inferred: entity mappings in their order (copy, transform, add, remove, \
            custom), filter predicates, attribute value expressions and relationship \
            expressions, object by object. Several --mapping that match one step run as \
            passes in the order given. An entity mapping that names a custom \
            NSEntityMigrationPolicy class cannot run its Objective-C code: the step is \
            refused unless --policy FILE gives a Lua policy with a hook for it (see README). \
            --dry-run shows which steps a mapping model carries out and which are inferred.

            --script STEP.lua runs a Lua script on the migrated copy before it is checked and \
            replaces the store, for data fixes the migration cannot infer: ctx is a context \
            on the copy with the destination version's model, holding every object with a new \
            attribute at its default value or nil, and only what the script saves is kept. \
            The checks of missing values (a required attribute or to-one without a value, an \
            object of an entity that became abstract) run after the script, so that it can \
            fill a new required attribute that has no default; what it leaves missing is \
            refused with the objects named (exit status 3). The checks that would lose data \
            in the copy (types, to-many to to-one, uniqueness) run before it, and so do those \
            of every step but the last of a --through chain, which the script does not see. \
            An error in the script or a refusal stops the migration, and the store stays as \
            it was, with no backup made.

            --dry-run prints the plan and its SQL, then runs every step into a throwaway file \
            beside the store, which is removed, to check that the data fits; the store does \
            not change.
            """)

    @OptionGroup var options: StoreOptions

    @Flag(help: "Print the plan and its SQL, and check the data on a throwaway copy; the store does not change.")
    var dryRun = false

    @Option(
        name: .customLong("to"),
        help: ArgumentHelp(
            "The version of the bundle to migrate to. Default: --model-version ($STRATA_MODEL_VERSION), else the bundle's current version.",
            valueName: "version"))
    var destinationVersion: String?

    @Option(
        name: .customLong("through"),
        help: ArgumentHelp(
            "A version of the bundle to migrate through on the way to --to; repeat it for several, in order. Default: none, one step straight to --to.",
            valueName: "version"))
    var route: [String] = []

    @Option(
        name: .customLong("from-model"),
        help: ArgumentHelp(
            "The model the store was made with, when the bundle does not hold it: a model file, .xcdatamodel folder or bundle (its current version).",
            valueName: "path"),
        completion: .file())
    var sourceModelPath: String?

    @Option(
        name: .customLong("mapping"),
        help: ArgumentHelp(
            "A mapping model (.xcmappingmodel) for the steps whose versions it matches; repeat it for several, passes of one step in the order given. Default: those found in and beside the bundle.",
            valueName: "path"),
        completion: .file())
    var mappingPaths: [String] = []

    @Option(
        name: .customLong("policy"),
        help: ArgumentHelp(
            "A Lua migration policy: hooks by entity mapping name that take the place of the custom NSEntityMigrationPolicy classes mapping models name.",
            valueName: "policy.lua"),
        completion: .file())
    var policyPath: String?

    @Flag(help: "Keep no backup of the old store.")
    var noBackup = false

    @Option(
        name: .customLong("script"),
        help: ArgumentHelp(
            "A Lua script run on the migrated copy (ctx, with the new model) before the checks of missing values, which it can fill; only what it saves is kept. An error or a refusal stops the migration, the store as it was.",
            valueName: "step.lua"))
    var scriptPath: String?

    func validate() throws {
        if destinationVersion?.isEmpty == true { throw ValidationError("--to needs the name of a version") }
        if route.contains("") { throw ValidationError("--through needs the name of a version") }
        if sourceModelPath?.isEmpty == true { throw ValidationError("--from-model needs the path of a model") }
        if scriptPath?.isEmpty == true { throw ValidationError("--script needs the path of a Lua script") }
        if mappingPaths.contains("") { throw ValidationError("--mapping needs the path of a mapping model") }
        if policyPath?.isEmpty == true { throw ValidationError("--policy needs the path of a Lua policy") }
        if options.readOnly, !dryRun {
            throw ValidationError("migrate replaces the store; --read-only can only be used with --dry-run")
        }
    }

    func run() async throws {
        let path = try options.requireStorePath()
        guard FileManager.default.fileExists(atPath: path) else { throw CLIError.noSuchStore(path: path, remedy: .passStore) }
        // --to names the version itself; otherwise the shared options choose it.
        var modelOptions = options
        if let destinationVersion { modelOptions.modelVersion = destinationVersion }
        let bundle = try modelOptions.loadValidatedModel()
        for version in route { _ = try bundle.bundle.version(named: version) }
        let sourceModel = try sourceModelPath.map(Self.loadSourceModel)
        var migrator = try StoreMigrator(
            storePath: path, bundle: bundle.bundle, destinationVersion: bundle.version.name, route: route, sourceModel: sourceModel)
        migrator.busyTimeout = .milliseconds(Int(options.busyTimeout * 1000))
        migrator.mappingModels = mappingPaths.isEmpty
            ? try MappingModel.discover(near: bundle.bundle.url)
            : try mappingPaths.map { path throws(MappingModelError) in try MappingModel.load(contentsOf: URL(fileURLWithPath: path)) }
        migrator.runsMatchingMappingModelsAsPasses = !mappingPaths.isEmpty
        migrator.policy = try policyPath.map(Self.loadPolicy)
        let plan = try migrator.plan()
        print(plan.description)
        if dryRun, !plan.isEmpty { print(Self.describeMappingModels(migrator.mappingModels, in: plan)) }
        guard !plan.isEmpty else { return }

        let customStep = try scriptPath.map { try Self.scriptStep(at: $0, model: migrator.destination.model) }
        let progress = MigrationProgressLine()
        defer { progress.finish() }
        let model = migrator.destination.model
        if dryRun {
            print("\nSQL (each step writes a new file, reading the store attached as src; ?1 and ?2 bound a batch's primary keys):")
            print(plan.sql)
            let counts = try migrator.check(plan, customStep: customStep, progress: progress.show)
            progress.finish()
            print("\nthe data fits; objects per entity after the migration: \(Self.describe(counts, in: model))")
            print("dry run: \(path) was not changed")
        } else {
            let result = try migrator.migrate(plan, backup: !noBackup, customStep: customStep, progress: progress.show)
            progress.finish()
            let backup = result.backupPath.map { "the old store is kept as \($0)" } ?? "no backup was kept (--no-backup)"
            print("\nmigrated \(path) to \(migrator.destination.name); \(backup)")
            print("objects per entity: \(Self.describe(result.counts, in: model))")
        }
    }

    /// The step that runs the Lua script at `path` on a migrated copy of the store, with `ctx`
    /// a context on the copy (opened with the destination `model`); what it leaves unsaved goes.
    private static func scriptStep(at path: String, model: ObjectModel) throws -> StoreMigrator.CustomStep {
        guard let script = FileManager.default.contents(atPath: path).flatMap({ String(data: $0, encoding: .utf8) }) else {
            throw CLIError.unreadableFile(path: path, role: .migrationScript, problem: .unreadable)
        }
        return { migrated in
            let store = try PersistentStore.open(at: migrated, model: model)
            defer { store.close() }
            let context = ObjectContext(store: store, name: "migration script")
            let lua = try LuaState()
            lua.installStrata(context: context)
            try lua.run(script, name: "@" + path)
        }
    }

    /// The Lua policy in the file at `path`.
    private static func loadPolicy(at path: String) throws -> LuaMigrationPolicy {
        guard let script = FileManager.default.contents(atPath: path).flatMap({ String(data: $0, encoding: .utf8) }) else {
            throw CLIError.unreadableFile(path: path, role: .migrationPolicy, problem: .unreadable)
        }
        return try LuaMigrationPolicy(script: script, name: "@" + path)
    }

    /// The mapping models at hand and the steps of `plan` each carries out, one line each.
    static func describeMappingModels(_ models: [MappingModel], in plan: MigrationPlan) -> String {
        guard !models.isEmpty else { return "mapping models: none found; every step is inferred" }
        var lines = ["mapping models:"]
        for model in models {
            let steps = plan.steps.filter { step in step.mappingModels.contains { $0.path == model.path && $0.name == model.name } }.map(\.name)
            lines.append("  \(model.name) (\(model.path)): " + (steps.isEmpty ? "matches no step of this migration" : "carries out " + steps.joined(separator: ", ")))
        }
        for step in plan.steps where !step.isMapped { lines.append("  \(step.name): no mapping model matches; inferred") }
        return lines.joined(separator: "\n")
    }

    /// The current version of the model at `path`, validated; its warnings go to the log.
    private static func loadSourceModel(at path: String) throws -> ModelBundle.Version {
        let loaded = try ModelLoader.loadValidated(URL(fileURLWithPath: path), checkingWith: { $0.validateForStore() })
        let logger = Logger(label: "strata.model")
        for warning in loaded.warnings { logger.warning("\(loaded.version.file.path): \(warning)") }
        return loaded.version
    }

    /// `Author: 1, Book: 3`: the objects per entity, by name; abstract entities only when they
    /// hold objects.
    private static func describe(_ counts: [String: Int], in model: ObjectModel) -> String {
        counts.sorted { $0.key < $1.key }
            .filter { entity, count in count > 0 || model.entity(named: entity)?.isAbstract != true }
            .map { "\($0.key): \($0.value)" }.joined(separator: ", ")
    }
}

/// The objects a migration step has copied, on the terminal's status line (``StatusLine``);
/// the last count stays on screen when the migration ends.
private final class MigrationProgressLine: Sendable {
    private struct State {
        var lastShown = Date.distantPast
        var step = ""
        var text: String?
    }

    private let isShown = isatty(STDERR_FILENO) == 1
    private let state = Locked(State())

    /// Shows `progress`, at most five times a second within a step.
    @Sendable func show(_ progress: MigrationProgress) {
        guard isShown else { return }
        let text: String? = state.withLock { state in
            let now = Date()
            guard progress.step != state.step || progress.copied >= progress.total || now.timeIntervalSince(state.lastShown) > 0.2 else { return nil }
            (state.lastShown, state.step) = (now, progress.step)
            state.text = "\(progress.step): copied \(progress.copied) of \(progress.total) objects"
            return state.text
        }
        if let text { StatusLine.standardError.show { text } }
    }

    /// Ends the line, when one was shown; later calls do nothing.
    func finish() {
        guard let text = state.withLock({ state in defer { state.text = nil }; return state.text }) else { return }
        StatusLine.standardError.writing(to: .standardError) { FileHandle.standardError.write(Data((text + "\n").utf8)) }
    }
}
