import Foundation

/// A context's save recording the history of the rows it writes itself: see
/// `PersistentHistoryRecorder+SaveWrites.swift` for why.
extension PersistentStore {
    /// Before a save writes its rows, inside its transaction: drops the insert (update)
    /// history trigger of each table that the save inserts (updates) at least
    /// ``PersistentHistoryRecorder/saveWindowThreshold`` rows of, so that
    /// ``insertRow(_:key:values:toOne:)`` and ``updateRow(_:primaryKey:expectedVersion:values:toOne:)``
    /// note those rows instead. Nothing to do on a store that records no history.
    ///
    /// Call ``closeHistoryWindow()`` once the rows are written and before anything else writes,
    /// and ``abandonHistoryWindow()`` in a `defer`, for a save that fails first.
    ///
    /// - Parameters:
    ///   - inserting: the ID of each row the save inserts, in the order written.
    ///   - updating: the ID of each row the save updates.
    func openHistoryWindow(inserting: some Sequence<ObjectID>, updating: some Sequence<ObjectID>) throws {
        guard let recorder = historyRecorder else { return }
        abandonHistoryWindow()
        let threshold = PersistentHistoryRecorder.saveWindowThreshold
        let insertCounts = rowCounts(of: EntityRun.runs(of: inserting), isInsert: true, recorder: recorder)
        let updateCounts = rowCounts(of: EntityRun.runs(of: updating), isInsert: false, recorder: recorder)
        let inserts = Set(insertCounts.filter { $0.value >= threshold }.keys), updates = Set(updateCounts.filter { $0.value >= threshold }.keys)
        guard !inserts.isEmpty || !updates.isEmpty else { return }
        recorder.nextSaveWindow += 1
        recorder.saveWindow = .init(number: recorder.nextSaveWindow, droppedInserts: [], droppedUpdates: [], firstRun: recorder.savedRuns.count)
        for table in inserts.sorted() {
            try database.execute("DROP TRIGGER IF EXISTS temp.\(PersistentHistoryRecorder.triggerName(table, isInsert: true))")
            recorder.saveWindow?.droppedInserts.insert(table)
        }
        for table in updates.sorted() {
            try database.execute("DROP TRIGGER IF EXISTS temp.\(PersistentHistoryRecorder.triggerName(table, isInsert: false))")
            recorder.saveWindow?.droppedUpdates.insert(table)
        }
    }

    /// After a save's rows are written: makes the dropped triggers again, and marks the rows it
    /// noted as part of the transaction (or savepoint) under way, so that its commit records
    /// them and its rollback forgets them.
    func closeHistoryWindow() throws {
        guard let recorder = historyRecorder, let window = recorder.saveWindow else { return }
        recorder.saveWindow = nil
        try restoreTriggers(of: window, recorder: recorder)
        let numbers = recorder.savedRuns[window.firstRun...].map(\.id)
        guard !numbers.isEmpty else { return }
        try database.cachedStatement("INSERT INTO temp.\(PersistentHistoryRecorder.savedRunTable) (id) SELECT value FROM json_each(?)")
            .execute([.keyList(numbers)])
    }

    /// Ends a save's window that ``closeHistoryWindow()`` did not close (the save failed):
    /// makes the dropped triggers again (the transaction's rollback would too) and forgets the
    /// rows noted.
    func abandonHistoryWindow() {
        guard let recorder = historyRecorder, let window = recorder.saveWindow else { return }
        recorder.saveWindow = nil
        try? restoreTriggers(of: window, recorder: recorder)
        if window.firstRun < recorder.savedRuns.count { recorder.savedRuns.removeSubrange(window.firstRun...) }
    }

    /// Called by a save's write of a row by `plan` before it runs: whether the row is to be
    /// noted (``noteSavedWrite(key:isInsert:)`` once written). A write the save cannot note
    /// (``PersistentHistoryRecorder/shape(of:isInsert:)``) into a table whose trigger is
    /// dropped gets the trigger back first.
    func historyWindowWillWrite(_ plan: RowWritePlan, isInsert: Bool) throws -> Bool {
        guard let recorder = historyRecorder, let window = recorder.saveWindow else { return false }
        if window.lastPlan === plan, window.lastIsInsert == isInsert { return window.lastShape != nil }
        let table = plan.table.tableName
        var shape: PersistentHistoryRecorder.Shape?
        if isInsert ? window.droppedInserts.contains(table) : window.droppedUpdates.contains(table) {
            shape = recorder.shape(of: plan, isInsert: isInsert)
            if shape == nil, let statements = recorder.rowTriggerStatements[table] {
                try database.execute(isInsert ? statements.insert : statements.update)
                if isInsert { window.droppedInserts.remove(table) } else { window.droppedUpdates.remove(table) }
            }
        }
        // A new plan starts a new run.
        window.changesAfterLastNote = -1
        (window.lastPlan, window.lastIsInsert, window.lastShape) = (plan, isInsert, shape)
        return shape != nil
    }

