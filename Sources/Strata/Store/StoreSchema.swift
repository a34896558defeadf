import Foundation

/// What an SQLite file holds, read without any model: its tables and columns, indexes, and the
/// entity rows of `Z_PRIMARYKEY`. Opening and inspecting a store start from it.
package struct StoreSchema: Sendable {
    /// A table and its columns with their declared types.
    package struct Table: Sendable {
        /// The table's name as `sqlite_master` records it, such as `ZBOOK` or `Z_PRIMARYKEY`.
        package var name: String
        /// The table's columns in table order, each with its type as declared in `CREATE TABLE`
        /// (`INTEGER`, `VARCHAR`, `TIMESTAMP`, …; empty when none was declared).
        package var columns: [StoreLayout.Column]
        /// The `CREATE TABLE` statement as SQLite keeps it.
        package var sql: String
    }

    /// A row of `Z_PRIMARYKEY`.
    package struct PrimaryKeyRow: Sendable, Equatable {
        /// `Z_ENT`: the entity's number, which its rows carry in their `Z_ENT` column.
        var entityNumber: Int
        /// `Z_NAME`: the entity's name as the model spells it.
        package var entityName: String
        /// `Z_SUPER`: the parent entity's `Z_ENT`, or 0 for a root entity.
        var superNumber: Int
        /// `Z_MAX`: the last `Z_PK` handed out through this row when the schema was read (Strata
        /// hands out a hierarchy's keys through its root entity's row).
        var maximumKey: Int64
    }

    /// Every table of the file except SQLite's own `sqlite_*` tables, in `sqlite_master` order.
    package var tables: [Table]
    /// Each index's name, table and `CREATE INDEX` statement, for the indexes SQLite did not
    /// make itself.
    package var indexes: [(name: String, table: String, sql: String)]
    /// The entities' rows of `Z_PRIMARYKEY`, in `Z_ENT` order (empty when the table is
    /// missing); the rows of the persistent history tables are in ``historyPrimaryKeys``.
    package var primaryKeys: [PrimaryKeyRow]
    /// The `Z_PRIMARYKEY` rows of Core Data's persistent history tables (16001 `CHANGE`,
    /// 16002 `TRANSACTION`, 16003 `TRANSACTIONSTRING`), which are no entities.
    var historyPrimaryKeys: [PrimaryKeyRow] = []

    /// The persistent history tables the file holds (see ``PersistentHistory``); empty for a
    /// store that keeps no history.
    var historyTables: [Table] {
        tables.filter { PersistentHistory.isHistoryTable($0.name) }
    }

    /// The bookkeeping tables whose absence means the file is not a Core Data store.
    static let requiredTables = ["Z_PRIMARYKEY", "Z_METADATA"]

    /// Reads the schema of `database`.
    package init(reading database: Database) throws(DatabaseError) {
        var tables: [Table] = []
        for row in try database.rows("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY rowid") {
            let name = row[0].stringValue ?? ""
            let columns = try database.columns(of: name).map { StoreLayout.Column(name: $0.name, type: $0.type) }
            tables.append(Table(name: name, columns: columns, sql: row[1].stringValue ?? ""))
        }
        self.tables = tables
        indexes = try database.rows("SELECT name, tbl_name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY rowid")
            .map { ($0[0].stringValue ?? "", $0[1].stringValue ?? "", $0[2].stringValue ?? "") }
        if tables.contains(where: { $0.name == "Z_PRIMARYKEY" }) {
            let rows = try database.rows("SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT IS NOT NULL ORDER BY Z_ENT")
                .map {
                    PrimaryKeyRow(
                        entityNumber: Int($0[0].int64Value ?? 0), entityName: $0[1].stringValue ?? "",
                        superNumber: Int($0[2].int64Value ?? 0), maximumKey: $0[3].int64Value ?? 0)
                }
            let isHistory = { (row: PrimaryKeyRow) in PersistentHistory.isHistoryRow(number: row.entityNumber, name: row.entityName) }
            primaryKeys = rows.filter { !isHistory($0) }
            historyPrimaryKeys = rows.filter(isHistory)
        } else {
            primaryKeys = []
        }
    }

    /// The table named `name` (SQLite names are case-insensitive).
    package func table(named name: String) -> Table? {
        tables.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }
    }

    /// Entity numbers by entity name, from `Z_PRIMARYKEY`.
    var entityNumbers: [String: Int] {
        Dictionary(primaryKeys.map { ($0.entityName, $0.entityNumber) }, uniquingKeysWith: { first, _ in first })
    }

    /// The bookkeeping tables that are missing; empty for a Core Data store.
    var missingBookkeepingTables: [String] {
        Self.requiredTables.filter { table(named: $0) == nil }
    }
}
