import Foundation

/// Writing persistent history: see ``PersistentHistoryRecorder`` for how, and
/// ``PersistentHistory`` for the format.
extension PersistentStore {
    /// Whether the store records persistent history: it has Core Data's history tables (or was
    /// opened with ``Database/Configuration/tracksPersistentHistory``) and is writable. Every
    /// transaction on its connection then adds one `ATRANSACTION` row and one `ACHANGE` row
    /// per object inserted, updated or deleted.
    var keepsPersistentHistory: Bool {
        (try? withConnection { historyRecorder != nil }) ?? false
    }

    /// Makes Core Data's history tables when the store has none, and starts recording history
    /// on this connection; nothing to do for a store that records it already. The tables are
    /// made in one transaction, with their `Z_PRIMARYKEY` rows.
    ///
    /// - Throws: ``StoreError`` when the store is read-only or cannot be written.
    public func enablePersistentHistory() throws(StoreError) {
        do {
            try withConnection { try startRecordingHistory(creatingTables: true) }
        } catch let error as StoreError {
            throw error
        } catch let error as DatabaseError {
            throw .database(error)
        } catch {
            throw .notACoreDataStore(path: path, reason: .other(error))
        }
    }

    /// Installs the recorder on the connection when the store has the history tables (made
    /// first when `creatingTables`); a read-only or immutable connection records nothing.
    func startRecordingHistory(creatingTables: Bool) throws {
        guard historyRecorder == nil, !database.configuration.isReadOnly else {
            if creatingTables, database.configuration.isReadOnly, !hasHistoryTables {
                throw StoreError.database(DatabaseError(resultCode: DatabaseError.SQLITE_READONLY, message: "it is open read-only, so its history tables cannot be made", path: path))
            }
            return
        }
        if !hasHistoryTables {
            guard creatingTables else { return }
            try createHistoryTables()
        }
        try addTombstoneColumns(schema: try StoreSchema(reading: database))
        let schema = try StoreSchema(reading: database)
        let recorder = PersistentHistoryRecorder(layout: layout, model: model)
        recorder.tablesOfStoreTriggers = try tablesOfStoreTriggers()
        for statement in recorder.triggerStatements(layout: layout, schema: schema) { try database.execute(statement) }
        historyRecorder = recorder
        database.willCommit = { [unowned self] in try self.writeHistoryTransaction() }
    }

    /// Core Data's three tables, their indexes and their `Z_PRIMARYKEY` rows, in one transaction.
    private func createHistoryTables() throws {
        try database.inTransaction {
            for statement in PersistentHistory.createStatements(for: model) { try database.execute(statement) }
            for row in PersistentHistory.primaryKeyRows {
                try database.execute(
                    "INSERT OR IGNORE INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, 0, 0)",
                    [.integer(Int64(row.number)), .text(row.name)])
            }
        }
        hasHistoryTables = true
    }

    /// `ZTOMBSTONE<n>` columns up to the number the model needs: a store made for an earlier
    /// version of the model may have fewer.
    private func addTombstoneColumns(schema: StoreSchema) throws {
        let existing = Set(schema.table(named: PersistentHistory.changeTable)?.columns.map(\.name) ?? [])
        let missing = (0..<PersistentHistory.tombstoneCount(of: model)).map(PersistentHistory.tombstoneColumn).filter { !existing.contains($0) }
        guard !missing.isEmpty else { return }
        try database.inTransaction {
            for column in missing { try database.execute("ALTER TABLE \(PersistentHistory.changeTable) ADD COLUMN \(column) BLOB") }
        }
    }

    /// Names who the transaction under way is recorded for: Core Data's transaction author
    /// and the saving context's name. Call it inside the transaction, before it commits; it
    /// holds until the transaction's history is written.
    func setHistoryOrigin(author: String?, contextName: String?) {
        guard let recorder = historyRecorder else { return }
        (recorder.author, recorder.contextName) = (author, contextName)
    }

    /// Whether this connection wrote history transaction `number` (see ``PersistentHistoryRecorder/written``).
    func wroteHistoryTransaction(_ number: Int64) -> Bool {
        historyRecorder?.written.contains(number) ?? false
    }

