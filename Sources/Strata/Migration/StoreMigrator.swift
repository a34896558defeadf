import Foundation

/// Migrates a store to a version of its model, as Core Data's lightweight migration does: in
/// one step inferred straight from the store's version to the destination, or through versions
/// named in ``route`` when asked.
///
/// The store's `NSStoreModelVersionHashes` say which model made it: a version of the bundle, a
/// model given as `sourceModel`, or the model the store keeps itself (Core Data's
/// `Z_MODELCACHE`, or the copy Strata records). As with Core Data's inferred mapping, the
/// versions in between play no part unless a route names them, so their names and order do not
/// matter, and an entity that one of them removes and a later one adds back keeps its objects.
/// Version identifiers are labels, never compared: a store of any version of the bundle
/// migrates to any other, whichever identifier sorts first.
///
/// ```swift
/// let bundle = try ModelLoader.load(URL(fileURLWithPath: "Library.xcdatamodeld"))
/// let migrator = try StoreMigrator(storePath: "Library.sqlite", bundle: bundle)
/// let plan = try migrator.plan()            // nothing changes yet
/// print(plan)                               // the steps, their changes, the objects per entity
/// let result = try migrator.migrate(plan)   // Library.sqlite.20261122T101500Z.bak keeps the old store
/// ```
///
/// A migration copies the objects into a new file next to the store, checks it (what the data
/// must keep, SQLite's integrity check, the objects per entity the plan predicts, the model's
/// hashes), and only then puts it in the store's place with one `rename`. A failure or an
/// interruption at any point before leaves the store as it was. Other processes should close
/// the store first: Strata refuses when one is writing to it, but cannot see one that only
/// holds it open, which would go on with the old store.
public struct StoreMigrator: Sendable {
    /// The store to migrate.
    public let storePath: String
    /// The versions the store may have been made with and may migrate to.
    public let bundle: ModelBundle
    /// The version to migrate to.
    public let destination: ModelBundle.Version
    /// The model the store was made with, when the bundle does not hold it.
    public let sourceModel: ModelBundle.Version?
    /// Versions of the bundle to go through, in the order given (never sorted by name or
    /// version identifier), between the store's and ``destination``: each is a step of its own
    /// (a step-by-step migration). Empty, the migration is one step, as Core Data's automatic
    /// migration.
    public let route: [ModelBundle.Version]
    /// Whether the model the store keeps itself (Core Data's `Z_MODELCACHE`, or the copy
    /// Strata records) may be the source when no version of the bundle made the store.
    public let usesStoreModel: Bool
    /// How long a migration waits for another connection's write to end before it refuses.
    public var busyTimeout: Duration = .seconds(1)
    /// The mapping models at hand: a step whose source and destination models match one (by
    /// their entity version hashes, as Core Data matches) is carried out by it, and no
    /// lightweight mapping is inferred for it. Several that match one step run as passes, in
    /// this order, when ``runsMatchingMappingModelsAsPasses``; otherwise the step is refused.
    public var mappingModels: [MappingModel] = []
    /// Whether several mapping models that match one step run as passes in the order of
    /// ``mappingModels`` (the order the user gave them), or refuse the step (mapping models
    /// found beside a bundle have no order of their own).
    public var runsMatchingMappingModelsAsPasses = true
    /// What takes the place of the custom `NSEntityMigrationPolicy` classes that mapping
    /// models name; a mapped step naming one the policy does not handle is refused.
    public var policy: (any MigrationPolicy)?

    /// A migrator of the store at `storePath` to the bundle's version `destinationVersion`
    /// (its current version by default), through the versions `route` names, if any.
    ///
    /// ```swift
    /// // One step, Library → Library 3, as Core Data's automatic migration:
    /// try StoreMigrator(storePath: path, bundle: bundle).migrate()
    /// // Two steps, Library → Library 2 → Library 3:
    /// try StoreMigrator(storePath: path, bundle: bundle, route: ["Library 2"]).migrate()
    /// ```
    ///
    /// - Throws: ``MigrationError`` naming the versions when `destinationVersion` or a version
    ///   of `route` is not one of the bundle's.
    public init(
        storePath: String, bundle: ModelBundle, destinationVersion: String? = nil, route: [String] = [],
        sourceModel: ModelBundle.Version? = nil, usesStoreModel: Bool = true
    ) throws(MigrationError) {
        self.storePath = storePath
        self.bundle = bundle
        self.usesStoreModel = usesStoreModel
        do {
            destination = try bundle.version(named: destinationVersion)
            self.route = try route.map { name throws(ModelError) in try bundle.version(named: name) }
        } catch {
            throw .unknownVersion(path: storePath, error: error)
        }
        self.sourceModel = sourceModel
    }

