import CSQLite
import Foundation

/// A Core Data SQLite store, opened or created: its connection, metadata, model and layout.
///
/// ```swift
/// let store = try PersistentStore.create(at: "Library.sqlite", model: model)
/// let existing = try PersistentStore.open(at: "App.sqlite")   // model from Z_MODELCACHE or inferred
/// existing.modelSource             // .modelCache
/// existing.comparison.isMatch      // metadata hashes equal the model's
/// ```
///
/// The store's connection is used by one thread at a time: contexts that share a store go
/// through ``withConnection(_:)``, which serializes them.
///
/// Opening changes nothing in the file: its journal mode stays unless the configuration asks to
/// convert it, Core Data's persistent history tables are made only when the configuration asks
/// to track history (``Database/Configuration/tracksPersistentHistory``) and the store lacks
/// them, a file without write permission opens read-only, and
/// ``Database/Configuration/readOnly`` never writes.
///
/// A writable store that keeps persistent history records every transaction of its
/// connection there (see ``keepsPersistentHistory``).
public final class PersistentStore: @unchecked Sendable {
    /// Where the store's model came from.
    package enum ModelSource: Sendable, Equatable, CustomStringConvertible {
        /// Given by the caller, described by `origin` (usually a file path).
        case given(origin: String)
        /// Decoded from the store's `Z_MODELCACHE`, which Core Data and Strata write into every
        /// store they create or migrate. Where the store's metadata also holds Strata's copy
        /// of the same model (same entity version hashes), that copy is the model: it keeps
        /// what Strata does not read from a cache (validation rules, Xcode's settings) and the
        /// predicates a cache written without a ``PredicateArchiver`` leaves out.
        case modelCache
        /// Read from the model Strata recorded in the store's metadata when it created the
        /// store: a store that Strata made before it wrote `Z_MODELCACHE`.
        case storeMetadata
        /// Inferred from `Z_PRIMARYKEY` and the tables: entity names, hierarchy, attributes from
        /// column types, and to-one relationships from their key indexes.
        case inferred

        /// The source as `strata inspect` shows it: the given origin as is, or a short phrase
        /// naming the model cache or the inference.
        package var description: String {
            switch self {
            case .given(let origin): origin
            case .modelCache: "model cache (Z_MODELCACHE)"
            case .storeMetadata: "the model Strata recorded in the store's metadata"
            case .inferred: "inferred from the schema"
            }
        }
    }

    /// The store file's path as given to ``create(at:model:configuration:)`` or
    /// ``open(at:model:modelOrigin:requiresMatchingModel:configuration:)``; its `-wal` and `-shm`
    /// files, when it has them, lie beside it.
    public let path: String
    /// The connection to the store file. Every read and write of the store goes through it, and
    /// writes belong inside its ``Database/inTransaction(_:)``.
    public let database: Database
    /// The tables, indexes and `Z_PRIMARYKEY` rows of the file as read when the store was opened
    /// or created; not refreshed afterwards.
    package let schema: StoreSchema
    /// The store's `Z_METADATA` row: its UUID and the property list with
    /// `NSStoreModelVersionHashes`, as read on opening or as written on creating.
    public let metadata: StoreMetadata
    /// The model the store is used with: the one given, else the one in `Z_MODELCACHE`, else
    /// one inferred from the schema (see ``modelSource``).
    public let model: ObjectModel
    /// Where ``model`` came from: the caller, the store's `Z_MODELCACHE`, or inference from the
    /// schema.
    package let modelSource: ModelSource
    /// Where ``model``'s entities live in this file: `Z_ENT` numbers, tables, columns, join tables
    /// and indexes, with the names the file already uses where they differ from Strata's choice.
    package let layout: StoreLayout
    /// How the store's recorded hashes compare with ``model``'s.
    package let comparison: HashComparison
    /// The columns ``layout`` expects that the store's tables lack (a store made by hand or by
    /// another tool): opening logs them as a warning, what the store holds reads as usual, and
    /// a statement that needs one fails with ``StoreError/missingColumn(path:_:cause:)``.
    /// Empty for a store Core Data or Strata made for its model.
    package let missingColumns: [MissingColumn]
    /// The plans of row writes made so far (see ``rowWritePlan(for:attributes:toOnes:)``); used
    /// with the connection held, like the connection's statements.
    var rowWritePlans: [RowWritePlan.Key: RowWritePlan] = [:]
    /// What records the connection's writes into the persistent history tables; `nil` when
    /// the store keeps no history or is open read-only (see ``keepsPersistentHistory``). Read
    /// for each row a save writes, with the connection held, so without Swift's run-time
    /// check of exclusive access (see ``PersistentHistoryRecorder/SaveWindow``).
    @exclusivity(unchecked) var historyRecorder: PersistentHistoryRecorder?
    /// Whether the file holds the history tables (read on opening, set when they are made).
    var hasHistoryTables = false
    /// The author persistent history records for a transaction whose saving context names
    /// none (see ``ObjectContext/transactionAuthor``): a tool that writes the store on behalf
    /// of someone else sets it once (`strata` records its saves as `strata`). `nil` by default.
    package var defaultTransactionAuthor: String? {
        get { connectionLock.withLock { defaultAuthor } }
        set { connectionLock.withLock { defaultAuthor = newValue } }
    }
    private var defaultAuthor: String?
    /// Where the values of attributes that allow external storage go when they are large:
    /// `.<StoreName>_SUPPORT/_EXTERNAL_DATA` beside the store file.
    let externalStorage: ExternalBinaryStorage

