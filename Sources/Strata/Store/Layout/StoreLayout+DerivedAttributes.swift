// The triggers Core Data creates so that a store keeps its derived attributes current
// (`Z_DA_<table>_<Entity>_<attribute>…`), and the statements that compute them for rows
// written without the triggers (a migration's copy).
//
// Confirmed on a store Core Data wrote (CoreDataPlus's SampleModel2_V1, Book.pagesCount =
// `pages.@count`): the five triggers of a one-to-many count, word for word, and that they are
// named after the entity that declares the attribute (its sub-entity GraphicNovel has none of
// its own), with no `Z_ENT` condition for a root entity.
//
// Inferred, not seen in a store: the other forms (an own attribute or a to-one's, with or
// without `canonical:`, `uppercase:`, `lowercase:`; `now()`; `@sum`, `@min`, `@max` of a
// one-to-many; `@count` of a many-to-many) and the `Z_ENT` conditions of an attribute declared
// by a sub-entity. Their SQL follows the statement templates that Core Data's framework holds
// as text (as public disassemblies of it show), of which the confirmed form is one; where a
// template would give SQL that SQLite refuses (a bare `Z_ENT` in a trigger's WHEN), Strata
// writes the working form (`NEW.Z_ENT`). The fill statements are Strata's own: Core Data's
// name the outer table without an alias, which reads the inner one when a relationship leads
// back to its own table.

extension StoreLayout {
    /// A trigger of the store: its name, the table it is on, and its `CREATE TRIGGER` statement
    /// as SQLite keeps it in `sqlite_master`.
    package struct Trigger: Sendable, Equatable {
        /// `Z_DA_<table>_<Entity>_<attribute>_…`, as Core Data names it.
        package var name: String
        /// The table whose writes fire it.
        package var table: String
        /// `CREATE TRIGGER …`, word for word as `sqlite_master` keeps it.
        var createStatement: String
    }

    /// What keeps a derived attribute current: Core Data's triggers, and the statement that
    /// computes its value for every existing row.
    struct DerivedAttributeSQL {
        var triggers: [Trigger]
        var fill: String
    }

    /// The triggers and fill statements of every derived attribute of `model` whose derivation
    /// the layout can place (see ``Derivation``), by entity number, then attribute name.
    static func derivedAttributeSQL(of model: ObjectModel, in layout: StoreLayout) -> [DerivedAttributeSQL] {
        var result: [DerivedAttributeSQL] = []
        for entity in layout.entities {
            guard let description = model.entity(named: entity.name) else { continue }
            for attribute in description.attributes.sorted(by: { $0.name < $1.name }) where attribute.isDerived && !attribute.isTransient {
                guard let derivation = try? attribute.derivation, model.derivationProblem(of: attribute, in: description) == nil,
                    let writer = DerivedAttributeWriter(attribute: attribute.name, entity: entity, layout: layout, model: model)
                else { continue }
                if let sql = writer.sql(for: derivation) { result.append(sql) }
            }
        }
        return result
    }
}

/// Writes the SQL of one derived attribute, in the words of Core Data's templates.
private struct DerivedAttributeWriter {
    let attribute: String
    let entity: StoreLayout.Entity
    let layout: StoreLayout
    let model: ObjectModel
    /// The derived column and its table.
    let column: String
    let table: String

    init?(attribute: String, entity: StoreLayout.Entity, layout: StoreLayout, model: ObjectModel) {
        guard let column = entity.attributeColumns[attribute] else { return nil }
        (self.attribute, self.entity, self.layout, self.model) = (attribute, entity, layout, model)
        (self.column, self.table) = (column, entity.tableName)
    }

    /// The `Z_ENT` conditions of an attribute declared by a sub-entity (the rows of its own
    /// kind); empty for a root entity, whose table holds only its kind.
    private func kindConditions(of entity: StoreLayout.Entity) -> (new: String, row: String)? {
        guard entity.superNumber != 0 else { return nil }
        let (low, high) = (entity.numberRange.lowerBound, entity.numberRange.upperBound)
        return low == high
            ? ("\(low) = NEW.Z_ENT", "\(low) = Z_ENT")
            : ("\(low) <= NEW.Z_ENT AND NEW.Z_ENT <= \(high)", "\(low) <= Z_ENT AND Z_ENT <= \(high)")
    }

