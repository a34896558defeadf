import Foundation

/// A Core Data stack in one line: a store, a root context that saves to it, a main-queue
/// context for the user interface, and worker contexts for background work.
///
/// ```swift
/// let stack = try DataStack(model: model, store: .sqlite(URL(fileURLWithPath: "Library.sqlite")))
/// try await stack.save(inBackground: { context in
///     let tag = try context.insert("Tag")
///     try tag.setValue("fantasy", forKey: "name")
/// })
/// ```
///
/// Topologies (``Topology``): three-tier (the default: root private context → main context →
/// workers, as BNR's and CoreDataMonk's stacks), or two-tier (workers save to the root and the
/// main context merges, as SugarRecord's). ``newBatchContext()`` gives a context on a
/// connection of its own for large imports; its saves are merged into the stack's contexts.
public final class DataStack: @unchecked Sendable, CustomStringConvertible {
    /// Where the store is.
    public enum StoreLocation: Sendable, Equatable {
        /// An SQLite file; `nil` names it after the model (`Library.sqlite`) in the current folder.
        case sqlite(URL?)
        /// A store in memory, gone with the stack.
        case inMemory
    }

    /// How the stack's contexts are chained.
    public enum Topology: String, Sendable {
        /// Workers are children of the main context, which is a child of the root.
        case threeTier = "three-tier"
        /// Workers and the main context are children of the root; the main context merges.
        case twoTier = "two-tier"
    }

    /// How the stack is set up.
    public struct Options: Sendable {
        public var topology: Topology = .threeTier
        /// Whether a store of an older model version is migrated. Migration is not available
        /// yet: a store of another model is refused either way, saying so.
        public var automigrates = true
        /// Whether a store that cannot be opened (damaged, or of another model) is removed and
        /// created anew, losing its data, instead of failing.
        public var resetsOnFailure = false
        /// How the store's connection is opened.
        public var configuration = Database.Configuration()

        public init() {}
    }

    /// The version of Strata.
    public static let version = "0.1.0"

    public let model: ObjectModel
    /// The model's name, used for the default file name and in descriptions.
    public let modelName: String
    /// The store file, or `nil` for a store in memory.
    public let storeURL: URL?
    public let options: Options
    /// Whether opening the stack created the store.
    public private(set) var createdStore: Bool

    private let state: Locked<State>
    private let commitObservers = Locked<[UUID: @Sendable (ContextDidSave) -> Void]>([:])

    private struct State {
        var store: PersistentStore
        var rootContext: ObjectContext
        var mainContext: ObjectContext
        var rootObservation: DidSaveObservation
        var batchObservations: [DidSaveObservation] = []
    }