    /// Notes the row `key` that the plan ``historyWindowWillWrite(_:isInsert:)`` said yes to
    /// has written.
    func noteSavedWrite(key: Int64, isInsert: Bool) throws {
        guard let recorder = historyRecorder, let window = recorder.saveWindow else { return }
        let changes = database.totalChangedRowCount
        // The row's own write moved the count by one: more, and something else wrote between.
        if window.changesAfterLastNote == changes - 1, recorder.savedRuns.count > window.firstRun {
            recorder.savedRuns[recorder.savedRuns.count - 1].keys.append(key)
        } else if let shape = window.lastShape {
            let afterLogRow = try database.cachedStatement("SELECT max(rowid) FROM temp.\(PersistentHistoryRecorder.logTable)").rows([]).first?.first?.int64Value
            recorder.savedRuns.append(.init(
                id: recorder.nextSavedRun, window: window.number, entity: shape.entity, table: shape.table, type: isInsert ? .insert : .update,
                properties: shape.properties, keys: [key], afterLogRow: afterLogRow ?? 0))
            recorder.nextSavedRun += 1
        }
        window.changesAfterLastNote = changes
    }

    /// Writes the `ACHANGE` rows of `runs`, a save's own rows when nothing else was logged,
    /// one statement a run, after the transaction's `ATRANSACTION` row.
    func writeSavedRuns(_ runs: [PersistentHistoryRecorder.SavedRun], recorder: PersistentHistoryRecorder) throws {
        let transaction = try insertHistoryTransaction(recorder)
        var next = try nextHistoryKeys(PersistentHistory.changeEntity.number, count: runs.reduce(0) { $0 + $1.keys.count }).lowerBound
        // Measured against one prepared `INSERT` a row and a recursive CTE over a run's keys:
        // `json_each` over the keys is the cheapest (close to copying them from a table).
        let insert = try database.cachedStatement("""
            INSERT INTO ACHANGE (Z_PK, Z_ENT, Z_OPT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS) \
            SELECT ? + key, ?, NULL, ?, ?, value, ?, ? FROM json_each(?)
            """)
        for run in runs {
            var columns = DatabaseValue.null
            if run.type == .update, !run.properties.isEmpty, let entity = recorder.entities[run.entity] {
                columns = .blob(PersistentHistory.bitmap(run.properties, order: entity.propertyOrder))
            }
            try insert.execute([
                .integer(next), .integer(Int64(PersistentHistory.changeEntity.number)), .integer(run.type.rawValue), .integer(Int64(run.entity)),
                .integer(transaction), columns, .keyList(run.keys),
            ])
            next += Int64(run.keys.count)
        }
    }

    /// The runs saves noted in the transaction now committing that no rollback took away.
    func takeSavedRuns(_ recorder: PersistentHistoryRecorder) throws -> [PersistentHistoryRecorder.SavedRun] {
        guard !recorder.savedRuns.isEmpty else { return [] }
        let table = "temp.\(PersistentHistoryRecorder.savedRunTable)"
        let numbers = Set(try database.cachedStatement("SELECT id FROM \(table)").rows([]).compactMap { $0.first?.int64Value })
        try database.cachedStatement("DELETE FROM \(table)").execute([])
        return recorder.takeSavedRuns(surviving: numbers)
    }

    /// Makes the triggers `window` dropped again.
    private func restoreTriggers(of window: PersistentHistoryRecorder.SaveWindow, recorder: PersistentHistoryRecorder) throws {
        for table in window.droppedInserts.sorted() {
            if let statement = recorder.rowTriggerStatements[table]?.insert { try database.execute(statement) }
        }
        for table in window.droppedUpdates.sorted() {
            if let statement = recorder.rowTriggerStatements[table]?.update { try database.execute(statement) }
        }
    }

    /// How many rows of each table `runs` write, for the tables whose rows a save can note
    /// itself: a table with history triggers, none of the store's own, for an update an entity
    /// without sub-entities, and for an insert a table holding no keys of other rows.
    private func rowCounts(of runs: [EntityRun], isInsert: Bool, recorder: PersistentHistoryRecorder) -> [String: Int] {
        var counts: [String: Int] = [:]
        for run in runs {
            guard let entity = layout.entity(named: run.entityName), recorder.entities[entity.number] != nil,
                recorder.rowTriggerStatements[entity.tableName] != nil,
                !recorder.tablesOfStoreTriggers.contains(entity.tableName.uppercased()),
                isInsert ? (recorder.keyColumnsByTable[entity.tableName] ?? []).isEmpty : entity.numberRange.count == 1
            else { continue }
            counts[entity.tableName, default: 0] += run.count
        }
        return counts
    }

    /// The tables the store file's triggers are on or name (upper-cased): Core Data's derived
    /// attributes update other tables' rows. A table named anywhere in a trigger's SQL counts,
    /// which may take in a table that only shares a prefix: such a table keeps its triggers.
    func tablesOfStoreTriggers() throws -> Set<String> {
        let triggers = try database.rows("SELECT upper(tbl_name), upper(sql) FROM main.sqlite_master WHERE type = 'trigger'")
        guard !triggers.isEmpty else { return [] }
        let tables = Set(layout.entities.map { $0.tableName.uppercased() })
        var named: Set<String> = []
        for trigger in triggers {
            if let table = trigger[0].stringValue { named.insert(table) }
            guard let sql = trigger[1].stringValue else { continue }
            named.formUnion(tables.filter { sql.contains($0) })
        }
        return named
    }
}
