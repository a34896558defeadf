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
        guard try HistoryTablesCopy.createTables(on: database, for: step.mapping.destination) else { return }
        let sourceColumns = try database.rows("PRAGMA src.table_info(ACHANGE)").compactMap { $0[1].stringValue }
        try HistoryTablesCopy.copyTransactions(on: database)
        let columnList = sourceColumns.joined(separator: ", ")
        try database.execute("INSERT INTO main.ACHANGE (\(columnList)) SELECT \(columnList) FROM src.ACHANGE")
        try renumberChanges(on: database)
        try HistoryTablesCopy.finish(on: database, storePath: storePath)
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
            var renamed: [String: [String]] = [:]
            for attribute in entityMapping.attributes { if let was = attribute.source?.name { renamed[was] = [attribute.destination.name] } }
            for relationship in entityMapping.relationships { if let was = relationship.source?.name { renamed[was] = [relationship.destination.name] } }
            let rows = try database.rows("SELECT Z_PK, ZCOLUMNS FROM main.ACHANGE WHERE ZENTITY = ? AND ZCOLUMNS IS NOT NULL", [.integer(Int64(from))])
            for row in rows {
                guard let bitmap = row[1].dataValue, let columns = HistoryTablesCopy.bitmap(bitmap, from: oldOrder, to: newOrder, renamed: renamed) else { continue }
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
