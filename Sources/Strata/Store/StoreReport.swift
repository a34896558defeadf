import Foundation

/// What `strata inspect` shows of a store: the file, its metadata, where its model came from and
/// whether it matches, and every entity with its table and row count. Gathering it reads only.
package struct StoreReport: Sendable {
    /// One entity's place and size.
    package struct EntitySummary: Sendable {
        /// The entity's name as the model spells it.
        package var name: String
        /// `Z_ENT`: the entity's number in `Z_PRIMARYKEY` and in its rows.
        package var number: Int
        /// The name of the entity's direct superentity; `nil` for a root entity.
        package var parent: String?
        /// The names of the entity's direct sub-entities, in model order.
        package var subentities: [String]
        /// The table holding the entity's rows: its root entity's `Z<NAME>` table, such as `ZBOOK`.
        package var table: String
        /// The entity's own rows, sub-entities' not included, as ``PersistentStore/rowCountsExcludingSubentities()``
        /// counts them.
        package var rowCount: Int
    }

    /// The store file's path as the store was opened with it.
    package var path: String
    /// The main file's size in bytes.
    package var fileSize: Int
    /// The `-wal` file's size, when there is one: the store is not whole without it.
    package var walSize: Int?
    /// The journal mode as `PRAGMA journal_mode` names it (`wal`, `delete`, …); `wal` for a WAL
    /// store read as immutable, whose connection cannot tell.
    package var journalMode: String
    /// The database page size in bytes (`PRAGMA page_size`).
    package var pageSize: Int
    /// The store's UUID (`Z_METADATA.Z_UUID`), the host of its object URIs.
    package var uuid: String
    /// `NSPersistenceFrameworkVersion` from the metadata: the Core Data version that last wrote
    /// the store; `nil` when the key is missing.
    package var frameworkVersion: Int64?
    /// `NSStoreType` from the metadata (`SQLite`); `nil` when the key is missing.
    package var storeType: String?
    /// Where the store's model came from: the caller, `Z_MODELCACHE`, or inference from the schema.
    package var modelSource: PersistentStore.ModelSource
    /// How the store's hashes compare with the model's; `nil` for an inferred model, which has
    /// no Core Data hashes to compare.
    package var comparison: HashComparison?
    /// The columns the model names that the store's tables lack (see
    /// ``PersistentStore/missingColumns``): a warning, since Core Data would not open the store.
    package var missingColumns: [MissingColumn]
    /// Every entity of the store's layout, in `Z_ENT` order.
    package var entities: [EntitySummary]
    /// The store's persistent history (Core Data's `ATRANSACTION`, `ACHANGE` and
    /// `ATRANSACTIONSTRING`, which are no entities); `nil` when it keeps none.
    package var history: HistorySummary?

    /// The size of a store's persistent history.
    package struct HistorySummary: Sendable, Equatable {
        /// Rows of `ATRANSACTION`: the saves recorded.
        package var transactions: Int
        /// Rows of `ACHANGE`: the objects those saves changed.
        package var changes: Int
        /// Rows of `ATRANSACTIONSTRING`: the authors, bundles, context and process names.
        package var strings: Int
        /// When the first and last transactions kept were saved; `nil` without transactions.
        package var first: Date?
        package var last: Date?
    }

    /// Gathers the report of an open store.
    package init(store: PersistentStore) throws {
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
        missingColumns = store.missingColumns
        let counts = try store.rowCountsExcludingSubentities()
        entities = store.layout.entities.map { entity in
            let description = store.model.entity(named: entity.name)
            return EntitySummary(
                name: entity.name, number: entity.number, parent: description?.superentityName,
                subentities: description.map { store.model.directSubentities(of: $0).map(\.name) } ?? [],
                table: entity.tableName, rowCount: counts[entity.name] ?? 0)
        }
        history = try store.withConnection { () throws -> HistorySummary? in
            guard try store.historyTablesExist() else { return nil }
            let count = { (table: String) in Int(try store.database.scalar("SELECT count(*) FROM \(table)")?.int64Value ?? 0) }
            let span = try store.database.rows("SELECT min(ZTIMESTAMP), max(ZTIMESTAMP) FROM ATRANSACTION").first
            return HistorySummary(
                transactions: try count(PersistentHistory.transactionTable), changes: try count(PersistentHistory.changeTable),
                strings: try count(PersistentHistory.stringTable),
                first: span?[0].doubleValue.map(Date.init(timeIntervalSinceReferenceDate:)),
                last: span?[1].doubleValue.map(Date.init(timeIntervalSinceReferenceDate:)))
        }
    }
}