    /// `SELECT <function>('T', Z_ENT, Z_PK, 'attribute', C) FROM T WHERE <condition>;`: the
    /// report of a changed value that Core Data's contexts (and Strata's) listen for.
    private func report(_ function: String, where condition: String) -> String {
        " SELECT \(function)('\(table)', Z_ENT, Z_PK, '\(attribute)', \(column)) FROM \(table) WHERE \(condition);"
    }

    private func trigger(_ name: String, on table: String, _ head: String, _ body: String) -> StoreLayout.Trigger {
        StoreLayout.Trigger(name: name, table: table, createStatement: "CREATE TRIGGER \(name) \(head) BEGIN\(body) END")
    }

    private static func sqlFunction(_ function: Derivation.StringFunction) -> String {
        switch function {
        case .canonical: "NSCoreDataCanonical"
        case .uppercase: "NSCoreDataToUpper"
        case .lowercase: "NSCoreDataToLower"
        }
    }

    func sql(for derivation: Derivation) -> StoreLayout.DerivedAttributeSQL? {
        switch derivation {
        case .now: return ownValue(listening: "Z_OPT", new: "NSCoreDataNow()", fillsOnlyEmpty: true)
        case .value(nil, let name, let function):
            guard let source = entity.attributeColumns[name] else { return nil }
            return ownValue(listening: source, new: function.map { "\(Self.sqlFunction($0))(NEW.\(source))" } ?? "NEW.\(source)")
        case .value(let relationship?, let name, let function):
            return toOneValue(relationship, name, function)
        case .aggregate(let relationship, let function, let name):
            guard let description = model.entity(named: entity.name), let to = model.relationship(named: relationship, in: description) else { return nil }
            if let join = layout.joinColumns(of: description, relationship: relationship, in: model) {
                return function == .count ? manyToManyCount(join.table, join.source) : nil
            }
            guard let destination = layout.entity(named: to.destinationEntityName) else { return nil }
            let key = to.inverseName.flatMap { destination.toOneColumns[$0]?.key } ?? entity.toManyKeyColumns[relationship]
            guard let key else { return nil }
            let value = name.flatMap { destination.attributeColumns[$0] }
            if name != nil, value == nil { return nil }
            switch function {
            case .count, .sum: return oneToManyTotal(relationship: relationship, destination, key: key, summed: function == .sum ? value : nil)
            case .min, .max: return oneToManyExtreme(destination, key: key, value: value!, isMax: function == .max)
            case .average, .stddev, .median, .mode: return nil
            }
        }
    }

    // MARK: - The object's own values, and now()