    /// Sets up a stack for `model` on `location`, creating the store when there is none.
    public init(model: ObjectModel, modelName: String = "Model", store location: StoreLocation = .sqlite(nil), options: Options = Options()) throws {
        self.model = model
        self.modelName = modelName
        self.options = options
        switch location {
        case .inMemory: storeURL = nil
        case .sqlite(let url):
            storeURL = url ?? Self.defaultStoreURL(modelName: modelName, in: URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
        }
        let (store, created) = try Self.openOrCreate(model: model, url: storeURL, options: options)
        createdStore = created
        state = Locked(try Self.contexts(on: store, topology: options.topology, observers: commitObservers))
    }

    // MARK: - Contexts

    /// The store the root context saves to.
    public var store: PersistentStore { state.withLock { $0.store } }
    /// The private context that writes to the store.
    public var rootContext: ObjectContext { state.withLock { $0.rootContext } }
    /// The main-queue context, for objects shown in a user interface; it merges saves.
    public var mainContext: ObjectContext { state.withLock { $0.mainContext } }

    /// A new private context for background work: a child of the main context (three-tier)
    /// or of the root (two-tier).
    public func newWorkerContext(name: String? = nil) -> ObjectContext {
        let parent = options.topology == .threeTier ? mainContext : rootContext
        return ObjectContext(parent: parent, name: name ?? "worker")
    }

    /// A context on a connection of its own to the store, for large imports that should not
    /// hold up the others; its saves are merged into the root and main contexts.
    public func newBatchContext(name: String = "batch") throws -> ObjectContext {
        guard let storeURL else { return newWorkerContext(name: name) }
        let batchStore = try PersistentStore.open(at: storeURL.path, model: model, configuration: options.configuration)
        let context = ObjectContext(store: batchStore, name: name)
        let observation = context.addDidSaveObserver { [weak self] notification in
            guard let self else { return }
            let (root, main) = self.state.withLock { ($0.rootContext, $0.mainContext) }
            root.perform { root.mergeChanges(fromContextDidSave: notification) }
            main.perform { main.mergeChanges(fromContextDidSave: notification) }
            for observer in self.commitObservers.withLock({ Array($0.values) }) { observer(notification) }
        }
        state.withLock { $0.batchObservations.append(observation) }
        return context
    }

    // MARK: - Background work

    /// Runs `body` with a new worker context on its queue, without saving.
    public func background<T: Sendable>(_ body: @escaping @Sendable (ObjectContext) throws -> T) async throws -> T {
        let context = newWorkerContext()
        return try await context.perform { try body(context) }
    }

    /// Runs `body` with a new worker context, then saves it through every parent to the store.
    public func save(inBackground body: @escaping @Sendable (ObjectContext) throws -> Void) async throws {
        let context = newWorkerContext()
        try await context.perform {
            try body(context)
            try context.commit()
        }
    }

    /// ``save(inBackground:)`` with a completion called on the main queue with the outcome.
    public func save(
        inBackground body: @escaping @Sendable (ObjectContext) throws -> Void,
        completion: @escaping @Sendable (Error?) -> Void
    ) {
        let context = newWorkerContext()
        context.perform {
            var failure: Error?
            do {
                try body(context)
                try context.commit()
            } catch {
                failure = error
            }
            DispatchQueue.main.async { [failure] in completion(failure) }
        }
    }

    /// Calls `handler` after every save that reaches the store (root and batch contexts), on
    /// the saving context's queue. It keeps working across ``resetStore()``.
    public func observeCommit(_ handler: @escaping @Sendable (ContextDidSave) -> Void) -> DidSaveObservation {
        let token = UUID()
        commitObservers.withLock { $0[token] = handler }
        return DidSaveObservation { [weak self] in
            _ = self?.commitObservers.withLock { $0.removeValue(forKey: token) }
        }
    }

    // MARK: - Reset

    /// Removes the store file, its `-wal`, `-shm` and `-journal`, and its external data folder,
    /// creates an empty store, and gives the stack new root and main contexts. Contexts made
    /// before are reset and can no longer reach the store; observers of ``observeCommit(_:)``
    /// keep working.
    ///
    /// - Returns: the files removed.
    @discardableResult
    public func resetStore() throws -> [String] {
        let old = state.withLock { $0 }
        for context in [old.mainContext, old.rootContext] {
            context.performAndWait { context.reset() }
        }
        old.store.close()
        var removed: [String] = []
        if let storeURL {
            let folder = storeURL.deletingLastPathComponent()
            let externalData = folder.appendingPathComponent(".\(storeURL.deletingPathExtension().lastPathComponent)_SUPPORT").path
            for path in ["", "-wal", "-shm", "-journal"].map({ storeURL.path + $0 }) + [externalData]
            where FileManager.default.fileExists(atPath: path) {
                try FileManager.default.removeItem(atPath: path)
                removed.append(path)
            }
        }
        let (store, _) = try Self.openOrCreate(model: model, url: storeURL, options: options)
        let fresh = try Self.contexts(on: store, topology: options.topology, observers: commitObservers)
        state.withLock { $0 = fresh }
        return removed
    }

    /// Closes the store; the stack's contexts can no longer reach it.
    public func cleanUp() {
        state.withLock { state in
            state.batchObservations = []
            state.store.close()
        }
    }

    // MARK: - Description

    /// The stack as SugarRecord's `currentStack()` describes it: store, model, topology.
    public var description: String {
        let store = self.store
        let contexts = options.topology == .threeTier
            ? "root (private, saves to the store) → main (main queue) → workers (private)"
            : "root (private, saves to the store) → main (main queue, merges) and workers (private)"
        return """
            DataStack \(Self.version)
              store     \(storeURL?.path ?? "in memory") (\(createdStore ? "created" : "opened"), UUID \(store.metadata.uuid))
              model     \(modelName): \(model.entities.count) entities
              topology  \(options.topology.rawValue): \(contexts)
            """
    }

    // MARK: - Setting up

    /// `<folder>/<model name>.sqlite`, the file a stack uses when none is named (SugarRecord's
    /// `defaultDatabaseName`).
    public static func defaultStoreURL(modelName: String, in folder: URL) -> URL {
        folder.appendingPathComponent("\(modelName).sqlite")
    }

    private static func openOrCreate(model: ObjectModel, url: URL?, options: Options) throws -> (PersistentStore, Bool) {
        guard let url else { return (try PersistentStore.create(at: ":memory:", model: model, configuration: options.configuration), true) }
        guard FileManager.default.fileExists(atPath: url.path) else {
            return (try PersistentStore.create(at: url.path, model: model, configuration: options.configuration), true)
        }
        let failure: StoreError
        do {
            return (try PersistentStore.open(at: url.path, model: model, configuration: options.configuration), false)
        } catch {
            failure = error
        }
        guard options.resetsOnFailure else {
            if case .modelMismatch(let path, let comparison) = failure {
                throw StackError.modelMismatch(path: path, comparison: comparison, automigrates: options.automigrates)
            }
            throw failure
        }
        for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
        return (try PersistentStore.create(at: url.path, model: model, configuration: options.configuration), true)
    }

    private static func contexts(
        on store: PersistentStore, topology: Topology, observers: Locked<[UUID: @Sendable (ContextDidSave) -> Void]>
    ) throws -> State {
        let root = ObjectContext(store: store, name: "root")
        let main = ObjectContext(parent: root, concurrencyType: .mainQueue, name: "main")
        main.automaticallyMergesChangesFromParent = true
        let observation = root.addDidSaveObserver { notification in
            for observer in observers.withLock({ Array($0.values) }) { observer(notification) }
        }
        return State(store: store, rootContext: root, mainContext: main, rootObservation: observation)
    }
}

/// An error setting up a stack.
public enum StackError: Error, Sendable, CustomStringConvertible {
    /// The store was made with another model, and migration is not available yet.
    case modelMismatch(path: String, comparison: HashComparison, automigrates: Bool)

    public var description: String {
        switch self {
        case .modelMismatch(let path, let comparison, let automigrates):
            "\(path): the store was made with another model; \(comparison.summary)"
                + (automigrates ? " (automatic migration is not available yet)" : " (automatic migration is off)")
        }
    }
}
