// What the data decides: a step whose model change is sound may still not fit the objects
// the store holds. Each check is a query whose rows are the objects that break a rule; the
// step runs them on its input (as `src`) before the copy and on the new store (as `main`)
// after it, and refuses with every broken rule, naming the objects. The new store's missing
// values (a new required attribute without a default) are what a custom step such as
// `migrate --script` can fill: when one runs, those checks wait until it has, and run on the
// migrated copy before it replaces the store.

extension MigrationStep {
    /// A rule the data must keep: the rows of `sql` are what breaks it.
    struct DataCheck: Sendable {
        /// Rows whose first column names an object (its primary key) and whose second, if any,
        /// what is wrong with it.
        var sql: String
        /// Whether it reads the new store, so runs after the copy.
        var readsNewStore: Bool
        /// Whether a custom step run on the new store can repair what it refuses (a value
        /// that is missing), so that with one the check runs after it.
        var isRepairable = false
        /// The reason, given how many rows broke the rule and a few of them as text.
        var reason: @Sendable (_ count: Int, _ samples: [String]) -> String
    }

    /// Every check of the step, those on the input first.
    var dataChecks: [DataCheck] {
        // A mapped step's objects are checked as a save checks them (see MappedStepRun).
        guard mappingModels.isEmpty else { return [] }
        return conversionChecks + overflowChecks + abandonedLinkChecks + collisionChecks + requiredChecks + uniquenessChecks
    }

    /// Integers that a floating point or Decimal type would not hold exactly, Doubles beyond
    /// Float's range.
    private var conversionChecks: [DataCheck] {
        mapping.entities.flatMap { entity -> [DataCheck] in
            guard let source = entity.source, let layout = sourceLayout.entity(named: source.name) else { return [] }
            return entity.attributes.compactMap { attribute in
                guard case .checkedCopy(let limit) = attribute.conversion, let old = attribute.source,
                    let column = layout.attributeColumns[old.name]
                else { return nil }
                let label = "\(entity.destination.name).\(attribute.destination.name)", type = attribute.destination.type.rawValue
                let values = old.type == .double ? "values beyond the range of \(type)" : "integers that \(type) cannot hold exactly"
                return DataCheck(
                    // Not ABS(): it overflows on the smallest integer.
                    sql: "SELECT Z_PK, \(column) FROM src.\(layout.tableName) WHERE \(layout.ownKindCondition) AND (\(column) > \(limit) OR \(column) < -\(limit))",
                    readsNewStore: false,
                    reason: { count, samples in "\(label): \(counted(count, "object holds", "objects hold")) \(values) (\(samples.joined(separator: ", ")))" })
            }
        }
    }

    /// To-many relationships that became to-one, held by objects that hold several.
    private var overflowChecks: [DataCheck] {
        destinationLayout.entities.flatMap { layout -> [DataCheck] in
            guard let entity = mapping.destination.entity(named: layout.name) else { return [] }
            return entity.relationships.compactMap { relationship in
                guard !relationship.isToMany, !relationship.isTransient, case .pairs(let pairs) = linkSource(of: relationship, in: entity) else { return nil }
                let label = "\(entity.name).\(relationship.name)"
                return DataCheck(
                    sql: "SELECT owner, COUNT(*) || ' objects' FROM (\(pairs.sql)) GROUP BY owner HAVING COUNT(*) > 1",
                    readsNewStore: false,
                    reason: { count, samples in "\(label) becomes to-one, but \(counted(count, "object holds", "objects hold")) several (\(samples.joined(separator: ", ")))" })
            }
        }
    }

    /// Relationships that now point to another entity and start empty: the objects the old
    /// one held would be lost, so none may hold any.
    private var abandonedLinkChecks: [DataCheck] {
        mapping.entities.flatMap { entity -> [DataCheck] in
            guard let source = entity.source else { return [] }
            return entity.relationships.compactMap { relationship in
                guard let old = relationship.abandoned, entity.destination.relationships.contains(where: { $0.name == relationship.destination.name }),
                    let pairs = pairs(of: old, from: source.name)
                else { return nil }
                let label = "\(entity.destination.name).\(relationship.destination.name)"
                let change = "now points to \(relationship.destination.destinationEntityName), not \(old.destinationEntityName)"
                return DataCheck(
                    sql: "SELECT owner, COUNT(*) || ' objects' FROM (\(pairs.sql)) GROUP BY owner",
                    readsNewStore: false,
                    reason: { count, samples in "\(label) \(change), but \(counted(count, "object holds", "objects hold")) some in it (\(samples.joined(separator: ", "))); they would be lost" })
            }
        }
    }

    /// Objects of hierarchies that come together in one table with the same primary key.
    private var collisionChecks: [DataCheck] {
        var checks: [DataCheck] = []
        for (table, copies) in Dictionary(grouping: rowCopies, by: \.destinationTable) where copies.count > 1 {
            for (index, first) in copies.enumerated() {
                for second in copies.dropFirst(index + 1) {
                    let names = [first, second].map { copy in
                        copy.sourceEntityNumbers.compactMap { number in sourceLayout.entities.first { $0.number == number }?.name }.joined(separator: ", ")
                    }
                    checks.append(DataCheck(
                        sql: "SELECT a.Z_PK FROM (SELECT Z_PK FROM src.\(first.sourceTable) WHERE \(first.sourceCondition)) a "
                            + "JOIN (SELECT Z_PK FROM src.\(second.sourceTable) WHERE \(second.sourceCondition)) b ON a.Z_PK = b.Z_PK",
                        readsNewStore: false,
                        reason: { count, samples in
                            "the objects of \(names[0]) and of \(names[1]) come together in \(table), but \(counted(count, "primary key is", "primary keys are")) taken on both sides (\(samples.joined(separator: ", ")))"
                        }))
                }
            }
        }
        return checks
    }

