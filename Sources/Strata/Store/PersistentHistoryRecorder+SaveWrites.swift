import Foundation

// A trigger that logs a row costs more than the row's own write, and one made quiet by a
// `WHEN` clause still costs most of that (case 19 in BENCHMARKS.md: an `UPDATE` of many rows
// loses SQLite's one-pass plan to any trigger). So a save that writes many rows of a table
// drops that table's insert and update triggers (temporary ones of the connection) for its
// writes, notes each row it writes itself, in runs, and makes the triggers again before
// anything else writes. The rows of a run become `ACHANGE` rows in one statement at commit
// when nothing else was logged in the transaction; otherwise they join the triggers' log in
// the order they were written, as the triggers would have logged them.

extension PersistentHistoryRecorder {
    /// How many rows of one kind (inserts, or updates) a save must write to a table for its
    /// trigger of that kind to be dropped. Below it the trigger stays: dropping and making a
    /// trigger again are schema changes of the connection, after which SQLite prepares every
    /// statement it runs again: measured at 0.16 ms for both triggers of a table with the
    /// statement that writes it (CPU time, loaded machine), while the insert trigger costs
    /// 1.1 µs a row and its log row about as much again to read. So from about 70 rows on a
    /// save gains; the threshold leaves room for connections with more statements to prepare.
    static let saveWindowThreshold = 256

    /// Rows of one entity that a save wrote, each with one kind of change and the same
    /// properties, with nothing else written in between.
    struct SavedRun {
        /// Its number in ``savedRunTable``.
        var id: Int64
        /// The save window that wrote it.
        var window: Int
        /// The rows' `Z_ENT`.
        var entity: Int
        var table: String
        var type: PersistentHistoryChange.ChangeType
        /// An update's changed properties (each written property, as a save writes only those
        /// that differ from what it read); none for an insert.
        var properties: Set<String>
        var keys: [Int64]
        /// The log's last rowid when the run began: the log's rows up to it were written first.
        var afterLogRow: Int64
    }

    /// A save's writes while some of its tables' triggers are dropped.
    ///
    /// Its state, and the recorder's that a write notes, is used with the store's connection
    /// held only. The run-time checks of exclusive access Swift makes on a class's stored
    /// properties cost a noted write more than the rest of its noting, so the properties each
    /// row's write reaches do without them.
    final class SaveWindow {
        let number: Int
        /// The tables whose insert trigger is dropped.
        var droppedInserts: Set<String>
        /// The tables whose update trigger is dropped.
        var droppedUpdates: Set<String>
        /// The plan of the last write, whether it inserted, and what its writes note (`nil`:
        /// they are not noted), looked at once per plan rather than once per row.
        @exclusivity(unchecked) var lastPlan: RowWritePlan?
        @exclusivity(unchecked) var lastIsInsert = false
        @exclusivity(unchecked) var lastShape: Shape?
        /// The connection's count of changed rows after the last noted write: when it moved
        /// since, something else wrote in between, and a new run begins.
        @exclusivity(unchecked) var changesAfterLastNote: Int64 = -1
        /// Where this window's runs start in ``savedRuns``.
        let firstRun: Int

        init(number: Int, droppedInserts: Set<String>, droppedUpdates: Set<String>, firstRun: Int) {
            (self.number, self.droppedInserts, self.droppedUpdates, self.firstRun) = (number, droppedInserts, droppedUpdates, firstRun)
        }
    }

    /// What a plan's noted writes record.
    struct Shape {
        var entity: Int
        var table: String
        var properties: Set<String>
    }

    /// What `plan`'s writes note when its table's trigger of that kind is dropped; `nil` when
    /// the save cannot note them as the trigger would: an entity the model lacks, an insert
    /// into a table holding keys of other rows (the rows pointed at gain a member, which the
    /// triggers' log names), an update writing such a key (the row it pointed at before loses
    /// one), or an update by the plan of an entity with sub-entities (its rows' `Z_ENT` may
    /// be a sub-entity's).
    func shape(of plan: RowWritePlan, isInsert: Bool) -> Shape? {
        let table = plan.table.tableName
        guard let entity = entities[plan.table.number] else { return nil }
        let keyColumns = Set((keyColumnsByTable[table] ?? []).map(\.column))
        if isInsert {
            guard keyColumns.isEmpty else { return nil }
            return Shape(entity: plan.table.number, table: table, properties: [])
        }
        guard plan.table.numberRange.count == 1 else { return nil }
        let toOneColumns = plan.toOnes.compactMap { plan.table.toOneColumns[$0] }
        guard !toOneColumns.contains(where: { keyColumns.contains($0.key) }) else { return nil }
        let columns = plan.attributeColumns + toOneColumns.map(\.key)
        return Shape(entity: plan.table.number, table: table, properties: Set(columns.compactMap { entity.propertiesByColumn[$0] }))
    }

    /// The runs of the saves whose transaction or savepoint was not rolled back, in the order
    /// written, from `numbers` (what ``savedRunTable`` holds); every run is forgotten after.
    func takeSavedRuns(surviving numbers: Set<Int64>) -> [SavedRun] {
        defer { savedRuns.removeAll(keepingCapacity: true) }
        return savedRuns.filter { numbers.contains($0.id) }
    }

    /// The name of `table`'s insert or update history trigger.
    static func triggerName(_ table: String, isInsert: Bool) -> String {
        "strata_history_\(table)_\(isInsert ? "insert" : "update")"
    }
}
