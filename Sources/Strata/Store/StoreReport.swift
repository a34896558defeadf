import Foundation

/// What `strata inspect` shows of a store: the file, its metadata, where its model came from and
/// whether it matches, and every entity with its table and row count. Gathering it reads only.
public struct StoreReport: Sendable {
    /// One entity's place and size.
    public struct EntitySummary: Sendable {
        public var name: String
        public var number: Int
        public var parent: String?
        public var subentities: [String]
        public var table: String
        /// Rows whose `Z_ENT` is the entity's own.
        public var rowCount: Int
    }

    public var path: String
    /// The main file's size in bytes.
    public var fileSize: Int
    /// The `-wal` file's size, when there is one: the store is not whole without it.
    public var walSize: Int?
    public var journalMode: String
    public var pageSize: Int
    public var uuid: String
    public var frameworkVersion: Int64?
    public var storeType: String?
    public var modelSource: PersistentStore.ModelSource
    /// How the store's hashes compare with the model's; `nil` for an inferred model, which has
    /// no Core Data hashes to compare.
    public var comparison: HashComparison?
    public var entities: [EntitySummary]

    /// Gathers the report of an open store.
    public init(store: PersistentStore) throws {
        path = store.path
        fileSize = Strata.fileSize(atPath: store.path) ?? 0
        walSize = Strata.fileSize(atPath: store.path + "-wal")
        // A WAL store read as immutable reports SQLite's default mode; its header says WAL.
        journalMode = store.database.configuration.isImmutable ? "wal" : try store.database.journalMode()
        pageSize = try store.database.pageSize()
        uuid = store.metadata.uuid
        frameworkVersion = store.metadata.frameworkVersion
        storeType = store.metadata.storeType
        modelSource = store.modelSource
        comparison = store.modelSource == .inferred ? nil : store.comparison
        let counts = try store.rowCounts()
        entities = store.layout.entities.map { entity in
            let description = store.model.entity(named: entity.name)
            return EntitySummary(
                name: entity.name, number: entity.number, parent: description?.superentityName,
                subentities: description.map { store.model.directSubentities(of: $0).map(\.name) } ?? [],
                table: entity.tableName, rowCount: counts[entity.name] ?? 0)
        }
    }
}
