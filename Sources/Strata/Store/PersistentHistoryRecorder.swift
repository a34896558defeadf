import Foundation

/// Records a store's persistent history as its connection writes: temporary triggers on the
/// entities' tables and join tables note each row inserted, updated and deleted into a
/// temporary log, and just before the transaction commits (``Database/willCommit``) the log
/// becomes one `ATRANSACTION` row and one `ACHANGE` row per object, in the same transaction,
/// so that a save that fails or is rolled back leaves no history.
///
/// Triggers see every write of the connection — a context's save, batch requests, imports,
/// scripts — as Core Data's do, but for the rows a context's save writes many of to one table:
/// the save drops that table's insert and update triggers for its writes and notes the rows
/// itself (``SavedRun``; see `PersistentHistoryRecorder+SaveWrites.swift`), and what it notes
/// is read with the log, in the order written. What is noted is reduced to Core Data's view
/// of a save: an object inserted and then updated is inserted, one inserted and deleted again
/// is nothing, and an object whose to-many gained or lost a member (a new row pointing at it,
/// a join row) is updated, with that relationship among its updated properties.
final class PersistentHistoryRecorder {
    /// What the recorder knows of one entity (by `Z_ENT`).
    struct EntityInfo {
        var name: String
        var tableName: String
        /// `ZCOLUMNS` order.
        var propertyOrder: [String]
        /// The property each of its table's columns stores, by column.
        var propertiesByColumn: [String: String]
        /// The columns of the attributes kept after deletion, in tombstone order; `nil` for one
        /// stored outside the row when large, whose value Core Data does not keep (its place
        /// in the order kept: inferred from published reading of Core Data's stores).
        var tombstoneColumns: [String?]
    }

    /// A column holding another row's key: a to-one's (the other row's to-many `inverse`
    /// changes with it) or an inverseless to-many's (its owner's `relationship` changes).
    struct KeyColumn {
        var column: String
        /// The entity whose rows the key points at (their table is searched for the row's `Z_ENT`).
        var destination: String
        /// The relationship of the row pointed at that changes, when it is one the model has.
        var relationship: String
    }

    /// The relationship each side of a join table changes, by join table.
    struct JoinSides {
        var source: (entity: String, relationship: String)
        var destination: (entity: String, relationship: String)
    }

    let entities: [Int: EntityInfo]
    /// The key columns of each table, in the order of the JSON array its triggers log: once
    /// the triggers are made, only those the store's table has (a store made by hand or by
    /// another tool may lack some), so that the log's keys are read against the same list.
    private(set) var keyColumnsByTable: [String: [KeyColumn]]
    let joinSides: [String: JoinSides]
    let tableByEntity: [String: String]
    /// How many `ZTOMBSTONE<n>` columns the model needs.
    let tombstoneCount: Int
    /// The property columns of each table in the order of the bits an update's trigger logs
    /// for them (bit 0 the first); a table missing here logs their names instead.
    private(set) var changeBitColumns: [String: [String]] = [:]
    /// The statements that make each entity table's insert and update triggers, by table: a
    /// save that writes many rows of a table drops them for its writes and makes them again
    /// (see `PersistentHistoryRecorder+SaveWrites.swift`).
    private(set) var rowTriggerStatements: [String: (insert: String, update: String)] = [:]
    /// The tables the store file's own triggers (Core Data's derived attributes) are on or
    /// write: a write there may write rows the save does not know of, so they keep their
    /// history triggers through every save.
    var tablesOfStoreTriggers: Set<String> = []
    /// The save writing with some of its tables' triggers dropped, if one is.
    @exclusivity(unchecked) var saveWindow: SaveWindow?
    /// The runs of rows saves noted themselves in the transaction under way, in the order
    /// written; those of a rolled-back save are told apart by ``savedRunTable``.
    @exclusivity(unchecked) var savedRuns: [SavedRun] = []
    /// The number the next save window, and the next run, takes.
    var nextSaveWindow = 0
    var nextSavedRun: Int64 = 1
    /// Who the next transaction is recorded for; cleared once it is.
    var author: String?
    var contextName: String?
    /// The transactions this connection wrote, which its contexts know of without reading
    /// history (their saves told them); the oldest are forgotten past a few thousand.
    var written: Set<Int64> = []

    static let logTable = "strata_history_log"
    static let tombstoneTable = "strata_history_tombstone"
    /// The runs a save noted itself, by number: a temporary table, so that the rollback of a
    /// save's transaction or savepoint takes its runs away as it takes its rows.
    static let savedRunTable = "strata_history_saved_run"