    private init(
        path: String, database: Database, schema: StoreSchema, metadata: StoreMetadata, model: ObjectModel,
        modelSource: ModelSource
    ) {
        self.path = path
        self.database = database
        self.schema = schema
        self.metadata = metadata
        self.model = model
        self.modelSource = modelSource
        self.layout = StoreLayout(model: model, matching: schema)
        var comparison = metadata.comparison(with: model)
        if !comparison.changed.isEmpty,
            let storeModel = modelSource == .modelCache ? model : try? Self.modelInCache(of: database, schema: schema)
        {
            comparison = metadata.comparison(with: model, storeModel: storeModel)
        }
        self.comparison = comparison
        self.missingColumns = layout.missingColumns(in: schema, model: model)
        self.hasHistoryTables = PersistentHistory.tables.allSatisfy { schema.table(named: $0) != nil }
        externalStorage = ExternalBinaryStorage(storePath: path, isInMemory: database.configuration.isInMemory)
        watchExternalDataReferences()
    }

    private let connectionLock = NSRecursiveLock()

    /// Runs `body` with the store's connection to itself: contexts on several queues share a
    /// store through this, one at a time. Fails once the store is closed.
    public func withConnection<T>(_ body: () throws -> T) throws -> T {
        connectionLock.lock()
        defer { connectionLock.unlock() }
        if database.isClosed { throw StoreError.closed(path: path) }
        guard !missingColumns.isEmpty else { return try body() }
        do {
            return try body()
        } catch {
            throw namingMissingColumn(error)
        }
    }

    /// A number that changes whenever the store's connection writes: a row read before it
    /// changed may be out of date. Inside a transaction it is -1, since a rollback could undo
    /// what was read without the number changing back.
    var writeGeneration: Int64 {
        get throws { try withConnection { database.isInTransaction ? -1 : database.totalChangedRowCount } }
    }

    /// Closes the store's connection, waiting for any work in progress on it.
    public func close() {
        connectionLock.lock()
        defer { connectionLock.unlock() }
        database.close()
    }

    // MARK: - Creating

    /// The journal files SQLite may keep beside a store at `path`.
    static func journalFiles(of path: String) -> [String] {
        ["-wal", "-shm", "-journal"].map { path + $0 }
    }

    /// Removes the store file at `path`, its journal files and its external data folder
    /// (`.<Name>_SUPPORT`), for a store that is closed and should not be there (one made for
    /// work that failed). Missing files are fine. A store reached through a symbolic link is
    /// removed where it lives, and the link, which the work did not make, is kept.
    package static func removeFiles(ofStoreAt path: String) {
        guard let file = SymbolicLinks.finalPath(of: path) else { return }
        for file in [file] + journalFiles(of: file) { try? FileManager.default.removeItem(atPath: file) }
        if let support = StoreFileLocation(file)?.support { try? FileManager.default.removeItem(atPath: support) }
    }