    /// The bundle identifier recorded for this process: the main bundle's, else the process's
    /// name (a command-line program on Linux has no bundle identifier).
    static let historyBundleID = Bundle.main.bundleIdentifier ?? ProcessInfo.processInfo.processName
    static let historyProcessName = ProcessInfo.processInfo.processName

    /// Turns the log the triggers wrote during this transaction, and the rows its saves noted
    /// themselves (``PersistentHistoryRecorder/SavedRun``), into one history transaction and
    /// its changes; nothing when the transaction changed no object. The changes are in the
    /// order the rows were first written (a save's inserts, then its updates, then its
    /// deletions), then the objects whose to-many changed through other rows.
    func writeHistoryTransaction() throws {
        guard let recorder = historyRecorder else { return }
        defer { (recorder.author, recorder.contextName) = (nil, nil) }
        let runs = try takeSavedRuns(recorder)
        // One save's own rows and nothing else: written without going through the log.
        if let first = runs.first, runs.allSatisfy({ $0.window == first.window }),
            try database.cachedStatement("SELECT EXISTS (SELECT 1 FROM \(PersistentHistoryRecorder.logTable))").rows([]).first?.first == .integer(0)
        {
            return try writeSavedRuns(runs, recorder: recorder)
        }
        var reduction = PersistentHistoryRecorder.Reduction()
        var logIsEmpty = runs.isEmpty
        // The saves' own rows go in among the log's rows where they were written.
        var nextRun = 0
        func noteRuns(before logRow: Int64) {
            while nextRun < runs.count, runs[nextRun].afterLogRow < logRow {
                let run = runs[nextRun]
                for key in run.keys { reduction.note(run.type, table: run.table, key: key, entity: run.entity, properties: run.properties) }
                nextRun += 1
            }
        }
        // A save writes the same columns of many rows: each list of changed columns is read once.
        var changedByColumns: [Int: [DatabaseValue: (columns: Set<String>, properties: Set<String>)]] = [:]
        // The log is read in place, row by row: a save of many objects logs as many rows.
        try database.cachedStatement(
            "SELECT kind, entity, pk, columns, keys, other, tableName, rowid FROM \(PersistentHistoryRecorder.logTable) ORDER BY rowid"
        ).forEachRow { row in
            logIsEmpty = false
            noteRuns(before: row.value(at: 7).int64Value ?? 0)
            guard let kind = row.value(at: 0).int64Value, let key = row.value(at: 2).int64Value else { return true }
            if kind == 3 {
                guard let table = row.value(at: 6).stringValue, let sides = recorder.joinSides[table], let other = row.value(at: 5).int64Value else { return true }
                reduction.relationshipChanges.append((sides.source.entity, key, sides.source.relationship))
                reduction.relationshipChanges.append((sides.destination.entity, other, sides.destination.relationship))
                return true
            }
            guard let number = row.value(at: 1).int64Value.map(Int.init), let entity = recorder.entities[number],
                let type = PersistentHistoryChange.ChangeType(rawValue: kind)
            else { return true }
            var changedColumns: Set<String> = [], properties: Set<String> = []
            let changed = row.value(at: 3)
            if changed != .null {
                if let known = changedByColumns[number]?[changed] {
                    (changedColumns, properties) = known
                } else {
                    changedColumns = recorder.changedColumns(changed, table: entity.tableName)
                    properties = Set(changedColumns.compactMap { entity.propertiesByColumn[$0] })
                    changedByColumns[number, default: [:]][changed] = (changedColumns, properties)
                }
            }
            // The rows this one points at (or pointed at) gained or lost it as a member.
            let keyColumns = recorder.keyColumnsByTable[entity.tableName] ?? []
            if !keyColumns.isEmpty {
                let keys = keyValues(row.value(at: 4))
                for (index, column) in keyColumns.enumerated() {
                    var targets: [Int64] = []
                    if type != .update {
                        if let value = keys[safe: index] ?? nil { targets.append(value) }
                    } else if changedColumns.contains(column.column) {
                        if let old = keys[safe: index] ?? nil { targets.append(old) }
                        if let now = try currentKey(of: column.column, table: entity.tableName, key: key) { targets.append(now) }
                    }
                    for target in targets { reduction.relationshipChanges.append((column.destination, target, column.relationship)) }
                }
            }
            // A write of columns that are no property of the row (a position in an ordered
            // to-many, an inverseless to-many's key) is no change of it; a raised version is.
            if type == .update, properties.isEmpty, row.value(at: 5).int64Value != 1 { return true }
            reduction.note(type, table: entity.tableName, key: key, entity: number, properties: properties)
            return true
        }
        noteRuns(before: .max)
        guard !logIsEmpty else { return }
        // A parent of many new rows is looked up once.
        var seen: Set<String> = []
        for (entityName, key, relationship) in reduction.relationshipChanges where seen.insert("\(entityName)#\(key)#\(relationship)").inserted {
            guard let table = recorder.tableByEntity[entityName],
                let number = try database.cachedStatement("SELECT Z_ENT FROM \(table) WHERE Z_PK = ?").rows([.integer(key)]).first?.first?.int64Value
            else { continue }
            reduction.note(.update, table: table, key: key, entity: Int(number), properties: [relationship])
        }
        var changes: [PersistentHistoryRecorder.PendingChange] = [], keys: [Int64] = []
        changes.reserveCapacity(reduction.order.count)
        keys.reserveCapacity(reduction.order.count)
        for id in reduction.order {
            guard let change = reduction.changes[id], !change.isVoid else { continue }
            changes.append(change)
            keys.append(id.key)
        }
        try clearHistoryLog()
        guard !changes.isEmpty else { return }
        let tombstones = try tombstoneValues()
        let transaction = try insertHistoryTransaction(recorder)
        let first = try nextHistoryKeys(PersistentHistory.changeEntity.number, count: changes.count).lowerBound
        let tombstoneColumns = (0..<recorder.tombstoneCount).map(PersistentHistory.tombstoneColumn)
        let insert = try database.cachedStatement("""
            INSERT INTO ACHANGE (Z_PK, Z_ENT, Z_OPT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS\(tombstoneColumns.map { ", \($0)" }.joined())) \
            VALUES (?, ?, NULL, ?, ?, ?, ?, ?\(String(repeating: ", ?", count: tombstoneColumns.count)))
            """)
        let changeEntity = DatabaseValue.integer(Int64(PersistentHistory.changeEntity.number))
        for (offset, (change, key)) in zip(changes, keys).enumerated() {
            let entity = recorder.entities[change.entity]
            var columns = DatabaseValue.null
            if change.type == .update, let entity, !change.properties.isEmpty {
                columns = .blob(PersistentHistory.bitmap(change.properties, order: entity.propertyOrder))
            }
            try insert.execute { arguments in
                arguments.append(.integer(first + Int64(offset)))
                arguments.append(changeEntity)
                arguments.append(.integer(change.type.rawValue))
                arguments.append(.integer(Int64(change.entity)))
                arguments.append(.integer(key))
                arguments.append(.integer(transaction))
                arguments.append(columns)
                for index in tombstoneColumns.indices {
                    var value = DatabaseValue.null
                    if change.type == .delete, let entity, index < entity.tombstoneColumns.count, let column = entity.tombstoneColumns[index] {
                        value = tombstones["\(change.entity)#\(key)#\(column)"] ?? .null
                    }
                    arguments.append(value)
                }
            }
        }
    }