    init(layout: StoreLayout, model: ObjectModel) {
        var entities: [Int: EntityInfo] = [:]
        var tableByEntity: [String: String] = [:]
        for entity in layout.entities {
            tableByEntity[entity.name] = entity.tableName
            guard let description = model.entity(named: entity.name) else { continue }
            var byColumn: [String: String] = [:]
            for (name, column) in entity.attributeColumns { byColumn[column] = name }
            for (name, columns) in entity.toOneColumns { byColumn[columns.key] = name }
            let tombstones = PersistentHistory.tombstoneAttributes(of: description, in: model).map {
                $0.allowsExternalBinaryDataStorage ? nil : entity.attributeColumns[$0.name]
            }
            entities[entity.number] = EntityInfo(
                name: entity.name, tableName: entity.tableName, propertyOrder: PersistentHistory.propertyOrder(of: description, in: model),
                propertiesByColumn: byColumn, tombstoneColumns: tombstones)
        }
        var keyColumns: [String: [KeyColumn]] = [:]
        for entity in layout.entities {
            guard let description = model.entity(named: entity.name) else { continue }
            // Each column once per table: sub-entities list their parents' columns too.
            for relationship in description.relationships where !relationship.isTransient {
                if !relationship.isToMany, let columns = entity.toOneColumns[relationship.name], let inverse = relationship.inverseName {
                    keyColumns[entity.tableName, default: []].append(
                        KeyColumn(column: columns.key, destination: relationship.destinationEntityName, relationship: inverse))
                } else if relationship.isToMany, let column = entity.toManyKeyColumns[relationship.name],
                    let destinationTable = layout.entity(named: relationship.destinationEntityName)?.tableName
                {
                    keyColumns[destinationTable, default: []].append(KeyColumn(column: column, destination: entity.name, relationship: relationship.name))
                }
            }
        }
        var joinSides: [String: JoinSides] = [:]
        for join in layout.joinTables {
            joinSides[join.name] = JoinSides(
                source: (join.relationship.entity, join.relationship.relationship), destination: (join.inverse.entity, join.inverse.relationship))
        }
        self.entities = entities
        self.tableByEntity = tableByEntity
        self.keyColumnsByTable = keyColumns.mapValues { columns in
            var seen: Set<String> = []
            return columns.filter { seen.insert($0.column).inserted }
        }
        self.joinSides = joinSides
        tombstoneCount = PersistentHistory.tombstoneCount(of: model)
    }

    // MARK: - Triggers