    /// Creates an empty store for `model` at `path`, laid out as Core Data lays it out, in one
    /// transaction. Anything already at `path` is refused, and on failure the files this call
    /// made are removed, and only those. A symbolic link that leads nowhere is followed: the
    /// store is made where it points, and the link kept.
    ///
    /// `frameworkVersion` names the Core Data release (`NSPersistenceFrameworkVersion`) to lay
    /// the store out as and to record, for a store that an older release must find as it would
    /// have made it; by default the release Strata records.
    ///
    /// `predicates` archives the predicates of the model's fetched properties and fetch
    /// request templates into the store's `Z_MODELCACHE`, where Core Data (and Strata opening
    /// the store without its model) reads them: pass ``PredicateArchiver/objectPredicates``.
    /// Without it the cache holds `$null` for each of them.
    public static func create(
        at path: String, model: ObjectModel, configuration: Database.Configuration = Database.Configuration(),
        frameworkVersion: Int64 = StoreMetadata.frameworkVersion, predicates: PredicateArchiver? = nil
    ) throws(StoreError) -> PersistentStore {
        var issues = model.validate()
        // The layout is only defined for a model without errors.
        if !issues.contains(where: { $0.severity == .error }) { issues += StoreLayout.issues(layingOut: model) }
        if issues.contains(where: { $0.severity == .error }) { throw .invalidModel(path: path, issues: issues) }
        let fileManager = FileManager.default
        // An in-memory store touches no file: `path` is only its name.
        // SQLite follows the links too: the new file, and its journals, are made at the target.
        let file = configuration.isInMemory ? path : SymbolicLinks.finalPath(of: path)
        guard let file else { throw .symbolicLinkLoop(path: path) }
        if !configuration.isInMemory {
            if fileManager.fileExists(atPath: file) { throw .alreadyExists(path: path) }
            let folder = (file as NSString).deletingLastPathComponent
            var isFolder: ObjCBool = false
            if !folder.isEmpty, !fileManager.fileExists(atPath: folder, isDirectory: &isFolder) || !isFolder.boolValue {
                throw .folderNotFound(path: path, folder: folder)
            }
            if let stray = journalFiles(of: file).first(where: fileManager.fileExists(atPath:)) { throw .strayJournal(path: stray) }
            return try createInPlace(
                at: file, namedBy: path, model: model, configuration: configuration, frameworkVersion: frameworkVersion, predicates: predicates)
        }
        return try build(at: path, model: model, configuration: configuration, frameworkVersion: frameworkVersion, predicates: predicates)
    }

    /// Builds the store beside `path` under a name of its own, then links it into place in one
    /// step, so that a crash leaves no store or the whole one, never a file without Core Data's
    /// tables (which would also stop the next `create`). The store opens as `name`, the path
    /// the caller gave (a symbolic link to `path`, say).
    private static func createInPlace(
        at path: String, namedBy name: String, model: ObjectModel, configuration: Database.Configuration, frameworkVersion: Int64,
        predicates: PredicateArchiver?
    ) throws(StoreError) -> PersistentStore {
        guard let location = StoreFileLocation(path) else { throw .symbolicLinkLoop(path: name) }
        let creating = location.creating
        removeFiles(ofStoreAt: creating)
        try build(at: creating, model: model, configuration: configuration, frameworkVersion: frameworkVersion, predicates: predicates).close()
        defer { removeFiles(ofStoreAt: creating) }
        do {
            try syncToDisk(atPath: creating)
            // A hard link never replaces what is there; where the file system has none, a
            // rename after the check above does.
            if Glibc.link(creating, path) != 0 {
                let failure = errno
                if failure == EEXIST { throw StoreError.alreadyExists(path: path) }
                guard failure == EPERM || failure == ENOTSUP || failure == EXDEV, Glibc.rename(creating, path) == 0 else {
                    throw POSIXError(.init(rawValue: failure) ?? .EIO)
                }
            }
            try syncToDisk(atPath: location.folder)
        } catch let error as StoreError {
            throw error
        } catch {
            throw .fileOperation(path: path, cause: error)
        }
        return try open(at: name, model: model, modelOrigin: "the model it was created with", configuration: configuration)
    }

