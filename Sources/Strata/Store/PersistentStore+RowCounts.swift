import Foundation

/// Row counts per entity, as `strata inspect` reports them and migrations check them: the rows
/// whose `Z_ENT` is the entity itself, read from the tables without a predicate. The number of
/// objects a request selects, sub-entities included unless it says otherwise, is the fetch
/// layer's ``count(for:)`` and ``count(of:matching:includesSubentities:)``.
extension PersistentStore {
    /// The number of rows of each entity of ``layout``, sub-entities' rows not included; 0 for
    /// an entity whose table the file lacks.
    ///
    /// ```swift
    /// let counts = try store.rowCountsExcludingSubentities()   // ["Book": 3, "EBook": 2]
    /// ```
    ///
    /// A table that one entity holds alone (no other entity of the layout shares it, and
    /// `Z_PRIMARYKEY` records the entity as a root without sub-entities) is counted whole, as
    /// Core Data counts such an entity (`SELECT COUNT(*) FROM ZITEM`). A table that a hierarchy
    /// shares is counted per `Z_ENT`; rows whose `Z_ENT` names no entity of that table count
    /// for none.
    public func rowCountsExcludingSubentities() throws -> [String: Int] {
        try database.withPageCache(ofAtMost: Self.countingCacheSize) {
            var counts: [String: Int] = [:]
            for (table, entities) in Dictionary(grouping: layout.entities, by: \.tableName).sorted(by: { $0.key < $1.key }) {
                counts.merge(try rowCounts(inTable: table, of: entities)) { _, new in new }
            }
            return counts
        }
    }

    /// The number of rows of `entityName` itself, sub-entities' rows not included, counted as
    /// ``rowCountsExcludingSubentities()`` counts it, reading only the entity's own table.
    package func rowCountExcludingSubentities(of entityName: String) throws -> Int {
        let entity = try layoutEntity(entityName)
        let sharing = layout.entities.filter { $0.tableName == entity.tableName }
        return try database.withPageCache(ofAtMost: Self.countingCacheSize) {
            try rowCounts(inTable: entity.tableName, of: sharing)[entity.name] ?? 0
        }
    }

    /// The counts of `entities`, which are every entity of the layout stored in `table`.
    private func rowCounts(inTable table: String, of entities: [StoreLayout.Entity]) throws -> [String: Int] {
        var counts = Dictionary(entities.map { ($0.name, 0) }, uniquingKeysWith: { first, _ in first })
        guard schema.table(named: table) != nil else { return counts }
        if entities.count == 1, let entity = entities.first, holdsTableAlone(entity) {
            // SQLite answers a bare COUNT(*) by counting the cells of the table's smallest
            // b-tree, without decoding a row; grouping by Z_ENT reads and sorts every row, some
            // forty times slower on a million rows.
            counts[entity.name] = Int(try database.scalar("SELECT COUNT(*) FROM \(table)")?.int64Value ?? 0)
            return counts
        }
        for row in try database.rows("SELECT Z_ENT, COUNT(*) FROM \(table) GROUP BY Z_ENT") {
            if let number = row[0].int64Value, let entity = entities.first(where: { $0.number == Int(number) }) {
                counts[entity.name] = Int(row[1].int64Value ?? 0)
            }
        }
        return counts
    }

    /// The page cache, in KiB, while counting a table: its pages are read once, and caching
    /// them only costs fresh memory (see ``Database/withPageCache(ofAtMost:_:)``).
    private static let countingCacheSize = 256

    /// Whether the store itself records no other entity in `entity`'s table: a model given to
    /// ``open(at:model:modelOrigin:requiresMatchingModel:configuration:)`` may lack sub-entities
    /// whose rows the table still holds.
    private func holdsTableAlone(_ entity: StoreLayout.Entity) -> Bool {
        schema.primaryKeys.contains { $0.entityNumber == entity.number && $0.entityName == entity.name && $0.superNumber == 0 }
            && !schema.primaryKeys.contains { $0.superNumber == entity.number }
    }
}

extension PersistentStore {
    /// The share of the rows of `entity`'s table that `condition` (a condition on `Z_ENT`)
    /// selects, estimated from the table's first ``kindSampleSize`` rows; `nil` for an empty
    /// table. SQLite's planner, without statistics, takes an indexed `Z_ENT = n` to select a
    /// few rows, and sorts them rather than walking an index in order.
    func sampledShare(of entity: StoreLayout.Entity, condition: String) throws -> Double? {
        try withConnection {
            let sql = "SELECT count(*), count(CASE WHEN \(condition) THEN 1 END) FROM (SELECT Z_ENT FROM \(entity.tableName) LIMIT \(Self.kindSampleSize))"
            guard let row = try database.cachedStatement(sql).rows().first, let total = row[0].int64Value, total > 0 else { return nil }
            return Double(row[1].int64Value ?? 0) / Double(total)
        }
    }

    /// The rows ``sampledShare(of:condition:)`` reads: few enough to cost microseconds.
    static let kindSampleSize = 256
}