    /// Required attributes and to-one relationships without a value, and objects of entities
    /// that became abstract.
    private var requiredChecks: [DataCheck] {
        var checks: [DataCheck] = []
        for entity in mapping.entities {
            guard entity.source != nil, let layout = destinationLayout.entity(named: entity.destination.name) else { continue }
            let rows = "FROM main.\(layout.tableName) WHERE \(layout.ownKindCondition)"
            if entity.destination.isAbstract {
                let name = entity.destination.name
                checks.append(DataCheck(sql: "SELECT Z_PK \(rows)", readsNewStore: true, isRepairable: true) { count, samples in
                    "\(name) becomes abstract, but \(counted(count, "object is", "objects are")) of it and of none of its sub-entities (\(samples.joined(separator: ", ")))"
                })
            }
            for attribute in entity.attributes where !attribute.destination.isOptional && attribute.fill == nil && attribute.source?.isOptional != false {
                guard let column = layout.attributeColumns[attribute.destination.name] else { continue }
                let label = "\(entity.destination.name).\(attribute.destination.name)"
                checks.append(DataCheck(sql: "SELECT Z_PK \(rows) AND \(column) IS NULL", readsNewStore: true, isRepairable: true) { count, samples in
                    "\(label) is required and has no default value, but \(counted(count, "object has", "objects have")) no value for it (\(samples.joined(separator: ", ")))"
                })
            }
            for relationship in entity.relationships where !relationship.destination.isToMany && !relationship.destination.isOptional {
                guard let column = layout.toOneColumns[relationship.destination.name]?.key,
                    let target = destinationLayout.entity(named: relationship.destination.destinationEntityName)
                else { continue }
                // A required to-one that stays one keeps its objects, unless some do not come along.
                if let source = relationship.source, !source.isOptional, !source.isToMany, lostTargets(of: source, in: target).isEmpty { continue }
                let label = "\(entity.destination.name).\(relationship.destination.name)"
                checks.append(DataCheck(sql: "SELECT Z_PK \(rows) AND \(column) IS NULL", readsNewStore: true, isRepairable: true) { count, samples in
                    "\(label) is required, but \(counted(count, "object has", "objects have")) no object in it (\(samples.joined(separator: ", ")))"
                })
            }
        }
        return checks
    }

    /// Values that several objects share where a uniqueness constraint forbids it.
    private var uniquenessChecks: [DataCheck] {
        destinationLayout.entities.flatMap { layout -> [DataCheck] in
            guard let entity = mapping.destination.entity(named: layout.name) else { return [] }
            return entity.uniquenessConstraints.compactMap { constraint in
                let columns = constraint.compactMap(layout.column(for:))
                guard columns.count == constraint.count else { return nil }
                let label = "\(entity.name) (\(constraint.joined(separator: ", ")))"
                let values = columns.map { "quote(\($0))" }.joined(separator: " || ', ' || ")
                return DataCheck(
                    sql: "SELECT \(values), COUNT(*) || ' objects' FROM main.\(layout.tableName) WHERE \(layout.kindCondition) AND "
                        + columns.map { "\($0) IS NOT NULL" }.joined(separator: " AND ") + " GROUP BY \(columns.joined(separator: ", ")) HAVING COUNT(*) > 1",
                    readsNewStore: true,
                    reason: { count, samples in "\(label) must be unique, but \(counted(count, "value is", "values are")) held by several objects (\(samples.joined(separator: "; ")))" })
            }
        }
    }
}

extension MigrationStep {
    /// When a run of the step makes its checks.
    enum CheckStage: Sendable {
        /// On the input, attached as `src`, before the copy.
        case input
        /// On the new store, as `main`, after the copy; those a custom step can repair wait
        /// for it when `deferringRepairable`.
        case newStore(deferringRepairable: Bool)
        /// On the migrated copy, as `main`, after the custom step: the checks that waited for it.
        case afterCustomStep
    }

    /// Runs the step's checks of `stage` on `database`, and refuses with every rule the data
    /// breaks, naming a few of the objects that break each (`storePath` names the store).
    func runDataChecks(_ stage: CheckStage, on database: Database, storePath: String) throws {
        let checks = dataChecks.filter { check in
            switch stage {
            case .input: !check.readsNewStore
            case .newStore(let deferring): check.readsNewStore && !(deferring && check.isRepairable)
            case .afterCustomStep: check.readsNewStore && check.isRepairable
            }
        }
        var reasons: [String] = []
        for check in checks {
            let count = Int(try database.scalar("SELECT COUNT(*) FROM (\(check.sql))")?.int64Value ?? 0)
            guard count > 0 else { continue }
            let samples = try database.rows("\(check.sql) LIMIT 5").map { row in
                let object = row[0].int64Value.map { "p\($0)" } ?? row[0].stringValue ?? "?"
                guard row.count > 1 else { return object }
                let value: String = row[1].stringValue ?? row[1].int64Value.map(String.init) ?? row[1].doubleValue.map { "\($0)" } ?? "NULL"
                return "\(object): \(value)"
            }
            reasons.append(check.reason(count, samples + (count > samples.count ? ["…"] : [])))
        }
        if !reasons.isEmpty { throw MigrationError.dataDoesNotFit(path: storePath, step: name, reasons: reasons) }
    }
}

/// `1 object has`, `3 objects have`: a count with the words that agree with it.
private func counted(_ count: Int, _ singular: String, _ plural: String) -> String {
    "\(count) \(count == 1 ? singular : plural)"
}
