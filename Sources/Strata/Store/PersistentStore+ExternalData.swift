import Foundation

extension PersistentStore {
    /// The columns of attributes that allow external storage, by table, with the attribute
    /// each holds (`Book.cover`).
    var externalDataColumns: [(table: String, column: String, place: String)] {
        var seen: Set<String> = []
        var columns: [(table: String, column: String, place: String)] = []
        for entity in layout.entities {
            guard let description = model.entity(named: entity.name) else { continue }
            for attribute in description.attributes where attribute.allowsExternalBinaryDataStorage && !attribute.isTransient {
                guard let column = entity.attributeColumns[attribute.name], seen.insert("\(entity.tableName).\(column)").inserted else { continue }
                columns.append((entity.tableName, column, "\(entity.name).\(attribute.name)"))
            }
        }
        return columns
    }

    /// Temporary triggers on this connection (the file is not changed) that let a file go when
    /// the row referring to it is deleted or given another value, however the row is written
    /// (a save, a batch request, a delete rule): the file is removed once the transaction
    /// commits. A connection that cannot write, or a store without a folder, needs none.
    func watchExternalDataReferences() {
        guard let folder = externalStorage.folder, !database.configuration.isReadOnly else { return }
        let literal = "'" + folder.replacingOccurrences(of: "'", with: "''") + "'"
        for (table, column, _) in externalDataColumns {
            let name = "strata_external_\(table)_\(column)"
            let released = "BEGIN SELECT strata_release_external_data(OLD.\(column), \(literal)); END"
            // A store whose table lacks the column (made by another tool) has nothing to watch.
            try? database.execute("""
                CREATE TEMP TRIGGER IF NOT EXISTS \(name)_delete AFTER DELETE ON main.\(table) FOR EACH ROW \
                WHEN substr(OLD.\(column), 1, 1) = x'02' \(released)
                """)
            try? database.execute("""
                CREATE TEMP TRIGGER IF NOT EXISTS \(name)_update AFTER UPDATE OF \(column) ON main.\(table) FOR EACH ROW \
                WHEN substr(OLD.\(column), 1, 1) = x'02' AND OLD.\(column) IS NOT NEW.\(column) \(released)
                """)
        }
    }

    /// `stored` with the values at `positions` (attributes that allow external storage) in
    /// their column form; large ones written to files first.
    func externalForms(of stored: [DatabaseValue], at positions: [Int]) throws -> [DatabaseValue] {
        guard !positions.isEmpty else { return stored }
        var values = stored
        for position in positions {
            switch values[position] {
            case .blob(let data): values[position] = .blob(try externalStorage.storedValue(of: data, database: database))
            case .text(let text): values[position] = .blob(try externalStorage.storedValue(of: Data(text.utf8), database: database))
            default: break
            }
        }
        return values
    }

}
