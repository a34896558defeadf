import Foundation

/// Reading and pruning persistent history (Core Data's `NSPersistentHistoryChangeRequest`).
extension PersistentStore {
    /// Whether the file holds Core Data's history tables, recorded or not on this connection.
    package var hasPersistentHistory: Bool {
        (try? withConnection { hasHistoryTables }) ?? false
    }

    /// The token of the store's last transaction: Core Data's `currentPersistentHistoryToken`.
    /// `nil` when the store keeps no history; a token of transaction 0 when it keeps history
    /// but has none yet.
    public func currentHistoryToken() throws -> PersistentHistoryToken? {
        try withConnection {
            guard try historyTablesExist() else { return nil }
            let last = try database.scalar("SELECT max(Z_PK) FROM ATRANSACTION")?.int64Value ?? 0
            return PersistentHistoryToken(storeUUID: metadata.uuid, transactionNumber: last)
        }
    }

    /// Runs a history request: a fetch returns the transactions it covers, earliest first
    /// (with their changes, unless asked otherwise); a deletion removes them and their
    /// changes, in one transaction, and returns how many went.
    ///
    /// ```swift
    /// let recent = try store.execute(.fetchHistory(after: Date(timeIntervalSinceNow: -3600))).transactions
    /// let pruned = try store.execute(.deleteHistory(before: Date(timeIntervalSinceNow: -7 * 86_400))).count
    /// ```
    ///
    /// - Throws: ``StoreError/noPersistentHistory(path:)`` for a store without the history
    ///   tables; ``StoreError/foreignHistoryToken(path:token:storeUUID:)`` for a token of
    ///   another store; ``StoreError/database(_:)`` when the store fails.
    public func execute(_ request: PersistentHistoryChangeRequest) throws -> PersistentHistoryResult {
        try withConnection {
            guard try historyTablesExist() else { throw StoreError.noPersistentHistory(path: path) }
            var conditions: [String] = []
            var arguments: [DatabaseValue] = []
            switch request.bound {
            case .afterToken(let token):
                if let token {
                    try check(token)
                    conditions.append("t.Z_PK > ?")
                    arguments.append(.integer(token.transactionNumber))
                }
            case .afterDate(let date):
                conditions.append("t.ZTIMESTAMP > ?")
                arguments.append(.real(date.timeIntervalSinceReferenceDate))
            case .beforeToken(let token):
                guard let token else { return PersistentHistoryResult() }
                try check(token)
                conditions.append("t.Z_PK < ?")
                arguments.append(.integer(token.transactionNumber))
            case .beforeDate(let date):
                conditions.append("t.ZTIMESTAMP < ?")
                arguments.append(.real(date.timeIntervalSinceReferenceDate))
            }
            if request.operation == .delete {
                return PersistentHistoryResult(count: try deleteTransactions(where: conditions, arguments))
            }
            if let author = request.author {
                conditions.append("(t.ZAUTHOR = ? OR t.ZAUTHORTS = (SELECT Z_PK FROM ATRANSACTIONSTRING WHERE ZNAME = ?))")
                arguments += [.text(author), .text(author)]
            }
            if let names = request.entityNames {
                let numbers = layout.entities.filter { names.contains($0.name) }.map { Int64($0.number) }
                conditions.append("EXISTS (SELECT 1 FROM ACHANGE c WHERE c.ZTRANSACTIONID = t.Z_PK AND c.ZENTITY IN (SELECT value FROM json_each(?)))")
                arguments.append(.keyList(numbers))
            }
            let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
            if request.resultType == .count {
                let count = try database.scalar("SELECT count(*) FROM ATRANSACTION t \(filter)", arguments)?.int64Value ?? 0
                return PersistentHistoryResult(count: Int(min(count, Int64(request.fetchLimit ?? Int.max))))
            }
            var transactions = try readTransactions(filter: filter, arguments, limit: request.fetchLimit)
            if request.resultType == .transactionsAndChanges, let first = transactions.first, let last = transactions.last {
                let changes = try readChanges(from: first.transactionNumber, to: last.transactionNumber, entityNames: request.entityNames)
                for index in transactions.indices { transactions[index].changes = changes[transactions[index].transactionNumber] ?? [] }
            }
            return PersistentHistoryResult(transactions: transactions, count: transactions.count)
        }
    }

    /// The transactions after `token` (every one for `nil`), with their changes:
    /// ``execute(_:)`` of ``PersistentHistoryChangeRequest/fetchHistory(after:)-(PersistentHistoryToken?)``.
    public func fetchHistory(after token: PersistentHistoryToken?) throws -> [PersistentHistoryTransaction] {
        try execute(.fetchHistory(after: token)).transactions
    }

