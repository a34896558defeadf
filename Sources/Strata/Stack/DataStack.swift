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
        /// How the stack's contexts are arranged: three-tier (the default) or two-tier.
        public var topology: Topology = .threeTier
        /// Whether a store made with another version of the model is migrated to it, in one
        /// step inferred straight from that version, as Core Data's automatic migration (see
        /// ``StoreMigrator``; the old store is kept as a backup beside it). The version that
        /// made the store must be one of ``modelVersions``; off, such a store is refused.
        public var automigrates = true
        /// The versions of the model (its `.xcdatamodeld` bundle) that a store may have been
        /// made with; the stack's model must be one of them. Without them, only a store of the
        /// stack's own model opens.
        public var modelVersions: ModelBundle?
        /// Versions of ``modelVersions`` an automatic migration goes through, in order, each a
        /// step of its own (``StoreMigrator/route``); empty, it goes straight to the stack's
        /// version, as Core Data's automatic migration.
        public var migrationRoute: [String] = []
        /// The app's mapping models: a migration step they match is carried out by them instead
        /// of inferred (``StoreMigrator/mappingModels``, passes in this order).
        public var mappingModels: [MappingModel] = []
        /// What takes the place of the custom policy classes the mapping models name.
        public var migrationPolicy: (any MigrationPolicy)?
        /// Whether a store that cannot be opened (damaged, or of another model) is removed and
        /// created anew, losing its data, instead of failing.
        public var resetsOnFailure = false
        /// How the store's connection is opened.
        public var configuration = Database.Configuration()
        /// Whether the blocks of updates started with `beginUpdate` and `beginUpdateAndWait` run
        /// one after another, in the order they were started, rather than side by side (an
        /// update started inside another runs at once, nested).
        public var runsUpdatesSerially = false
        /// Whether the store records persistent history, its tables made when it has none
        /// (Core Data's `NSPersistentHistoryTrackingKey`; see ``PersistentHistory``): the same
        /// as ``Database/Configuration/tracksPersistentHistory`` of ``configuration``. A store
        /// that has the tables records history either way.
        public var tracksPersistentHistory: Bool {
            get { configuration.tracksPersistentHistory }
            set { configuration.tracksPersistentHistory = newValue }
        }
        /// How often the stack looks for saves of other processes, or `nil` (the default) for
        /// never. When one is found, the main context (and the root through it) merges it, as
        /// ``ObjectContext/mergeExternalChanges()`` does, and ``DataStack/remoteChangeNotification``
        /// is posted (Core Data's `NSPersistentStoreRemoteChangeNotificationPostOptionKey`).
        public var remoteChangePollInterval: Duration?

        /// The default options: three-tier, migrating automatically, no polling for remote changes.
        public init() {}
    }

    /// The version of Strata.
    public static let version = "0.1.0"

    /// The model the stack's store and contexts use.
    public let model: ObjectModel
    /// The model's name, used for the default file name and in descriptions.
    public let modelName: String
    /// The store file, or `nil` for a store in memory.
    public let storeURL: URL?
    /// How the stack was set up.
    public let options: Options
    /// The private context that writes to the store; the same context for the stack's life.
    public let rootContext: ObjectContext
    /// The main-queue context, for objects shown in a user interface; it merges saves.
    public let mainContext: ObjectContext

    private let current: Locked<(store: PersistentStore, created: Bool)>
    private let objectClasses = Locked<[ManagedObject.Type]>([])
    /// Runs the updates of a stack whose ``Options/runsUpdatesSerially``, one after another.
    let updateQueue = DispatchQueue(label: "strata.stack.updates")
    /// Marks ``updateQueue`` as held, down through the contexts an update waits for.
    let updateQueueToken = QueueToken.next()
    private let commitObservers = Locked<[UUID: @Sendable (ContextDidSave) -> Void]>([:])
    /// Contexts the stack made besides root and main, to reset with the store, and the
    /// observations that keep them merging.
    private let tracked = Locked<[TrackedContext]>([])
    private var rootObservation: DidSaveObservation?
    /// The timer of ``Options/remoteChangePollInterval``, and the store's `data_version` it last saw.
    let remoteChanges = Locked<(timer: DispatchSourceTimer?, dataVersion: Int64?)>((nil, nil))

    /// Sets up a stack for `model` on `location`, creating the store when there is none.
    ///
    /// - Throws: ``StoreError`` when the store cannot be opened or created
    ///   (``StoreError/notFound(path:)`` for a missing store opened read-only,
    ///   ``StoreError/locked(path:)``, a file that is no Core Data store);
    ///   ``StackError/modelMismatch(path:comparison:)`` or
    ///   ``StackError/modelVersionMismatch(path:bundle:storeVersion:stackVersion:)`` for a store
    ///   another model made that is not migrated; the ``MigrationError`` of a migration that failed.
    ///   Unless ``Options/resetsOnFailure`` replaces a store whose data cannot be used, the store is
    ///   left as it was.
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
        current = Locked((store, created))
        rootContext = ObjectContext(store: store, name: "root")
        mainContext = ObjectContext(parent: rootContext, concurrencyType: .mainQueue, name: "main")
        mainContext.automaticallyMergesChangesFromParent = true
        QueueToken.mark(updateQueue, with: updateQueueToken)
        rootObservation = rootContext.addDidSaveObserver { [commitObservers] notification in
            for observer in commitObservers.withLock({ Array($0.values) }) { observer(notification) }
        }
        if let interval = options.remoteChangePollInterval { startPollingRemoteChanges(every: interval) }
    }

    deinit {
        remoteChanges.withLock { $0.timer?.cancel() }
    }

    /// Sets up a stack in one line from a model bundle (an `.xcdatamodeld`, or any model
    /// ``ModelLoader`` reads), as `strata setup` does: its current version (or `version`),
    /// validated, on a store that is created when missing and, when another version of the
    /// bundle made it, migrated first (see ``Options/automigrates``). The store is
    /// `<bundle name>.sqlite` in the current folder unless `location` names another.
    ///
    /// ```swift
    /// let stack = try DataStack(modelAt: URL(fileURLWithPath: "Library.xcdatamodeld"))
    /// ```
    ///
    /// - Throws: ``ModelError`` when the bundle cannot be read or the version has errors;
    ///   what ``init(model:modelName:store:options:)`` throws.
    public convenience init(modelAt url: URL, version: String? = nil, store location: StoreLocation = .sqlite(nil), options: Options = Options()) throws {
        try self.init(bundle: try ModelLoader.load(url), version: version, store: location, options: options)
    }

    /// ``init(modelAt:version:store:options:)`` for a bundle already loaded.
    ///
    /// - Throws: ``ModelError`` when the version is unknown or has errors; what
    ///   ``init(model:modelName:store:options:)`` throws.
    public convenience init(bundle: ModelBundle, version: String? = nil, store location: StoreLocation = .sqlite(nil), options: Options = Options()) throws {
        let loaded = try ModelLoader.validated(bundle, version: version, checkingWith: { $0.validateForStore() })
        let logger = StrataLog.logger(label: "strata.model")
        for warning in loaded.warnings { logger.info("\(loaded.version.file.path): \(warning)") }
        var options = options
        options.modelVersions = options.modelVersions ?? bundle
        try self.init(
            model: loaded.version.model, modelName: bundle.url.deletingPathExtension().lastPathComponent, store: location, options: options)
    }

    // MARK: - Contexts

    /// The store the root context saves to (a new one after ``resetStore()``).
    public var store: PersistentStore { current.withLock { $0.store } }
    /// Whether the stack created its current store (at set-up or by a reset).
    public var createdStore: Bool { current.withLock { $0.created } }

    /// Makes every context of the stack, now and after ``resetStore()``, hand out these typed
    /// subclasses (generated by `strata model codegen`) for their entities.
    public func register(_ classes: [ManagedObject.Type]) {
        objectClasses.withLock { $0 += classes }
        rootContext.register(classes)
        mainContext.register(classes)
    }

    /// A new private context for background work: a child of the main context (three-tier)
    /// or of the root (two-tier).
    public func newWorkerContext(name: String? = nil) -> ObjectContext {
        let parent = options.topology == .threeTier ? mainContext : rootContext
        let context = ObjectContext(parent: parent, name: name ?? "worker")
        tracked.withLock { $0.append(TrackedContext(context: context, kind: .worker, observations: [])) }
        return context
    }

    /// A context on a connection of its own to the store, for large imports that should not
    /// hold up the others; its saves are merged into the root and main contexts.
    ///
    /// - Throws: the ``StoreError`` of opening the second connection (``StoreError/locked(path:)``,
    ///   say).
    public func newBatchContext(name: String = "batch") throws -> ObjectContext {
        guard let storeURL else { return newWorkerContext(name: name) }
        let batchStore = try PersistentStore.open(at: storeURL.path, model: model, configuration: options.configuration)
        let context = ObjectContext(store: batchStore, name: name)
        context.register(objectClasses.withLock { $0 })
        tracked.withLock { $0.append(TrackedContext(context: context, kind: .batch, observations: [forwardCommits(of: context)])) }
        return context
    }

    /// A main-queue context of its own on the store, for one view: it saves straight to the
    /// store and merges every other commit of the stack (BNR's per-view contexts). Commit
    /// observers see its saves; it follows the stack through ``resetStore()``.
    public func newViewContext(name: String = "view") -> ObjectContext {
        let context = ObjectContext(store: store, concurrencyType: .mainQueue, name: name)
        context.register(objectClasses.withLock { $0 })
        let merging = observeCommit { [weak context] notification in
            guard let context else { return }
            context.perform { context.mergeChanges(fromContextDidSave: notification) }
        }
        tracked.withLock { $0.append(TrackedContext(context: context, kind: .view, observations: [merging, forwardCommits(of: context)])) }
        return context
    }

    /// Passes the saves of a context on the store (batch, view) to the root and main contexts
    /// and to the commit observers.
    private func forwardCommits(of context: ObjectContext) -> DidSaveObservation {
        context.addDidSaveObserver { [weak self] notification in
            guard let self else { return }
            let (root, main) = (self.rootContext, self.mainContext)
            root.perform { root.mergeChanges(fromContextDidSave: notification) }
            main.perform { main.mergeChanges(fromContextDidSave: notification) }
            for observer in self.commitObservers.withLock({ Array($0.values) }) { observer(notification) }
        }
    }

    // MARK: - Background work

    /// Runs `body` with a new worker context on its queue, without saving, and returns what it
    /// returns: values, or objects' IDs, since the worker's objects are its alone and the
    /// worker goes with the block.
    ///
    /// ```swift
    /// let id = try await stack.background { context in try context.insert("Tag").objectID }
    /// let tag = stack.mainContext.object(with: id)
    /// ```
    ///
    /// - Throws: what `body` throws; ``ContextError/objectOutlivesItsContext(_:)`` when it
    ///   returns managed objects (an array or optional of them is refused at compile time).
    public func background<T: Sendable>(_ body: @escaping @Sendable (ObjectContext) throws -> T) async throws -> T {
        let context = newWorkerContext()
        return try await context.perform {
            let result = try body(context)
            if let object = Self.managedObject(in: result) { throw ContextError.objectOutlivesItsContext(object.objectID) }
            return result
        }
    }

    @available(*, unavailable, message: "a worker's objects cannot leave its block: return their objectID, then object(with:) in your context")
    public func background<T: ManagedObject>(_ body: @escaping @Sendable (ObjectContext) throws -> T) async throws -> T { fatalError() }

    @available(*, unavailable, message: "a worker's objects cannot leave its block: return their objectIDs, then object(with:) in your context")
    public func background<T: ManagedObject>(_ body: @escaping @Sendable (ObjectContext) throws -> [T]) async throws -> [T] { fatalError() }

    @available(*, unavailable, message: "a worker's objects cannot leave its block: return its objectID, then object(with:) in your context")
    public func background<T: ManagedObject>(_ body: @escaping @Sendable (ObjectContext) throws -> T?) async throws -> T? { fatalError() }

    /// A managed object `value` is or holds in an optional, a tuple or (as its first element) a
    /// collection, a few levels down: what the compile-time refusals of ``background(_:)``
    /// cannot see. Elements of a collection share a type, so the first tells for all.
    private static func managedObject(in value: Any, depth: Int = 0) -> ManagedObject? {
        if let object = value as? ManagedObject { return object }
        guard depth < 3 else { return nil }
        let mirror = Mirror(reflecting: value)
        let children: [Mirror.Child] = switch mirror.displayStyle {
        case .optional?, .tuple?: Array(mirror.children)
        case .collection?, .set?, .dictionary?: Array(mirror.children.prefix(1))
        default: []
        }
        return children.lazy.compactMap { managedObject(in: $0.value, depth: depth + 1) }.first
    }

    /// Runs `body` with a new worker context, then saves it through every parent to the store.
    ///
    /// - Throws: what `body` throws, else what ``ObjectContext/commit()`` throws; nothing is saved
    ///   then.
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

    /// Replaces the store with an empty one, as an app does when its user logs out: the store
    /// file, its `-wal`, `-shm` and `-journal`, and its external data folder go, and every
    /// context of the stack is reset onto the new store and stays usable: root and main (the
    /// same instances), workers, view and batch contexts. Commit observers keep working.
    ///
    /// What the old store showed is gone everywhere once it returns: every context is told
    /// (``ObjectsDidChange/isReset``) only after the new store is in place, so fetched-results
    /// controllers refetch an empty list and object monitors report their objects deleted; IDs
    /// and URIs of the old store are refused (``ContextError/objectOfAnotherStore(_:contextStore:)``),
    /// since the new store has a UUID of its own; objects still held read as they were last
    /// seen and refuse changes (``ContextError/forgottenObject(_:)``).
    ///
    /// The files are replaced as ``PersistentStore/resetFiles(at:model:configuration:)``
    /// says: a crash at any moment leaves the old store or the new one, and the reset refuses,
    /// leaving everything as it was, while another connection has the store open. Call it where
    /// the main queue is free to run (the main context's reset waits for it).
    ///
    /// - Returns: the files removed or replaced.
    /// - Throws: ``StoreError/inUse(path:processIDs:)`` while another connection (another
    ///   process, or a store this stack did not open) has the store open; ``StoreError`` when
    ///   the new store cannot be made.
    @discardableResult
    public func resetStore() throws -> [String] {
        // Removing the files is a write, which a read-only stack promised not to make.
        if options.configuration.isReadOnly, let storeURL { throw StackError.readOnly(path: storeURL.path) }
        let others = tracked.withLock { list in
            list.removeAll { $0.context == nil }
            return list.compactMap { record in record.context.map { ($0, record.kind) } }
        }
        let batches = others.filter { $0.1 == .batch }.map(\.0)
        // What the app still holds reads as the old user's data once forgotten, which a fault
        // can only do if loaded while the old store is open.
        for context in [rootContext, mainContext] + others.map(\.0) { context.performAndWait { context.loadHeldFaults() } }
        // The reset needs the file to itself: the stack's own connections close first, and
        // reopen on the old store if it cannot be had.
        for context in batches { context.performAndWait { context.store.close() } }
        rootContext.performAndWait { rootContext.store.close() }
        let removed: [String]
        let store: PersistentStore
        do {
            if let storeURL {
                removed = try PersistentStore.resetFiles(at: storeURL.path, model: model, configuration: options.configuration, predicates: .objectPredicates)
            } else {
                removed = []
            }
            store = try Self.openOrCreate(model: model, url: storeURL, options: options).0
        } catch {
            try reopenStores(views: others.filter { $0.1 == .view }.map(\.0), batches: batches)
            throw error
        }
        current.withLock { $0 = (store, true) }
        rootContext.performAndWait {
            rootContext.replaceStore(with: store)
            rootContext.reset()
        }
        mainContext.performAndWait { mainContext.reset() }
        for (context, kind) in others {
            switch kind {
            case .worker: context.performAndWait { context.reset() }
            case .view: context.performAndWait {
                context.replaceStore(with: store)
                context.reset()
            }
            case .batch:
                guard let storeURL else { continue }
                let own = try PersistentStore.open(at: storeURL.path, model: model, configuration: options.configuration)
                context.performAndWait {
                    context.replaceStore(with: own)
                    context.reset()
                }
            }
        }
        return removed
    }

    /// Opens the store again for the root, view and batch contexts after a reset that could
    /// not take the file: the stack goes on with the store it had.
    private func reopenStores(views: [ObjectContext], batches: [ObjectContext]) throws {
        guard let storeURL else { return }
        let reopened = try PersistentStore.open(at: storeURL.path, model: model, configuration: options.configuration)
        current.withLock { $0.store = reopened }
        for context in [rootContext] + views { context.performAndWait { context.replaceStore(with: reopened) } }
        for context in batches {
            let own = try PersistentStore.open(at: storeURL.path, model: model, configuration: options.configuration)
            context.performAndWait { context.replaceStore(with: own) }
        }
    }

    /// Posted on `NotificationCenter.default` when ``cleanUp()`` has closed the stack's store
    /// (SugarRecord's clean-up notification): the object is the stack, and the user info's
    /// ``storeURLKey`` holds the store's URL (absent for a store in memory).
    ///
    /// ```swift
    /// let observer = NotificationCenter.default.addObserver(
    ///     forName: DataStack.didCleanUpNotification, object: stack, queue: nil) { _ in print("closed") }
    /// ```
    public static let didCleanUpNotification = Notification.Name("StrataDataStackDidCleanUp")

    /// The user-info key of the store's URL in ``didCleanUpNotification``.
    public static let storeURLKey = "storeURL"

    /// Closes the store and the batch contexts' connections, then posts
    /// ``didCleanUpNotification``; the stack's contexts can no longer reach the store.
    public func cleanUp() {
        let batches = tracked.withLock { list in
            defer { list = [] }
            return list.filter { $0.kind == .batch }.compactMap(\.context)
        }
        for context in batches { context.store.close() }
        remoteChanges.withLock { $0.timer?.cancel() }
        store.close()
        NotificationCenter.default.post(
            name: Self.didCleanUpNotification, object: self, userInfo: storeURL.map { [Self.storeURLKey: $0] })
    }

    // MARK: - Description

    /// The stack as SugarRecord's `currentStack()` describes it: store, model, topology.
    public var description: String {
        let (store, created) = current.withLock { ($0.store, $0.created) }
        let contexts = options.topology == .threeTier
            ? "root (private, saves to the store) → main (main queue) → workers (private)"
            : "root (private, saves to the store) → main (main queue, merges) and workers (private)"
        return """
            DataStack \(Self.version)
              store     \(storeURL?.path ?? "in memory") (\(created ? "created" : "opened"), UUID \(store.metadata.uuid))
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
        guard let url else {
            var configuration = options.configuration
            configuration.isInMemory = true
            return (try PersistentStore.create(at: ":memory:", model: model, configuration: configuration, predicates: .objectPredicates), true)
        }
        guard FileManager.default.fileExists(atPath: url.path) else {
            // A read-only stack makes nothing, a store least of all.
            if options.configuration.isReadOnly { throw StoreError.notFound(path: url.path) }
            return (try PersistentStore.create(at: url.path, model: model, configuration: options.configuration, predicates: .objectPredicates), true)
        }
        var failure: any Error
        do {
            return (try PersistentStore.open(at: url.path, model: model, configuration: options.configuration), false)
        } catch {
            failure = error
        }
        if case StoreError.modelMismatch(let path, let comparison) = failure {
            failure = StackError.modelMismatch(path: path, comparison: comparison)
            if !options.automigrates, let versions = options.modelVersions, let storeVersion = versionOfStore(at: path, among: versions) {
                let hashes = model.entityVersionHashes()
                failure = StackError.modelVersionMismatch(
                    path: path, bundle: versions.url.lastPathComponent, storeVersion: storeVersion,
                    stackVersion: versions.versions.first { $0.model.entityVersionHashes() == hashes }?.name)
            }
            if options.automigrates {
                do {
                    try migrate(url, to: model, options: options)
                    return (try PersistentStore.open(at: url.path, model: model, configuration: options.configuration), false)
                } catch {
                    failure = error
                }
            }
        }
        let isUnusable = switch failure {
        case StoreError.notSQLite, StoreError.notACoreDataStore, StoreError.modelCacheUnreadable, is StackError: true
        case MigrationError.sourceModelNotFound, MigrationError.unmappable, MigrationError.dataDoesNotFit: true
        default: false
        }
        // Only a store whose data cannot be used is replaced, and only when asked; a locked or
        // unreadable file is an error either way.
        if isUnusable, options.resetsOnFailure {
            _ = try PersistentStore.resetFiles(at: url.path, model: model, configuration: options.configuration, predicates: .objectPredicates)
            return (try PersistentStore.open(at: url.path, model: model, configuration: options.configuration), true)
        }
        throw failure
    }

    /// The name of the version among `versions` that made the store at `path`, read from its
    /// metadata alone; `nil` when none did or the metadata cannot be read.
    private static func versionOfStore(at path: String, among versions: ModelBundle) -> String? {
        // Read as PersistentStore reads a store read-only: without a -wal, as immutable, which
        // makes no -wal or -shm beside it.
        var configuration = Database.Configuration.readOnly
        configuration.isImmutable = !FileManager.default.fileExists(atPath: (SymbolicLinks.finalPath(of: path) ?? path) + "-wal")
        guard let database = try? Database(path: path, configuration: configuration) else { return nil }
        defer { database.close() }
        guard let metadata = try? StoreMetadata(reading: database) else { return nil }
        return versions.version(thatMade: metadata)?.name
    }

    /// Migrates the store at `url` to `model`, from the version among `versions` that made it.
    private static func migrate(_ url: URL, to model: ObjectModel, options: Options) throws(MigrationError) {
        let versions = options.modelVersions
        let hashes = model.entityVersionHashes()
        let bundle = versions ?? ModelBundle(
            url: url, versions: [ModelBundle.Version(name: "the stack's model", file: url, model: model)],
            currentVersionName: "the stack's model", currentVersionReason: "the only version")
        guard let destination = bundle.versions.first(where: { $0.model.entityVersionHashes() == hashes }) else {
            throw .cannotMigrate(path: url.path, reason: "the stack's model is none of the versions of \(bundle.url.lastPathComponent)")
        }
        // Unattended, a migration starts only from a version the app ships, as Core Data's does.
        var migrator = try StoreMigrator(
            storePath: url.path, bundle: bundle, destinationVersion: destination.name, route: options.migrationRoute, usesStoreModel: false)
        migrator.busyTimeout = options.configuration.busyTimeout
        migrator.mappingModels = options.mappingModels
        migrator.policy = options.migrationPolicy
        let result = try migrator.migrate()
        StrataLog.logger(label: "strata.migrate").info(
            "\(url.path): migrated from model version \(result.plan.sourceVersion) to \(destination.name)\(result.backupPath.map { ", the old store kept as \($0)" } ?? "")")
    }
}

/// A context the stack made besides root and main.
private struct TrackedContext {
    enum Kind { case worker, view, batch }
    weak var context: ObjectContext?
    var kind: Kind
    var observations: [DidSaveObservation]
}