    /// Makes the store's file at `path` and lays the store out in it, in one transaction; on
    /// failure the file is removed. The caller has checked the model and the path.
    static func build(
        at path: String, model: ObjectModel, configuration: Database.Configuration, frameworkVersion: Int64, predicates: PredicateArchiver?
    ) throws(StoreError) -> PersistentStore {
        var openConfiguration = configuration
        openConfiguration.isReadOnly = false
        openConfiguration.createsFile = true
        // auto_vacuum only takes effect before the file's first write, which a journal mode
        // switch is: set it first.
        openConfiguration.journalMode = nil
        do {
            let database = try Database(path: path, configuration: openConfiguration)
            let metadata = StoreMetadata(model: model, frameworkVersion: frameworkVersion)
            let layout = StoreLayout(model: model, frameworkVersion: frameworkVersion)
            try database.execute("PRAGMA auto_vacuum = 2")
            if let mode = configuration.journalMode { try database.execute("PRAGMA journal_mode = \(mode.rawValue)") }
            try database.inTransaction {
                for statement in layout.createStatements + StoreLayout.bookkeepingStatements {
                    try database.execute(statement)
                }
                for entity in layout.entities {
                    try database.execute(
                        "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, 0)",
                        [.integer(Int64(entity.number)), .text(entity.name), .integer(Int64(entity.superNumber))])
                }
                try metadata.write(to: database)
                // As Core Data does since the release that introduced the cache, so that another
                // tool, and Strata without a model, reads the model from the store.
                if frameworkVersion >= ModelCacheEncoder.firstRelease {
                    try ModelCacheEncoder.write(model, to: database, predicates: predicates)
                }
            }
            let store = PersistentStore(
                path: path, database: database, schema: try StoreSchema(reading: database), metadata: metadata,
                model: model, modelSource: .given(origin: "the model it was created with"))
            try store.startRecordingHistory(creatingTables: configuration.tracksPersistentHistory)
            return store
        } catch {
            if !configuration.isInMemory { removeFiles(ofStoreAt: path) }
            throw Self.storeError(error, path: path)
        }
    }

    // MARK: - Opening

    /// Opens the store at `path`.
    ///
    /// - Parameters:
    ///   - model: the model to use; when `nil`, the store's model cache, else the model Strata
    ///     recorded in its metadata, else a model inferred from its schema.
    ///   - modelOrigin: how to name the given model in ``modelSource`` (its file, say).
    ///   - requiresMatchingModel: fail with ``StoreError/modelMismatch(path:comparison:)`` when
    ///     the given model's hashes differ from the store's.
    ///   - configuration: how to open the file; a read-only file is opened read-only.
    public static func open(
        at path: String, model: ObjectModel? = nil, modelOrigin: String = "given", requiresMatchingModel: Bool = true,
        configuration: Database.Configuration = Database.Configuration()
    ) throws(StoreError) -> PersistentStore {
        guard let file = SymbolicLinks.finalPath(of: path) else { throw .symbolicLinkLoop(path: path) }
        guard let size = fileSize(atPath: path) else { throw .notFound(path: path) }
        guard size >= 100, let header = sqliteHeader(path) else { throw .notSQLite(path: path) }
        let foundFrames = try checkWriteAheadLog(of: file, header: header, path: path)
        var configuration = configuration
        configuration.createsFile = false
        if !isWritable(path) {
            configuration.isReadOnly = true
            configuration.journalMode = nil
        }
        // A WAL store without a -wal file has all its data in the main file; reading it as
        // immutable makes no -wal or -shm files beside it (which a read-only folder forbids).
        let isWAL = header[18] == 2 && header[19] == 2
        if configuration.isReadOnly, isWAL, !FileManager.default.fileExists(atPath: file + "-wal") {
            configuration.isImmutable = true
        }
        if let model {
            let unstorable = StoreLayout.unstorableIssues(of: model)
            if !unstorable.isEmpty { throw StoreError.invalidModel(path: path, issues: unstorable) }
        }
        do {
            let database = try Database(path: path, configuration: configuration)
            let schema = try StoreSchema(reading: database)
            if !schema.missingBookkeepingTables.isEmpty {
                throw StoreError.notACoreDataStore(path: path, reason: .missingTables(schema.missingBookkeepingTables))
            }
            let metadata = try StoreMetadata(reading: database)
            if foundFrames, let own = try? mainFileUUID(file), !own.isEmpty, own != metadata.uuid {
                database.close()
                throw StoreError.foreignWriteAheadLog(
                    path: path, wal: file + "-wal", reason: "it makes the store's UUID \(metadata.uuid), where the file says \(own)")
            }
            let (storeModel, source) = try model.map { ($0, ModelSource.given(origin: modelOrigin)) }
                ?? recoverModel(from: database, schema: schema, metadata: metadata)
            let store = PersistentStore(
                path: path, database: database, schema: schema, metadata: metadata, model: storeModel, modelSource: source)
            if requiresMatchingModel, model != nil, !store.comparison.isMatch {
                throw StoreError.modelMismatch(path: path, comparison: store.comparison)
            }
            if !store.missingColumns.isEmpty {
                let columns = store.missingColumns.map(\.description).joined(separator: ", ")
                StrataLog.logger(label: "strata.store").warning(
                    "\(path): the store's tables lack columns its model names (Core Data would not open it): \(columns)")
            }
            try store.startRecordingHistory(creatingTables: configuration.tracksPersistentHistory)
            return store
        } catch {
            throw storeError(error, path: path)
        }
    }

