import Foundation

/// What every migration step does with a store's persistent history, whichever way it makes
/// the new store: the three tables made as the input has them (its tombstone columns
/// included, more added where the new model preserves more attributes), their indexes, their
/// `Z_PRIMARYKEY` rows, and the triggers the input keeps for them. The rows are the step's
/// own business: an inferred step copies every change and renumbers it for the new model
/// (``MigrationStepRun``); a mapped one re-points each change to the object made from its
/// object (``MappedStepRun``). The input is attached to `database` as `src`.
enum HistoryTablesCopy {
    /// Makes the history tables in `main` as `src` has them, with the tombstone columns
    /// `model` needs; `false`, and nothing made, when `src` does not keep history.
    static func createTables(on database: Database, for model: ObjectModel) throws -> Bool {
        let tables = try database.rows(
            "SELECT name, sql FROM src.sqlite_master WHERE type = 'table' AND name IN ('ACHANGE', 'ATRANSACTION', 'ATRANSACTIONSTRING')")
        guard tables.count == PersistentHistory.tables.count else { return false }
        for table in tables { try database.execute(table[1].stringValue ?? "") }
        let existing = Set(try database.columns(of: PersistentHistory.changeTable).map(\.name))
        for index in 0..<PersistentHistory.tombstoneCount(of: model) where !existing.contains(PersistentHistory.tombstoneColumn(index)) {
            try database.execute("ALTER TABLE main.ACHANGE ADD COLUMN \(PersistentHistory.tombstoneColumn(index)) BLOB")
        }
        return true
    }

    /// Copies the transactions and their strings as they are: a history token (a
    /// transaction's number) stays valid across the migration.
    static func copyTransactions(on database: Database) throws {
        try database.execute("INSERT INTO main.ATRANSACTION SELECT * FROM src.ATRANSACTION")
        try database.execute("INSERT INTO main.ATRANSACTIONSTRING SELECT * FROM src.ATRANSACTIONSTRING")
    }

    /// After the rows: the tables' indexes, their `Z_PRIMARYKEY` rows, and the input's history
    /// triggers (`storePath` names the store in the log).
    static func finish(on database: Database, storePath: String) throws {
        for index in try database.rows(
            "SELECT sql FROM src.sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND tbl_name IN ('ACHANGE', 'ATRANSACTION', 'ATRANSACTIONSTRING')")
        {
            try database.execute(index[0].stringValue ?? "")
        }
        try database.execute("INSERT INTO main.Z_PRIMARYKEY SELECT * FROM src.Z_PRIMARYKEY WHERE Z_ENT IN (16001, 16002, 16003)")
        try copyTriggers(on: database, storePath: storePath)
    }

    /// Triggers the input keeps for its history (Core Data names `NSPersistentHistory…` the
    /// callbacks of those it makes for batch deletions; none of the stores in hand holds one,
    /// so which it keeps in the file is inferred). A trigger on a table or column the new
    /// model dropped cannot be made again: it is left out, and the log says so. Derived
    /// attributes' `Z_DA_` triggers are not history's and are not looked at here.
    private static func copyTriggers(on database: Database, storePath: String) throws {
        let triggers = try database.rows(
            "SELECT name, sql FROM src.sqlite_master WHERE type = 'trigger' AND substr(name, 1, 5) <> 'Z_DA_' "
                + "AND (sql LIKE '%NSPersistentHistory%' OR sql LIKE '%ACHANGE%' OR sql LIKE '%ATRANSACTION%')")
        for trigger in triggers {
            do {
                try database.execute(trigger[1].stringValue ?? "")
            } catch {
                StrataLog.logger(label: "strata.migrate").warning(
                    "\(storePath): the history trigger \(trigger[0].stringValue ?? "?") cannot be kept with the new model (\(error.message)); it is left out")
            }
        }
    }

    /// A change's `ZCOLUMNS` for another entity's properties: the bits of `old` order read as
    /// names, each standing for the properties `renamed` gives it (none for a name it lacks),
    /// written in `new` order; `nil` when the bitmap does not fit `old`, and is then left as it is.
    static func bitmap(_ bitmap: Data, from old: [String], to new: [String], renamed: [String: [String]]) -> Data? {
        guard let names = PersistentHistory.properties(in: bitmap, order: old) else { return nil }
        return PersistentHistory.bitmap(Set(names.flatMap { renamed[$0] ?? [] }), order: new)
    }
}