    // MARK: - Planning

    /// The steps that take the store to ``destination``, inferred and counted without changing
    /// anything; no steps when the store already matches it.
    ///
    /// - Throws: ``MigrationError`` when the store's model cannot be found, or a step cannot
    ///   be inferred (with every reason).
    public func plan() throws(MigrationError) -> MigrationPlan {
        let store: PersistentStore
        do {
            store = try PersistentStore.open(at: storePath, configuration: .readOnly)
        } catch {
            throw .store(error)
        }
        defer { store.close() }
        let hashes = store.metadata.entityVersionHashes
        let storeModel = store.modelSource == .modelCache ? store.model : nil
        if store.metadata.comparison(with: destination.model, storeModel: storeModel).isMatch {
            return MigrationPlan(storePath: storePath, sourceVersion: destination.name, steps: [], storeHashes: hashes)
        }
        let chain = try versionChain(storeHashes: hashes, store: store)
        var steps: [MigrationStep] = []
        var counts: [String: Int]
        var schema: StoreSchema? = store.schema
        do {
            // Counted with the store's own model, whose layout the store has.
            let source = try PersistentStore.open(at: storePath, model: chain[0].model, requiresMatchingModel: false, configuration: .readOnly)
            defer { source.close() }
            counts = try source.withConnection { try source.rowCountsExcludingSubentities() }
        } catch let error as StoreError {
            throw .store(error)
        } catch {
            throw error.asMigrationError(path: storePath, step: "counting the store's objects")
        }
        for (from, to) in zip(chain, chain.dropFirst()) {
            for version in [from, to] {
                if let issue = version.model.validate().first(where: { $0.severity == .error }) {
                    throw .unmappable(path: storePath, step: "\(from.name) → \(to.name)", reasons: ["version \(version.name) is not a valid model: \(issue)"])
                }
            }
            let matched = try mappingModels(from: from, to: to)
            do {
                let step = try MigrationStep(from: (from.name, from.model), to: (to.name, to.model), sourceSchema: schema, sourceCounts: counts, mappingModels: matched)
                steps.append(step)
                counts = step.expectedCounts
                schema = nil
            } catch {
                throw .unmappable(path: storePath, step: "\(from.name) → \(to.name)", reasons: error.reasons)
            }
        }
        if !steps.isEmpty {
            do {
                steps[0].droppedValueCounts = try store.withConnection { try steps[0].countDroppedValues(in: store.database) }
            } catch {
                throw error.asMigrationError(path: storePath, step: "counting the values the migration drops")
            }
        }
        return MigrationPlan(storePath: storePath, sourceVersion: chain[0].name, steps: steps, storeHashes: hashes)
    }

    /// The mapping models that carry out the step from `from` to `to`, refused when several
    /// match and may not run as passes, or when one names a policy class ``policy`` does not
    /// handle.
    private func mappingModels(from: ModelBundle.Version, to: ModelBundle.Version) throws(MigrationError) -> [MappingModel] {
        let matched = mappingModels.filter { $0.matches(source: from.model, destination: to.model) }
        let step = "\(from.name) → \(to.name)"
        if matched.count > 1, !runsMatchingMappingModelsAsPasses {
            throw .unmappable(path: storePath, step: step, reasons: [
                "the mapping models \(matched.map(\.name).joined(separator: ", ")) all match this step; name the ones to use as passes, in the order they run (strata migrate --mapping PATH, repeated)"
            ])
        }
        var reasons: [String] = []
        for model in matched {
            for mapping in model.entityMappings where mapping.policyClassName != nil || mapping.kind == .custom {
                guard policy?.handles(mapping) != true else { continue }
                let what = mapping.policyClassName.map { "names the custom policy class \($0), whose Objective-C code Strata cannot run" } ?? "is a custom entity mapping"
                reasons.append("entity mapping \(mapping.name) of \(model.name) \(what); give a Lua policy with a hook for \(mapping.name) (strata migrate --policy FILE)")
            }
        }
        if !reasons.isEmpty { throw .unmappable(path: storePath, step: step, reasons: reasons) }
        return matched
    }

