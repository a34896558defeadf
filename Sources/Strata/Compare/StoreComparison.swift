import Foundation

/// The objects added, removed and changed between two stores of one model (or of two versions
/// of one model bundle), entity by entity: what `strata diff` prints.
///
/// Objects are matched by their entity's identity attribute, the one an import matches records
/// by (``ImportIdentity/conventional(for:in:)``: a single-attribute uniqueness constraint,
/// `relatedByAttribute`, `remoteID`, `<entity>ID`, `id`), else by primary key (`Z_PK`), which
/// only means "the same object" between a store and its own copy. Attributes are compared
/// by value; relationships by the keys of the objects they point to, so that a book whose
/// author is another object with the same identity is unchanged. A to-many whose inverse is a
/// to-one is compared on that to-one's side, and a many-to-many on the side its join table is
/// named after, so that a changed link is reported once.
///
/// The model is the new store's: its entities and properties, matched by name in the old
/// store's, which, when it is another version, may lack some (listed in
/// ``EntitySummary/onlyInNew``) or have others (``EntitySummary/onlyInOld``); those are not
/// compared. An entity the old store lacks has all its objects added, and the reverse.
///
/// Both stores are read once, each entity's rows in the order of the matching key, and
/// merged as they come: memory does not grow with the number of objects, and values are
/// compared on SQLite's own buffers, only the differing ones being converted.
///
/// ```swift
/// let comparison = try StoreComparison(old: before, new: after)
/// let summary = try comparison.run { difference in
///     print(difference.kind, difference.entityName, difference.key)
/// }
/// if summary.isEqual { print("no differences") }
/// ```
package struct StoreComparison {
    package let old: PersistentStore
    package let new: PersistentStore
    let plans: [EntityPlan]

    /// Plans the comparison of `old` with `new`; neither is read until ``run(_:)``.
    package init(old: PersistentStore, new: PersistentStore) {
        self.old = old
        self.new = new
        plans = Self.plans(old: old, new: new)
    }

    /// Compares the stores, calling `report` with each difference as it is found (entities in
    /// order of name, objects in order of their key), and returns what was found per entity.
    ///
    /// - Throws: ``DatabaseError`` or ``StoreError`` when a store cannot be read, or what
    ///   `report` throws; the stores are only read.
    @discardableResult
    package func run(_ report: (ObjectDifference) throws -> Void) throws -> Summary {
        var summaries: [EntitySummary] = []
        for plan in plans {
            summaries.append(try old.withConnection { try new.withConnection { try compare(plan, report) } })
        }
        return Summary(entities: summaries)
    }

    /// The merge of one entity's rows: both sides ordered by (key, Z_PK), so that equal keys
    /// meet, and duplicates of a key (an identity that is not unique) pair in primary-key order.
    private func compare(_ plan: EntityPlan, _ report: (ObjectDifference) throws -> Void) throws -> EntitySummary {
        var summary = EntitySummary(entityName: plan.entityName, keyName: plan.keyName, onlyInOld: plan.onlyInOld, onlyInNew: plan.onlyInNew)
        let left = try plan.oldSQL.map { sql throws(DatabaseError) in try old.database.makeStatement(sql) }
        let right = try plan.newSQL.map { sql throws(DatabaseError) in try new.database.makeStatement(sql) }
        var leftHasRow = try left?.step() ?? false
        var rightHasRow = try right?.step() ?? false
        while leftHasRow || rightHasRow {
            let order: Int
            if let left, let right, leftHasRow, rightHasRow {
                order = left.compareColumn(0, with: right, 0)
            } else {
                order = leftHasRow ? -1 : 1
            }
            if order < 0, let left {
                summary.oldCount += 1
                summary.removed += 1
                try report(plan.difference(.removed, key: left, old: left, new: nil))
                leftHasRow = try left.step()
            } else if order > 0, let right {
                summary.newCount += 1
                summary.added += 1
                try report(plan.difference(.added, key: right, old: nil, new: right))
                rightHasRow = try right.step()
            } else if let left, let right {
                summary.oldCount += 1
                summary.newCount += 1
                var changed: [Int] = []
                for index in plan.fields.indices where !left.columnHoldsSameValue(Int32(index + 2), as: right, Int32(index + 2)) {
                    changed.append(index)
                }
                if !changed.isEmpty {
                    summary.changed += 1
                    var difference = plan.difference(.changed, key: right, old: left, new: right)
                    difference.changes = changed.map { index in
                        let field = plan.fields[index]
                        return ObjectDifference.PropertyChange(
                            property: field.name, old: field.json(left.value(at: Int32(index + 2))), new: field.json(right.value(at: Int32(index + 2))))
                    }
                    try report(difference)
                }
                leftHasRow = try left.step()
                rightHasRow = try right.step()
            }
        }
        return summary
    }
}