    /// The model in the store's `Z_MODELCACHE`, or `nil` when it has none.
    private static func modelInCache(of database: Database, schema: StoreSchema) throws -> ObjectModel? {
        guard schema.table(named: "Z_MODELCACHE") != nil, let blob = try database.scalar("SELECT Z_CONTENT FROM Z_MODELCACHE")?.dataValue else {
            return nil
        }
        do {
            return try ModelCacheDecoder.decode(blob)
        } catch {
            throw StoreError.modelCacheUnreadable(path: database.path, cause: error)
        }
    }

    /// The model in the store's `Z_MODELCACHE`, else the one Strata recorded in its metadata,
    /// else one inferred from its schema; it must be a valid model, since its names become SQL
    /// and its hierarchy decides what is counted.
    private static func recoverModel(
        from database: Database, schema: StoreSchema, metadata: StoreMetadata
    ) throws -> (ObjectModel, ModelSource) {
        let recovered: (ObjectModel, ModelSource)
        if let cached = try modelInCache(of: database, schema: schema) {
            // A store Strata wrote also records the model in its metadata, with what the cache
            // does not carry (validation rules, the predicates of fetched properties and
            // templates, Xcode's settings): that copy is used when it is of the cache's model.
            if let recorded = metadata.recordedModel(), recorded.entityVersionHashes() == cached.entityVersionHashes() {
                recovered = (recorded, .modelCache)
            } else {
                recovered = (cached, .modelCache)
            }
        } else if let model = metadata.recordedModel() {
            recovered = (model, .storeMetadata)
        } else {
            recovered = (SchemaInference.model(from: schema), .inferred)
        }
        if let error = recovered.0.validate(compilingPatterns: false).first(where: { $0.severity == .error }) {
            let origin = switch recovered.1 {
            case .modelCache: "model cache"
            case .storeMetadata: "model recorded in the metadata"
            default: "schema"
            }
            throw StoreError.notACoreDataStore(path: database.path, reason: .invalidModel(origin: origin, issue: error))
        }
        return recovered
    }

    // MARK: - Files and errors

    /// Whether the file may be written: the process may write it and its permissions allow
    /// writing at all (for root, `access(2)` says yes to a file marked read-only). The
    /// permissions are those of the file the links at `path` lead to, which SQLite opens; one
    /// `stat`, since `FileManager.attributesOfItem` also reads the user and group databases
    /// for the owner's names.
    private static func isWritable(_ path: String) -> Bool {
        var status = stat()
        guard stat(path, &status) == 0 else { return false }
        return access(path, W_OK) == 0 && status.st_mode & 0o222 != 0
    }