    /// Adds the `ATRANSACTION` row of the transaction under way (its author, context name,
    /// bundle, process and time) and returns its key.
    func insertHistoryTransaction(_ recorder: PersistentHistoryRecorder) throws -> Int64 {
        let transaction = try nextHistoryKeys(PersistentHistory.transactionEntity.number, count: 1).lowerBound
        let strings = try [recorder.author ?? defaultTransactionAuthor, Self.historyBundleID, recorder.contextName, Self.historyProcessName].map(internedString)
        try database.cachedStatement("""
            INSERT INTO ATRANSACTION (Z_PK, Z_ENT, Z_OPT, ZAUTHORTS, ZBUNDLEIDTS, ZCONTEXTNAMETS, ZPROCESSIDTS, ZTIMESTAMP) \
            VALUES (?, ?, NULL, ?, ?, ?, ?, ?)
            """).execute(
                [.integer(transaction), .integer(Int64(PersistentHistory.transactionEntity.number))]
                    + strings.map { $0.map(DatabaseValue.integer) ?? .null } + [.real(Date().timeIntervalSinceReferenceDate)])
        if recorder.written.count >= 4096, let oldest = recorder.written.min() { recorder.written.remove(oldest) }
        recorder.written.insert(transaction)
        return transaction
    }

    /// The keys a to-one or inverseless to-many column held, from the log's JSON array.
    private func keyValues(_ value: DatabaseValue) -> [Int64?] {
        guard let text = value.stringValue, let array = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [Any] else { return [] }
        return array.map { ($0 as? NSNumber)?.int64Value }
    }