    /// The versions from the store's to ``destination``: the store's, those ``route`` names
    /// (less the store's and the destination), and the destination.
    ///
    /// The order is the store's version, then ``route`` in the order it is given, then the
    /// destination: nothing is sorted. Version identifiers are free labels (`v1.3` may be older
    /// than `1.9`), so, as with Core Data, which never compares `versionIdentifiers`, they
    /// neither order the steps nor make a store "newer": a store of any version the bundle holds
    /// (found by its hashes) migrates to any other, "back" included, and what the destination
    /// no longer has is dropped as the inferred mapping says (the plan names it, the old store
    /// is kept as a backup).
    private func versionChain(storeHashes: [String: Data], store: PersistentStore) throws(MigrationError) -> [ModelBundle.Version] {
        let source = try sourceVersion(storeHashes: storeHashes, store: store)
        let between = route.filter { $0.name != source.name && $0.name != destination.name }
        return [source] + between + [destination]
    }

    /// The version that made the store: the bundle's version with its hashes, else
    /// ``sourceModel``, else the model the store keeps (when ``usesStoreModel``).
    private func sourceVersion(storeHashes: [String: Data], store: PersistentStore) throws(MigrationError) -> ModelBundle.Version {
        if let version = bundle.version(thatMade: store.metadata, storeModel: store.modelSource == .modelCache ? store.model : nil) {
            return version
        }
        if let sourceModel {
            let comparison = HashComparison(store: storeHashes, model: sourceModel.model.entityVersionHashes())
            guard comparison.isMatch else {
                throw .sourceModelNotFound(path: storePath, reason: "the given model \(sourceModel.name) is not the store's: \(comparison.summary)")
            }
            return sourceModel
        }
        if usesStoreModel, [.modelCache, .storeMetadata].contains(store.modelSource) {
            let name = store.modelSource == .modelCache ? "the store's model cache" : "the model recorded in the store"
            return ModelBundle.Version(name: name, file: URL(fileURLWithPath: storePath), model: store.model)
        }
        let ownModel = usesStoreModel ? ", and the store keeps no model of its own" : ""
        throw .sourceModelNotFound(
            path: storePath,
            reason: "it is none of the versions of \(bundle.url.lastPathComponent) (\(bundle.versions.map(\.name).joined(separator: ", ")))\(ownModel); name the model that made it (strata migrate --from-model)")
    }
}

/// The steps of a migration, and the versions they go through.
public struct MigrationPlan: Sendable, CustomStringConvertible {
    /// The store the plan migrates.
    public var storePath: String
    /// The version the store was made with.
    public var sourceVersion: String
    /// The steps, in order; none when the store already matches the destination.
    public var steps: [MigrationStep]
    /// The store's version hashes when the plan was made: a store migrated since by someone
    /// else does not run a stale plan.
    let storeHashes: [String: Data]

    /// Whether the store already matches the destination.
    public var isEmpty: Bool { steps.isEmpty }

    /// The plan in words: each step's changes and objects per entity.
    public var description: String {
        guard let last = steps.last else { return "\(storePath): the store matches version \(sourceVersion); nothing to migrate" }
        let through = steps.dropLast().map(\.destinationVersion)
        let route = through.isEmpty ? "in 1 step" : "in \(steps.count) steps, through \(through.joined(separator: ", "))"
        var lines = ["\(storePath): from \(sourceVersion) to \(last.destinationVersion) \(route)"]
        lines += steps.map(\.description)
        return lines.joined(separator: "\n")
    }

    /// Every step's SQL, each step under a comment naming it.
    public var sql: String {
        steps.map { step in (["-- \(step.name)"] + step.statements.map { $0 + ";" }).joined(separator: "\n") }.joined(separator: "\n\n")
    }
}