    /// Refuses a `-wal` beside `file` (the store file, its links followed) that cannot be its
    /// own; returns whether the `-wal` holds frames, which opening will read.
    ///
    /// SQLite replays any `-wal` whose header and frame checksums are valid, whatever database
    /// wrote it: the WAL format (sqlite.org/fileformat2.html) records no identity of the main
    /// file. The rules below are inferred from that format and from how SQLite changes modes:
    /// - a file whose header says it is not in WAL mode (bytes 18 and 19 not 2) has no `-wal`
    ///   of its own, since SQLite writes those bytes before it starts a `-wal` and removes the
    ///   `-wal` before it writes them back, yet it still replays a `-wal` it finds;
    /// - a database's page size cannot change in WAL mode, so its `-wal` (header bytes 8–11)
    ///   has the file's page size (header bytes 16–17, 1 meaning 65536);
    /// - frames whose salts (frame bytes 8–15) differ from the header's (bytes 16–23) are not
    ///   valid, and SQLite reads none: such a `-wal` is harmless, and so is one of the header alone.
    /// A `-wal` of another store of the same page size passes these; the store's UUID, read
    /// with and without it, then tells them apart when the `-wal` touches the metadata (see
    /// ``open(at:model:modelOrigin:requiresMatchingModel:configuration:)``), and connections
    /// that only read never checkpoint it (see ``Database/close()``).
    private static func checkWriteAheadLog(of file: String, header: [UInt8], path: String) throws(StoreError) -> Bool {
        let wal = file + "-wal"
        guard (fileSize(atPath: wal) ?? 0) > 32, let handle = FileHandle(forReadingAtPath: wal) else { return false }
        defer { try? handle.close() }
        guard let bytes = (try? handle.read(upToCount: 56)).map([UInt8].init), bytes.count == 56 else { return false }
        func bigEndian(_ offset: Int, _ count: Int) -> UInt32 { bytes[offset..<(offset + count)].reduce(0) { $0 << 8 | UInt32($1) } }
        guard [0x377F_0682, 0x377F_0683].contains(bigEndian(0, 4)), bytes[16..<24] == bytes[40..<48] else { return false }
        if header[18] != 2 || header[19] != 2 {
            throw .foreignWriteAheadLog(path: path, wal: wal, reason: "the store is not in WAL mode, so it has no write-ahead log")
        }
        let pageSize = header[16] == 0 && header[17] == 1 ? 65536 : Int(header[16]) << 8 | Int(header[17])
        let walPageSize = Int(bigEndian(8, 4))
        if walPageSize != pageSize {
            throw .foreignWriteAheadLog(path: path, wal: wal, reason: "its pages are \(walPageSize) bytes, the store's \(pageSize)")
        }
        return true
    }

    /// The store UUID in the main file alone, its `-wal` left unread (SQLite's `immutable`).
    private static func mainFileUUID(_ file: String) throws -> String? {
        var configuration = Database.Configuration.readOnly
        configuration.isImmutable = true
        let database = try Database(path: file, configuration: configuration)
        defer { database.close() }
        return try database.scalar("SELECT Z_UUID FROM Z_METADATA ORDER BY Z_VERSION LIMIT 1")?.stringValue
    }

    /// The file's 100-byte SQLite header, or `nil` when it does not start like an SQLite database.
    private static func sqliteHeader(_ path: String) -> [UInt8]? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let header = try? handle.read(upToCount: 100), header.count == 100,
            header.starts(with: Data("SQLite format 3\0".utf8))
        else { return nil }
        return [UInt8](header)
    }

    private static func storeError(_ error: Error, path: String) -> StoreError {
        switch error {
        case let error as StoreError: return error
        case let error as DatabaseError where error.isBusy: return .locked(path: path)
        case let error as DatabaseError where error.resultCode == DatabaseError.SQLITE_READONLY:
            return .database(DatabaseError(
                resultCode: error.resultCode, extendedResultCode: error.extendedResultCode,
                message: "\(error.message); a store in WAL mode with a -wal file can only be read where its -shm file can be made beside it",
                path: path, sql: error.sql, arguments: error.arguments))
        case let error as DatabaseError where error.resultCode == DatabaseError.SQLITE_NOTADB: return .notSQLite(path: path)
        case let error as DatabaseError where error.resultCode == DatabaseError.SQLITE_CORRUPT:
            return .notACoreDataStore(path: path, reason: .damaged(error))
        case let error as DatabaseError: return .database(error)
        default: return .notACoreDataStore(path: path, reason: .other(error))
        }
    }
}