    /// The statements that make the log and the triggers on `database`'s connection (all
    /// temporary: nothing of them is written to the store file). Tables and columns the file
    /// does not have get none, and ``keyColumnsByTable`` keeps only the key columns logged.
    func triggerStatements(layout: StoreLayout, schema: StoreSchema) -> [String] {
        // `columns` has no type: a column of TEXT would turn an update's bits into digits.
        var statements = [
            "CREATE TEMP TABLE IF NOT EXISTS \(Self.logTable) (kind INTEGER, entity INTEGER, pk INTEGER, columns, keys TEXT, other INTEGER, tableName TEXT)",
            "CREATE TEMP TABLE IF NOT EXISTS \(Self.tombstoneTable) (entity INTEGER, pk INTEGER, columnName TEXT, value)",
            "CREATE TEMP TABLE IF NOT EXISTS \(Self.savedRunTable) (id INTEGER PRIMARY KEY)",
        ]
        for tableName in Set(layout.entities.map(\.tableName)).sorted() {
            guard let table = schema.table(named: tableName) else { continue }
            let existing = Set(table.columns.map(\.name))
            let propertyColumns = table.columns.map(\.name).filter { $0.hasPrefix("Z") && !$0.hasPrefix("Z_") }
            let keys = (keyColumnsByTable[tableName] ?? []).filter { existing.contains($0.column) }
            keyColumnsByTable[tableName] = keys
            let keyList = { (row: String) in keys.isEmpty ? "NULL" : "json_array(\(keys.map { "\(row).\($0.column)" }.joined(separator: ", ")))" }
            // Which columns an update changed, as bits of one integer where they fit: SQLite
            // computes that at a third of the cost of a text of their names (measured on
            // 100,000 rows), which a table of more columns logs instead.
            let changed: String
            if propertyColumns.isEmpty {
                changed = "''"
            } else if propertyColumns.count <= 62 {
                changed = propertyColumns.enumerated().map { "((OLD.\($1) IS NOT NEW.\($1)) << \($0))" }.joined(separator: " | ")
                changeBitColumns[tableName] = propertyColumns
            } else {
                changed = propertyColumns.map { "(CASE WHEN OLD.\($0) IS NOT NEW.\($0) THEN '\($0) ' ELSE '' END)" }.joined(separator: " || ")
            }
            let tombstoneColumns = Set(entities.values.filter { $0.tableName == tableName }.flatMap(\.tombstoneColumns).compactMap { $0 }).sorted()
            let tombstones = tombstoneColumns.map {
                "INSERT INTO \(Self.tombstoneTable) VALUES (OLD.Z_ENT, OLD.Z_PK, '\($0)', OLD.\($0));"
            }.joined(separator: " ")
            let prefix = "strata_history_\(tableName)"
            let insert = "CREATE TEMP TRIGGER IF NOT EXISTS \(prefix)_insert AFTER INSERT ON main.\(tableName) BEGIN "
                + "INSERT INTO \(Self.logTable) (kind, entity, pk, keys) VALUES (0, NEW.Z_ENT, NEW.Z_PK, \(keyList("NEW"))); END"
            let update = "CREATE TEMP TRIGGER IF NOT EXISTS \(prefix)_update AFTER UPDATE ON main.\(tableName) BEGIN "
                + "INSERT INTO \(Self.logTable) (kind, entity, pk, columns, keys, other) "
                + "VALUES (1, NEW.Z_ENT, NEW.Z_PK, \(changed), \(keyList("OLD")), OLD.Z_OPT IS NOT NEW.Z_OPT); END"
            rowTriggerStatements[tableName] = (insert, update)
            statements += [
                insert,
                update,
                "CREATE TEMP TRIGGER IF NOT EXISTS \(prefix)_delete AFTER DELETE ON main.\(tableName) BEGIN "
                    + "INSERT INTO \(Self.logTable) (kind, entity, pk, keys) VALUES (2, OLD.Z_ENT, OLD.Z_PK, \(keyList("OLD"))); \(tombstones) END",
            ]
        }
        for join in layout.joinTables where schema.table(named: join.name) != nil {
            let prefix = "strata_history_\(join.name)"
            for (event, row) in [("INSERT", "NEW"), ("DELETE", "OLD"), ("UPDATE", "NEW")] {
                statements.append(
                    "CREATE TEMP TRIGGER IF NOT EXISTS \(prefix)_\(event.lowercased()) AFTER \(event) ON main.\(join.name) BEGIN "
                        + "INSERT INTO \(Self.logTable) (kind, pk, other, tableName) VALUES (3, \(row).\(join.sourceColumn), \(row).\(join.destinationColumn), '\(join.name)'); END")
            }
        }
        return statements
    }

    // MARK: - Reducing the log

    /// The columns of `table` an update's log row names as changed: bits of an integer, or
    /// their names in a text.
    func changedColumns(_ logged: DatabaseValue, table: String) -> Set<String> {
        if case .integer(let bits) = logged {
            guard let order = changeBitColumns[table] else { return [] }
            return Set(order.indices.filter { bits & (1 << Int64($0)) != 0 }.map { order[$0] })
        }
        return Set((logged.stringValue ?? "").split(separator: " ").map(String.init))
    }

    /// One object's change as the log adds up to it.
    struct PendingChange {
        var type: PersistentHistoryChange.ChangeType
        var entity: Int
        var properties: Set<String> = []
        /// An insert later deleted: no change at all.
        var isVoid = false
    }

    /// A row, by its table and key.
    struct RowID: Hashable {
        var table: String
        var key: Int64
    }

    /// What the log adds up to: changes by (table, key) in the order first seen.
    struct Reduction {
        var order: [RowID] = []
        var changes: [RowID: PendingChange] = [:]
        /// Rows whose to-many changed through another row, by (entity name, key): resolved
        /// to their `Z_ENT` once the log is read.
        var relationshipChanges: [(entity: String, key: Int64, relationship: String)] = []

        mutating func note(_ type: PersistentHistoryChange.ChangeType, table: String, key: Int64, entity: Int, properties: Set<String> = []) {
            let id = RowID(table: table, key: key)
            guard var change = changes[id] else {
                order.append(id)
                changes[id] = PendingChange(type: type, entity: entity, properties: type == .update ? properties : [])
                return
            }
            switch (change.type, type) {
            case (.insert, .delete) where !change.isVoid: change.isVoid = true
            case (_, .delete): change = PendingChange(type: .delete, entity: change.entity)
            case (.delete, .insert): change = PendingChange(type: .update, entity: entity, properties: [])
            case (.insert, _): change.isVoid = false
            case (.update, _): change.properties.formUnion(properties)
            case (.delete, .update): break
            }
            changes[id] = change
        }
    }
}