    /// Whether the three tables are there now (another connection may have made them since
    /// this one opened the store).
    func historyTablesExist() throws -> Bool {
        if hasHistoryTables { return true }
        let count = try database.scalar(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('ACHANGE', 'ATRANSACTION', 'ATRANSACTIONSTRING')")?.int64Value
        hasHistoryTables = count == 3
        return hasHistoryTables
    }

    private func check(_ token: PersistentHistoryToken) throws {
        guard token.storeUUID == metadata.uuid else {
            throw StoreError.foreignHistoryToken(path: path, token: token.description, storeUUID: metadata.uuid)
        }
    }

    private func readTransactions(filter: String, _ arguments: [DatabaseValue], limit: Int?) throws -> [PersistentHistoryTransaction] {
        // Interned strings first, where Core Data keeps them; the VARCHAR twins otherwise.
        let text = { (column: String) in "coalesce((SELECT ZNAME FROM ATRANSACTIONSTRING s WHERE s.Z_PK = t.\(column)TS), t.\(column))" }
        let sql = """
            SELECT t.Z_PK, t.ZTIMESTAMP, \(text("ZAUTHOR")), \(text("ZBUNDLEID")), \(text("ZCONTEXTNAME")), \(text("ZPROCESSID")) \
            FROM ATRANSACTION t \(filter) ORDER BY t.Z_PK LIMIT ?
            """
        return try database.rows(sql, arguments + [.integer(Int64(limit ?? -1))]).map { row in
            PersistentHistoryTransaction(
                transactionNumber: row[0].int64Value ?? 0, timestamp: Date(timeIntervalSinceReferenceDate: row[1].doubleValue ?? 0),
                author: row[2].stringValue, bundleID: row[3].stringValue, contextName: row[4].stringValue, processID: row[5].stringValue,
                storeUUID: metadata.uuid)
        }
    }

    /// The changes of transactions `first` through `last`, by transaction number.
    private func readChanges(from first: Int64, to last: Int64, entityNames: Set<String>?) throws -> [Int64: [PersistentHistoryChange]] {
        let columns = Set(try database.columns(of: PersistentHistory.changeTable).map(\.name))
        var tombstoneColumns: [String] = []
        while columns.contains(PersistentHistory.tombstoneColumn(tombstoneColumns.count)) {
            tombstoneColumns.append(PersistentHistory.tombstoneColumn(tombstoneColumns.count))
        }
        let sql = """
            SELECT Z_PK, ZTRANSACTIONID, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZCOLUMNS\(tombstoneColumns.map { ", \($0)" }.joined()) \
            FROM ACHANGE WHERE ZTRANSACTIONID BETWEEN ? AND ? ORDER BY ZTRANSACTIONID, Z_PK
            """
        let names = layout.entityNamesByNumber
        var orders: [String: [String]] = [:]
        var changes: [Int64: [PersistentHistoryChange]] = [:]
        for row in try database.rows(sql, [.integer(first), .integer(last)]) {
            guard let transaction = row[1].int64Value, let type = row[2].int64Value.flatMap(PersistentHistoryChange.ChangeType.init),
                let number = row[3].int64Value, let key = row[4].int64Value
            else { continue }
            // A change of an entity the model no longer has is named by its number.
            let entityName = names[Int(number)] ?? "Z_ENT \(number)"
            if let entityNames, !entityNames.contains(entityName) { continue }
            let entity = model.entity(named: entityName)
            var change = PersistentHistoryChange(
                changeID: row[0].int64Value ?? 0, changeType: type, entityName: entityName, primaryKey: key, transactionNumber: transaction)
            if type == .update, let bitmap = row[5].dataValue, let entity {
                let order = orders[entityName] ?? PersistentHistory.propertyOrder(of: entity, in: model)
                orders[entityName] = order
                change.updatedProperties = PersistentHistory.properties(in: bitmap, order: order)
            } else if type == .update, row[5] == .null {
                change.updatedProperties = []
            }
            if type == .delete, let entity {
                var tombstone: [String: AttributeValue] = [:]
                for (index, attribute) in PersistentHistory.tombstoneAttributes(of: entity, in: model).enumerated() where index < tombstoneColumns.count {
                    if let value = AttributeValue(row[6 + index], type: attribute.type) { tombstone[attribute.name] = value }
                }
                change.tombstone = tombstone
            }
            changes[transaction, default: []].append(change)
        }
        return changes
    }

    /// Deletes the transactions the conditions select and their changes; returns how many
    /// transactions went. Interned strings stay, as in Core Data's stores, where they outlive
    /// the transactions that named them.
    private func deleteTransactions(where conditions: [String], _ arguments: [DatabaseValue]) throws -> Int {
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        return try database.inTransaction {
            try database.execute("DELETE FROM ACHANGE WHERE ZTRANSACTIONID IN (SELECT t.Z_PK FROM ATRANSACTION t \(filter))", arguments)
            try database.execute("DELETE FROM ATRANSACTION WHERE Z_PK IN (SELECT t.Z_PK FROM ATRANSACTION t \(filter))", arguments)
            return database.changedRowCount
        }
    }
}
