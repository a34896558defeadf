import Foundation

/// Migrates a store to a version of its model, as Core Data's lightweight migration does, step
/// by step through the versions of a bundle.
///
/// The store's `NSStoreModelVersionHashes` say which model made it: a version of the bundle
/// (then each later version is a step, in the bundle's order), a model given as `sourceModel`,
/// or the model the store keeps itself (Core Data's `Z_MODELCACHE`, or the copy Strata records).
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
    /// Whether the model the store keeps itself (Core Data's `Z_MODELCACHE`, or the copy
    /// Strata records) may be the source when no version of the bundle made the store.
    public let usesStoreModel: Bool
    /// How long a migration waits for another connection's write to end before it refuses.
    public var busyTimeout: Duration = .seconds(1)

    /// A migrator of the store at `storePath` to the bundle's version `destinationVersion`
    /// (its current version by default).
    ///
    /// - Throws: ``MigrationError`` naming the versions when `destinationVersion` is not one.
    public init(
        storePath: String, bundle: ModelBundle, destinationVersion: String? = nil, sourceModel: ModelBundle.Version? = nil,
        usesStoreModel: Bool = true
    ) throws(MigrationError) {
        self.storePath = storePath
        self.bundle = bundle
        self.usesStoreModel = usesStoreModel
        do {
            destination = try bundle.version(named: destinationVersion)
        } catch {
            throw .cannotMigrate(path: storePath, reason: error.description)
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
        if hashes == destination.model.entityVersionHashes() {
            return MigrationPlan(storePath: storePath, sourceVersion: destination.name, versionOrder: nil, steps: [], storeHashes: hashes)
        }
        let (chain, order) = try versionChain(storeHashes: hashes, store: store)
        var steps: [MigrationStep] = []
        var counts: [String: Int]
        var schema: StoreSchema? = store.schema
        do {
            // Counted with the store's own model, whose layout the store has.
            let source = try PersistentStore.open(at: storePath, model: chain[0].model, requiresMatchingModel: false, configuration: .readOnly)
            defer { source.close() }
            counts = try source.withConnection { try source.rowCounts() }
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
            do {
                let step = try MigrationStep(from: (from.name, from.model), to: (to.name, to.model), sourceSchema: schema, sourceCounts: counts)
                steps.append(step)
                counts = step.expectedCounts
                schema = nil
            } catch {
                throw .unmappable(path: storePath, step: "\(from.name) → \(to.name)", reasons: error.reasons)
            }
        }
        return MigrationPlan(storePath: storePath, sourceVersion: chain[0].name, versionOrder: order, steps: steps, storeHashes: hashes)
    }

    /// The versions from the store's to ``destination``, and the order they were taken in (for
    /// a chain of the bundle's versions).
    private func versionChain(storeHashes: [String: Data], store: PersistentStore) throws(MigrationError) -> ([ModelBundle.Version], String?) {
        let (versions, order) = Self.migrationOrder(of: bundle.versions)
        if let start = versions.firstIndex(where: { $0.model.entityVersionHashes() == storeHashes }) {
            guard let end = versions.firstIndex(where: { $0.name == destination.name }) else { return ([versions[start], destination], nil) }
            guard start < end else {
                throw .newerStore(path: storePath, storeVersion: versions[start].name, destinationVersion: destination.name)
            }
            return (Array(versions[start...end]), order)
        }
        if let sourceModel {
            let comparison = HashComparison(store: storeHashes, model: sourceModel.model.entityVersionHashes())
            guard comparison.isMatch else {
                throw .sourceModelNotFound(path: storePath, reason: "the given model \(sourceModel.name) is not the store's: \(comparison.summary)")
            }
            return ([sourceModel, destination], nil)
        }
        if usesStoreModel, [.modelCache, .storeMetadata].contains(store.modelSource) {
            // A store whose version identifier comes after the destination's was made by a
            // later version than the bundle knows: migrating it "back" would drop what that
            // version added.
            let destinationIdentifier = destination.model.versionIdentifier
            if let storeIdentifier = store.metadata.versionIdentifiers.first, !storeIdentifier.isEmpty, !destinationIdentifier.isEmpty,
                storeIdentifier.compare(destinationIdentifier, options: .numeric) == .orderedDescending
            {
                throw .newerStore(
                    path: storePath, storeVersion: "identifier \(storeIdentifier)",
                    destinationVersion: "\(destination.name) (version identifier \(destinationIdentifier))")
            }
            let name = store.modelSource == .modelCache ? "the store's model cache" : "the model recorded in the store"
            return ([ModelBundle.Version(name: name, file: URL(fileURLWithPath: storePath), model: store.model), destination], nil)
        }
        let ownModel = usesStoreModel ? ", and the store keeps no model of its own" : ""
        throw .sourceModelNotFound(
            path: storePath,
            reason: "it is none of the versions of \(bundle.url.lastPathComponent) (\(versions.map(\.name).joined(separator: ", ")))\(ownModel); name the model that made it (strata migrate --from-model)")
    }

    /// The versions in the order a store goes through them: by version identifier when each
    /// version has its own (compared as numbers, `1.9` before `1.10`), else by name (as the
    /// bundle lists them, numbers by value); and that order in words.
    static func migrationOrder(of versions: [ModelBundle.Version]) -> ([ModelBundle.Version], String) {
        let identifiers = versions.map(\.model.versionIdentifier)
        if !identifiers.contains(""), Set(identifiers).count == identifiers.count {
            let ordered = versions.sorted { $0.model.versionIdentifier.compare($1.model.versionIdentifier, options: .numeric) == .orderedAscending }
            return (ordered, "versions by their version identifiers: " + ordered.map { "\($0.name) (\($0.model.versionIdentifier))" }.joined(separator: ", "))
        }
        return (versions, "versions by name, numbers by value: " + versions.map(\.name).joined(separator: ", "))
    }
}

/// The steps of a migration, and the versions they go through.
public struct MigrationPlan: Sendable, CustomStringConvertible {
    /// The store the plan migrates.
    public var storePath: String
    /// The version the store was made with.
    public var sourceVersion: String
    /// How the bundle's versions were ordered, when the steps go through them.
    public var versionOrder: String?
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
        var lines = ["\(storePath): from \(sourceVersion) to \(last.destinationVersion) in \(steps.count) step\(steps.count == 1 ? "" : "s")"]
        if let versionOrder { lines.append("(\(versionOrder))") }
        lines += steps.map(\.description)
        return lines.joined(separator: "\n")
    }

    /// Every step's SQL, each step under a comment naming it.
    public var sql: String {
        steps.map { step in (["-- \(step.name)"] + step.statements.map { $0 + ";" }).joined(separator: "\n") }.joined(separator: "\n\n")
    }
}