    private func currentKey(of column: String, table: String, key: Int64) throws -> Int64? {
        try database.cachedStatement("SELECT \(column) FROM \(table) WHERE Z_PK = ?").rows([.integer(key)]).first?.first?.int64Value
    }

    /// The values the deleted rows' preserved attributes had, by `<Z_ENT>#<Z_PK>#<column>`.
    private func tombstoneValues() throws -> [String: DatabaseValue] {
        var values: [String: DatabaseValue] = [:]
        for row in try database.cachedStatement("SELECT entity, pk, columnName, value FROM \(PersistentHistoryRecorder.tombstoneTable)").rows([]) {
            values["\(row[0].int64Value ?? 0)#\(row[1].int64Value ?? 0)#\(row[2].stringValue ?? "")"] = row[3]
        }
        try database.cachedStatement("DELETE FROM \(PersistentHistoryRecorder.tombstoneTable)").execute([])
        return values
    }

    private func clearHistoryLog() throws {
        try database.cachedStatement("DELETE FROM \(PersistentHistoryRecorder.logTable)").execute([])
    }

    /// `count` new keys of a history table, through its `Z_PRIMARYKEY` row as Core Data hands
    /// them out: above `Z_MAX` and above every key the table holds.
    func nextHistoryKeys(_ number: Int, count: Int) throws -> ClosedRange<Int64> {
        let table = switch number {
        case PersistentHistory.changeEntity.number: PersistentHistory.changeTable
        case PersistentHistory.transactionEntity.number: PersistentHistory.transactionTable
        default: PersistentHistory.stringTable
        }
        let name = PersistentHistory.primaryKeyRows.first { $0.number == number }?.name ?? ""
        try database.cachedStatement("INSERT OR IGNORE INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, 0, 0)")
            .execute([.integer(Int64(number)), .text(name)])
        let last = try database.cachedStatement("""
            UPDATE Z_PRIMARYKEY SET Z_MAX = max(ifnull(Z_MAX, 0), ifnull((SELECT max(Z_PK) FROM \(table)), 0)) + ? WHERE Z_ENT = ? RETURNING Z_MAX
            """).rows([.integer(Int64(count)), .integer(Int64(number))]).first?.first?.int64Value ?? Int64(count)
        return (last - Int64(count) + 1)...last
    }

    /// The `ATRANSACTIONSTRING` key of `text`, added when the table lacks it; `nil` for no text.
    private func internedString(_ text: String?) throws -> Int64? {
        guard let text else { return nil }
        if let key = try database.cachedStatement("SELECT Z_PK FROM ATRANSACTIONSTRING WHERE ZNAME = ?").rows([.text(text)]).first?.first?.int64Value {
            return key
        }
        let key = try nextHistoryKeys(PersistentHistory.stringEntity.number, count: 1).lowerBound
        try database.cachedStatement("INSERT INTO ATRANSACTIONSTRING (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (?, ?, NULL, ?)")
            .execute([.integer(key), .integer(Int64(PersistentHistory.stringEntity.number)), .text(text)])
        return key
    }
}

extension Array {
    fileprivate subscript(safe index: Int) -> Element? {
        indices.contains(index) ? self[index] : nil
    }
}
