import Foundation

/// Carrying a store's persistent history through a migration step: the three tables as the
/// input has them (its tombstone columns included, more added where the new model preserves
/// more attributes), their indexes, every row, and their `Z_PRIMARYKEY` rows.
///
/// The changes name entities by number and updated properties by their place among the
/// entity's properties, both of which a new model may move: each change is renumbered to its
/// entity's number in the new store and its bitmap rewritten for the new model's properties
/// (a property renamed keeps its bit under the new name; one removed loses it). Changes of an
/// entity the new model no longer has keep their old number, which no entity of the new
/// store has, so that no transaction loses a row. How Core Data's own migration treats the
/// history tables is not known from a store; keeping every row is what an app that reads its
/// history after an update relies on.
extension MigrationStepRun {
    func copyHistory(on database: Database) throws {
        let tables = try database.rows(
            "SELECT name, sql FROM src.sqlite_master WHERE type = 'table' AND name IN ('ACHANGE', 'ATRANSACTION', 'ATRANSACTIONSTRING')")
        guard tables.count == PersistentHistory.tables.count else { return }
        for table in tables { try database.execute(table[1].stringValue ?? "") }
        let existing = Set(try database.columns(of: PersistentHistory.changeTable).map(\.name))
        for index in 0..<PersistentHistory.tombstoneCount(of: step.mapping.destination) where !existing.contains(PersistentHistory.tombstoneColumn(index)) {
            try database.execute("ALTER TABLE main.ACHANGE ADD COLUMN \(PersistentHistory.tombstoneColumn(index)) BLOB")
        }
        let sourceColumns = try database.rows("PRAGMA src.table_info(ACHANGE)").compactMap { $0[1].stringValue }
        try database.execute("INSERT INTO main.ATRANSACTION SELECT * FROM src.ATRANSACTION")
        try database.execute("INSERT INTO main.ATRANSACTIONSTRING SELECT * FROM src.ATRANSACTIONSTRING")
        let columnList = sourceColumns.joined(separator: ", ")
        try database.execute("INSERT INTO main.ACHANGE (\(columnList)) SELECT \(columnList) FROM src.ACHANGE")
        try renumberChanges(on: database)
        for index in try database.rows(
            "SELECT sql FROM src.sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND tbl_name IN ('ACHANGE', 'ATRANSACTION', 'ATRANSACTIONSTRING')")
        {
            try database.execute(index[0].stringValue ?? "")
        }
        try database.execute("INSERT INTO main.Z_PRIMARYKEY SELECT * FROM src.Z_PRIMARYKEY WHERE Z_ENT IN (16001, 16002, 16003)")
        try copyHistoryTriggers(on: database)
    }

    /// Triggers the input keeps for its history (Core Data names `NSPersistentHistory…` the
    /// callbacks of those it makes for batch deletions; none of the stores in hand holds one,
    /// so which it keeps in the file is inferred). A trigger on a table or column the new
    /// model dropped cannot be made again: it is left out, and the log says so. Derived
    /// attributes' `Z_DA_` triggers are not history's and are not looked at here.
    private func copyHistoryTriggers(on database: Database) throws {
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

    /// Gives each change its entity's number in the new store and its bitmap the new model's
    /// order of properties.
    private func renumberChanges(on database: Database) throws {
        let source = step.mapping.source, destination = step.mapping.destination
        for entityMapping in step.mapping.entities {
            guard let old = entityMapping.source, let from = step.sourceLayout.entity(named: old.name)?.number,
                let to = step.destinationLayout.entity(named: entityMapping.destination.name)?.number
            else { continue }
            let oldOrder = PersistentHistory.propertyOrder(of: old, in: source)
            let newOrder = PersistentHistory.propertyOrder(of: entityMapping.destination, in: destination)
            var renamed: [String: String] = [:]
            for attribute in entityMapping.attributes { if let was = attribute.source?.name { renamed[was] = attribute.destination.name } }
            for relationship in entityMapping.relationships { if let was = relationship.source?.name { renamed[was] = relationship.destination.name } }
            let rows = try database.rows("SELECT Z_PK, ZCOLUMNS FROM main.ACHANGE WHERE ZENTITY = ? AND ZCOLUMNS IS NOT NULL", [.integer(Int64(from))])
            for row in rows {
                guard let bitmap = row[1].dataValue, let names = PersistentHistory.properties(in: bitmap, order: oldOrder) else { continue }
                let columns = PersistentHistory.bitmap(Set(names.compactMap { renamed[$0] }), order: newOrder)
                try database.execute("UPDATE main.ACHANGE SET ZCOLUMNS = ? WHERE Z_PK = ?", [.blob(columns), row[0]])
            }
            // Marked negative first, so that a number given to one entity is not taken again for another.
            if from != to {
                try database.execute("UPDATE main.ACHANGE SET ZENTITY = ? WHERE ZENTITY = ?", [.integer(Int64(-to)), .integer(Int64(from))])
            }
        }
        try database.execute("UPDATE main.ACHANGE SET ZENTITY = -ZENTITY WHERE ZENTITY < 0")
    }
}