    /// `Z_DA_T_E_a_INSERT` and `_UPDATE`: the value recomputed when `listened` (a column, or
    /// `Z_OPT` for `now()`) is written.
    private func ownValue(listening listened: String, new: String, fillsOnlyEmpty: Bool = false) -> StoreLayout.DerivedAttributeSQL {
        let base = "Z_DA_\(table)_\(entity.name)_\(attribute)"
        let set = " UPDATE \(table) SET \(column) = \(new) WHERE Z_PK = NEW.Z_PK;"
        let insert = trigger(
            base + "_INSERT", on: table, "AFTER INSERT ON \(table) FOR EACH ROW WHEN (NEW.\(listened) NOT NULL)",
            set + report("NSCoreDataDATriggerInsertUpdatedAffectedObjectValue", where: "Z_PK = NEW.Z_PK"))
        let update = trigger(
            base + "_UPDATE", on: table, "AFTER UPDATE OF \(listened) ON \(table) FOR EACH ROW",
            set + report("NSCoreDataDATriggerUpdatedAffectedObjectValue", where: "Z_PK = NEW.Z_PK"))
        var conditions = kindConditions(of: entity).map { [$0.row] } ?? []
        // A time already recorded is when the object was saved: a migration keeps it.
        if fillsOnlyEmpty { conditions.append("\(column) IS NULL") }
        let fill = "UPDATE \(table) SET \(column) = \(new.replacingOccurrences(of: "NEW.", with: ""))"
            + (conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND "))
        return .init(triggers: [insert, update], fill: fill)
    }

    // MARK: - A to-one's value

    /// `_SOURCE_INSERT`, `_SOURCE_UPDATE` on the object's table (the to-one set or changed) and
    /// `_PARAMETER_INSERT`, `_PARAMETER_UPDATE` on the destination's (its attribute changed).
    private func toOneValue(_ relationship: String, _ name: String, _ function: Derivation.StringFunction?) -> StoreLayout.DerivedAttributeSQL? {
        guard let description = model.entity(named: entity.name), let to = model.relationship(named: relationship, in: description),
            let key = entity.toOneColumns[relationship]?.key, let destination = layout.entity(named: to.destinationEntityName),
            let source = destination.attributeColumns[name]
        else { return nil }
        let other = destination.tableName
        let value = function.map { "\(Self.sqlFunction($0))(\(source))" } ?? source
        let newValue = function.map { "\(Self.sqlFunction($0))(NEW.\(source))" } ?? "NEW.\(source)"
        let kinds = kindConditions(of: entity)
        let andNew = kinds.map { " AND \($0.new)" } ?? "", andRow = kinds.map { " AND \($0.row)" } ?? ""
        let sourceName = "Z_DA_\(table)_\(entity.name)_\(attribute)_SOURCE", parameterName = "Z_DA_\(other)_\(entity.name)_\(attribute)_PARAMETER"
        let lookUp = " UPDATE \(table) SET \(column) = (SELECT \(value) FROM \(other) WHERE Z_PK = NEW.\(key)) WHERE Z_PK = NEW.Z_PK"
        let copy = " UPDATE \(table) SET \(column) = \(newValue) WHERE \(key) = NEW.Z_PK\(andRow);"
        let triggers = [
            trigger(sourceName + "_INSERT", on: table, "AFTER INSERT ON \(table) FOR EACH ROW",
                lookUp + andNew + ";" + report("NSCoreDataDATriggerInsertUpdatedAffectedObjectValue", where: "Z_PK = NEW.Z_PK" + andNew)),
            trigger(sourceName + "_UPDATE", on: table, "AFTER UPDATE OF \(key) ON \(table) FOR EACH ROW" + (kinds.map { " WHEN \($0.new)" } ?? ""),
                lookUp + ";" + report("NSCoreDataDATriggerUpdatedAffectedObjectValue", where: "Z_PK = NEW.Z_PK")),
            trigger(parameterName + "_INSERT", on: other, "AFTER INSERT ON \(other) FOR EACH ROW",
                copy + report("NSCoreDataDATriggerInsertUpdatedAffectedObjectValue", where: "\(key) = NEW.Z_PK" + andRow)),
            trigger(parameterName + "_UPDATE", on: other, "AFTER UPDATE OF \(source) ON \(other) FOR EACH ROW",
                copy + report("NSCoreDataDATriggerUpdatedAffectedObjectValue", where: "\(key) = NEW.Z_PK" + andRow)),
        ]
        let fill = "UPDATE \(table) AS o SET \(column) = (SELECT \(function.map { "\(Self.sqlFunction($0))(d.\(source))" } ?? "d.\(source)") "
            + "FROM \(other) AS d WHERE d.Z_PK = o.\(key))" + (kinds.map { " WHERE \($0.row)" } ?? "")
        return .init(triggers: triggers, fill: fill)
    }

    // MARK: - Aggregates of a to-many

    /// `@count` (`summed` nil) or `@sum` of a one-to-many whose members hold the object's key
    /// in `key`: `_PARAMETER_INSERT`, `_UPDATE_INCREMENT`, `_UPDATE_DECREMENT`, `_DELETE` on
    /// the members' table, `_SOURCE_INSERT` on the object's. The count's five are the
    /// confirmed form.
    private func oneToManyTotal(relationship: String, _ destination: StoreLayout.Entity, key: String, summed: String?) -> StoreLayout.DerivedAttributeSQL {
        let other = destination.tableName
        let (increment, decrement) = summed.map { ("+ IFNULL(NEW.\($0), 0)", "- IFNULL(OLD.\($0), 0)") } ?? ("+ 1", "- 1")
        let listened = summed.map { "\(key), \($0)" } ?? key
        let kinds = kindConditions(of: entity)
        let andRow = kinds.map { " AND \($0.row)" } ?? ""
        let parameter = "Z_DA_\(other)_\(entity.name)_\(attribute)_PARAMETER", source = "Z_DA_\(table)_\(entity.name)_\(attribute)_SOURCE"
        func change(_ name: String, _ head: String, _ side: String, _ set: String) -> StoreLayout.Trigger {
            trigger(parameter + name, on: other, head + " FOR EACH ROW WHEN (\(side).\(key) NOT NULL)",
                " UPDATE \(table) SET \(column) = \(set) WHERE Z_PK = \(side).\(key)\(andRow);"
                    + report("NSCoreDataDATriggerUpdatedAffectedObjectValue", where: "Z_PK = \(side).\(key)" + andRow))
        }
        let aggregate = summed.map { "SUM(\($0))" } ?? "COUNT(\(key))"
        let triggers = [
            change("_INSERT", "AFTER INSERT ON \(other)", "NEW", "IFNULL(\(column), 0) \(increment)"),
            change("_UPDATE_INCREMENT", "AFTER UPDATE OF \(listened) ON \(other)", "NEW", "\(column) \(increment)"),
            change("_UPDATE_DECREMENT", "AFTER UPDATE OF \(listened) ON \(other)", "OLD", "\(column) \(decrement)"),
            change("_DELETE", "AFTER DELETE ON \(other)", "OLD", "\(column) \(decrement)"),
            trigger(source + "_INSERT", on: table, "AFTER INSERT ON \(table) FOR EACH ROW" + (kinds.map { " WHEN \($0.new)" } ?? ""),
                " UPDATE \(table) SET \(column) = (SELECT IFNULL(\(aggregate), 0) FROM \(other) WHERE \(key) = NEW.Z_PK) WHERE Z_PK = NEW.Z_PK;"
                    + report("NSCoreDataDATriggerInsertUpdatedAffectedObjectValue", where: "Z_PK = NEW.Z_PK")),
        ]
        let fill = "UPDATE \(table) AS o SET \(column) = (SELECT IFNULL(\(summed.map { "SUM(d.\($0))" } ?? "COUNT(d.\(key))"), 0) "
            + "FROM \(other) AS d WHERE d.\(key) = o.Z_PK)" + (kinds.map { " WHERE \($0.row)" } ?? "")
        return .init(triggers: triggers, fill: fill)
    }

    /// `@min` or `@max` of a one-to-many: `_INSERT`, `_UPDATE_SET`, `_UPDATE_UNSET`, `_DELETE`
    /// on the members' table, `_INSERT` on the object's.
    private func oneToManyExtreme(_ destination: StoreLayout.Entity, key: String, value: String, isMax: Bool) -> StoreLayout.DerivedAttributeSQL {
        let other = destination.tableName
        let (function, order) = isMax ? ("MAX", ">") : ("MIN", "<")
        let kinds = kindConditions(of: entity)
        let andRow = kinds.map { " AND \($0.row)" } ?? ""
        // The members' kind, where they are of a sub-entity (Core Data's template names the
        // column bare, which SQLite refuses in a WHEN).
        let memberKinds = kindConditions(of: destination).map { " AND \($0.new)" } ?? ""
        let parameter = "Z_DA_\(other)_\(entity.name)_\(attribute)", source = "Z_DA_\(table)_\(entity.name)_\(attribute)"
        let recompute = " UPDATE \(table) SET \(column) = (SELECT \(function)(\(value)) FROM \(other) WHERE \(key) = OLD.\(key)) "
            + "WHERE Z_PK = OLD.\(key)\(andRow) AND OLD.\(value) \(order)= \(column);"
        let raise = " UPDATE \(table) SET \(column) = NEW.\(value) WHERE Z_PK = NEW.\(key)\(andRow) AND (\(column) IS NULL OR NEW.\(value) \(order) \(column));"
        let updated = "NSCoreDataDATriggerUpdatedAffectedObjectValue"
        let set = "NEW.\(key) NOT NULL AND NEW.\(value) NOT NULL\(memberKinds)"
        let triggers = [
            trigger(parameter + "_INSERT", on: other, "AFTER INSERT ON \(other) FOR EACH ROW WHEN (\(set))",
                raise + report(updated, where: "Z_PK = NEW.\(key)\(andRow) AND (\(column) IS NULL OR NEW.\(value) \(order)= \(column))")),
            trigger(parameter + "_UPDATE_SET", on: other, "AFTER UPDATE OF \(key), \(value) ON \(other) FOR EACH ROW WHEN (\(set))",
                recompute + report(updated, where: "Z_PK = OLD.\(key)\(andRow) AND OLD.\(value) \(order)= \(column)")
                    + raise + report(updated, where: "Z_PK = NEW.\(key)\(andRow) AND NEW.\(value) \(order)= \(column)")),
            trigger(parameter + "_UPDATE_UNSET", on: other,
                "AFTER UPDATE OF \(key), \(value) ON \(other) FOR EACH ROW WHEN (OLD.\(key) NOT NULL AND OLD.\(value) NOT NULL AND (NEW.\(key) IS NULL OR NEW.\(value) IS NULL)\(memberKinds))",
                recompute + report(updated, where: "Z_PK = OLD.\(key)\(andRow) AND (\(column) IS NULL OR OLD.\(value) \(order)= \(column))")),
            trigger(parameter + "_DELETE", on: other,
                "AFTER DELETE ON \(other) FOR EACH ROW WHEN (OLD.\(key) NOT NULL AND OLD.\(value) NOT NULL\(memberKinds.replacingOccurrences(of: "NEW.", with: "OLD.")))",
                recompute + report(updated, where: "Z_PK = OLD.\(key)\(andRow) AND (\(column) IS NULL OR OLD.\(value) \(order)= \(column))")),
            trigger(source + "_INSERT", on: table, "AFTER INSERT ON \(table) FOR EACH ROW" + (kinds.map { " WHEN \($0.new)" } ?? ""),
                " UPDATE \(table) SET \(column) = (SELECT \(function)(\(value)) FROM \(other) WHERE \(key) = NEW.Z_PK) WHERE Z_PK = NEW.Z_PK;"
                    + report("NSCoreDataDATriggerInsertUpdatedAffectedObjectValue", where: "Z_PK = NEW.Z_PK")),
        ]
        let fill = "UPDATE \(table) AS o SET \(column) = (SELECT \(function)(d.\(value)) FROM \(other) AS d WHERE d.\(key) = o.Z_PK)"
            + (kinds.map { " WHERE \($0.row)" } ?? "")
        return .init(triggers: triggers, fill: fill)
    }

    /// `@count` of a many-to-many, whose join table `join` holds the object's key in `key`:
    /// `_PARAMETER_INSERT`, `_PARAMETER_DELETE` on the join table, `_SOURCE_INSERT` on the object's.
    private func manyToManyCount(_ join: String, _ key: String) -> StoreLayout.DerivedAttributeSQL {
        let kinds = kindConditions(of: entity)
        let andRow = kinds.map { " AND \($0.row)" } ?? ""
        let parameter = "Z_DA_\(join)_\(entity.name)_\(attribute)_PARAMETER", source = "Z_DA_\(table)_\(entity.name)_\(attribute)_SOURCE"
        let updated = "NSCoreDataDATriggerUpdatedAffectedObjectValue"
        let triggers = [
            trigger(parameter + "_INSERT", on: join, "AFTER INSERT ON \(join) FOR EACH ROW",
                " UPDATE \(table) SET \(column) = IFNULL(\(column), 0) + 1 WHERE Z_PK = NEW.\(key)\(andRow);" + report(updated, where: "Z_PK = NEW.\(key)" + andRow)),
            trigger(parameter + "_DELETE", on: join, "AFTER DELETE ON \(join) FOR EACH ROW",
                " UPDATE \(table) SET \(column) = \(column) - 1 WHERE Z_PK = OLD.\(key)\(andRow);" + report(updated, where: "Z_PK = OLD.\(key)" + andRow)),
            trigger(source + "_INSERT", on: table, "AFTER INSERT ON \(table) FOR EACH ROW" + (kinds.map { " WHEN \($0.new)" } ?? ""),
                " UPDATE \(table) SET \(column) = (SELECT IFNULL(COUNT(\(key)), 0) FROM \(join) WHERE \(key) = NEW.Z_PK) WHERE Z_PK = NEW.Z_PK;"
                    + report(updated, where: "Z_PK = NEW.Z_PK")),
        ]
        let fill = "UPDATE \(table) AS o SET \(column) = (SELECT IFNULL(COUNT(d.\(key)), 0) FROM \(join) AS d WHERE d.\(key) = o.Z_PK)"
            + (kinds.map { " WHERE \($0.row)" } ?? "")
        return .init(triggers: triggers, fill: fill)
    }
}
