import Foundation

extension StoreComparison {
    /// What one entity's comparison selects on each side: the matching key, `Z_PK`, then one
    /// column per compared property (``fields``), in the same order on both sides.
    struct EntityPlan {
        let entityName: String
        let keyName: String
        /// The attribute objects are matched by; `nil` for `Z_PK`.
        let keyAttribute: AttributeDescription?
        let fields: [Field]
        /// The SELECT on each store; `nil` where the store has no such entity.
        let oldSQL: String?, newSQL: String?
        let onlyInOld: [String], onlyInNew: [String]

        func difference(_ kind: ObjectDifference.Kind, key: Statement, old: Statement?, new: Statement?) -> ObjectDifference {
            let keyValue = key.value(at: 0)
            return ObjectDifference(
                entityName: entityName, kind: kind, keyName: keyName,
                key: keyAttribute.map { Field.json(keyValue, identity: $0) } ?? Field.json(keyValue, identity: nil),
                oldPrimaryKey: old?.value(at: 1).int64Value, newPrimaryKey: new?.value(at: 1).int64Value)
        }
    }

    /// A compared property, and how its column's value reads as JSON.
    struct Field {
        enum Kind: Equatable {
            case attribute
            /// The destination's identity value (or `Z_PK`).
            case toOne
            /// The destinations' identity values, sorted, joined by U+001F.
            case toMany
        }

        let name: String
        let kind: Kind
        /// The attribute, or the destination's identity attribute (`nil` for `Z_PK`).
        let attribute: AttributeDescription?

        static let separator = "\u{1F}"

        func json(_ value: DatabaseValue) -> JSONValue {
            switch kind {
            case .attribute:
                guard let attribute else { return .null }
                return AttributeValue(value, type: attribute.type).map { attribute.jsonValue(of: $0) } ?? Self.raw(value)
            case .toOne:
                return Self.json(value, identity: attribute)
            case .toMany:
                guard case .text(let text) = value else { return .array([]) }
                return .array(text.components(separatedBy: Self.separator).map { item in
                    if attribute.map({ [.integer16, .integer32, .integer64].contains($0.type) }) ?? true, let number = Int64(item) {
                        return .number(number)
                    }
                    return .string(item)
                })
            }
        }

        /// A key's value as JSON: as its attribute's value, or a number for `Z_PK`.
        static func json(_ value: DatabaseValue, identity: AttributeDescription?) -> JSONValue {
            guard let identity else { return raw(value) }
            return AttributeValue(value, type: identity.type)?.jsonValue ?? raw(value)
        }

        /// A value its attribute's type does not read (or a primary key), as SQLite holds it.
        static func raw(_ value: DatabaseValue) -> JSONValue {
            switch value {
            case .null: .null
            case .integer(let integer): .number(integer)
            case .real(let real): .number(real)
            case .text(let text): .string(text)
            case .blob(let data): .string(data.base64EncodedString())
            }
        }
    }

    /// One side of the comparison: a store's model and layout.
    private struct Side {
        let model: ObjectModel
        let layout: StoreLayout

        init(_ store: PersistentStore) {
            model = store.model
            layout = store.layout
        }

        func entity(_ name: String) -> (EntityDescription, StoreLayout.Entity)? {
            guard let entity = model.entity(named: name), let placed = layout.entity(named: name) else { return nil }
            return (entity, placed)
        }
    }

    /// How a property of an entity reads on one side: its kind, the SQL of its value from the
    /// row `t`, and the destination's identity for a relationship; `nil` for a to-many
    /// compared on its other side.
    private typealias Column = (kind: Field.Kind, sql: String, attribute: AttributeDescription?)

    static func plans(old: PersistentStore, new: PersistentStore) -> [EntityPlan] {
        let left = Side(old), right = Side(new)
        let names = Set(new.model.entities.map(\.name)).union(old.model.entities.map(\.name)).sorted()
        return names.compactMap { name in
            let leftEntity = left.entity(name), rightEntity = right.entity(name)
            guard leftEntity != nil || rightEntity != nil else { return nil }
            let key = matchingKey(of: name, left: left, right: right)
            var fields: [Field] = [], leftColumns: [String] = [], rightColumns: [String] = []
            var onlyInOld: [String] = [], onlyInNew: [String] = []
            let rightProperties = rightEntity.map { properties(of: $0.0, in: right.model) } ?? []
            let leftProperties = leftEntity.map { properties(of: $0.0, in: left.model) } ?? []
            // Where the entity is on one side only, its rows there are all added or removed:
            // its properties need no comparing.
            if let leftEntity, let rightEntity {
                for property in rightProperties {
                    let leftColumn = column(property, of: leftEntity, side: left, other: right)
                    let rightColumn = column(property, of: rightEntity, side: right, other: left)
                    switch (leftColumn, rightColumn) {
                    case (.some(let leftColumn), .some(let rightColumn)) where leftColumn.kind == rightColumn.kind:
                        fields.append(Field(name: property, kind: rightColumn.kind, attribute: rightColumn.attribute))
                        leftColumns.append(leftColumn.sql)
                        rightColumns.append(rightColumn.sql)
                    case (nil, nil): break
                    default:
                        if !leftProperties.contains(property) || leftColumn == nil { onlyInNew.append(property) }
                    }
                }
                onlyInOld = leftProperties.filter { !rightProperties.contains($0) }
            }
            return EntityPlan(
                entityName: name, keyName: key?.name ?? "Z_PK", keyAttribute: key, fields: fields,
                oldSQL: leftEntity.map { select($0.1, key: key, columns: leftColumns) },
                newSQL: rightEntity.map { select($0.1, key: key, columns: rightColumns) },
                onlyInOld: onlyInOld, onlyInNew: onlyInNew)
        }
    }

    /// The stored properties of `entity`, inherited ones included: its attributes (not
    /// transient or derived), then its relationships.
    private static func properties(of entity: EntityDescription, in model: ObjectModel) -> [String] {
        model.allAttributes(of: entity).filter { !$0.isTransient && !$0.isDerived }.map(\.name)
            + model.allRelationships(of: entity).filter { !$0.isTransient }.map(\.name)
    }

    /// The identity attribute of the entity `name` in the new store's model (else the old
    /// one's), when both stores have a column for it; else `nil`, for `Z_PK`.
    private static func matchingKey(of name: String, left: Side, right: Side) -> AttributeDescription? {
        let side = right.model.entity(named: name) != nil ? right : left
        guard let entity = side.model.entity(named: name),
              case .attribute(let attribute, _) = ImportIdentity.conventional(for: entity, in: side.model),
              let description = side.model.attribute(named: attribute, in: entity)
        else { return nil }
        for other in [left, right] where other.model.entity(named: name) != nil {
            guard other.layout.entity(named: name)?.attributeColumns[attribute] != nil else { return nil }
        }
        return description
    }

    private static func select(_ entity: StoreLayout.Entity, key: AttributeDescription?, columns: [String]) -> String {
        let keyColumn = key.flatMap { entity.attributeColumns[$0.name] }.map { "t.\(quoted($0))" } ?? "t.Z_PK"
        let list = ([keyColumn, "t.Z_PK"] + columns).joined(separator: ", ")
        return "SELECT \(list) FROM \(quoted(entity.tableName)) t WHERE t.\(entity.ownKindCondition) ORDER BY 1, 2"
    }

    /// How `property` of `entity` reads on `side`; `nil` when the side does not store it, or
    /// compares it on its other end. `other` is the other store, whose columns a destination's
    /// identity must also have to be used.
    private static func column(
        _ property: String, of entity: (EntityDescription, StoreLayout.Entity), side: Side, other: Side
    ) -> Column? {
        let (description, placed) = entity
        if let attribute = side.model.attribute(named: property, in: description) {
            guard !attribute.isTransient, !attribute.isDerived, let column = placed.attributeColumns[property] else { return nil }
            return (.attribute, "t.\(quoted(column))", attribute)
        }
        guard let relationship = side.model.relationship(named: property, in: description), !relationship.isTransient,
              let destination = side.entity(relationship.destinationEntityName)
        else { return nil }
        let identity = matchingKey(of: destination.0.name, left: side, right: other)
        let identityColumn = identity.flatMap { destination.1.attributeColumns[$0.name] }
        if !relationship.isToMany {
            guard let key = placed.toOneColumns[property]?.key else { return nil }
            guard let identityColumn else { return (.toOne, "t.\(quoted(key))", nil) }
            return (.toOne, "(SELECT d.\(quoted(identityColumn)) FROM \(quoted(destination.1.tableName)) d WHERE d.Z_PK = t.\(quoted(key)))", identity)
        }
        // Each destination's key as text, so that the list is one sortable text.
        let item: String = switch identityColumn {
        case nil: "d.Z_PK"
        case let column? where identity.map({ [.uuid, .binary, .transformable].contains($0.type) }) == true: "hex(d.\(quoted(column)))"
        case let column?: "d.\(quoted(column))"
        }
        let inverse = relationship.inverseName.flatMap { side.model.relationship(named: $0, in: destination.0) }
        if let inverse, !inverse.isToMany { return nil }
        let source: String
        if inverse != nil || placed.toManyKeyColumns[property] == nil {
            // A many-to-many: compared on the side its join table is named after.
            guard let join = side.layout.joinColumns(of: description, relationship: property, in: side.model) else { return nil }
            let owner = side.model.entityDeclaring(relationship: property, from: description)?.name ?? description.name
            guard side.layout.joinTable(for: owner, relationship: property)?.relationship == StoreLayout.RelationshipPath(entity: owner, relationship: property)
            else { return nil }
            source = "\(quoted(join.table)) j JOIN \(quoted(destination.1.tableName)) d ON d.Z_PK = j.\(quoted(join.destination)) WHERE j.\(quoted(join.source)) = t.Z_PK"
        } else {
            source = "\(quoted(destination.1.tableName)) d WHERE d.\(quoted(placed.toManyKeyColumns[property]!)) = t.Z_PK"
        }
        // SQLite keeps the subquery's order in group_concat (the documented ORDER BY in the
        // aggregate needs SQLite 3.44, newer than some systems have).
        return (.toMany, "(SELECT group_concat(v, char(31)) FROM (SELECT \(item) AS v FROM \(source) ORDER BY 1))", identity)
    }

    private static func quoted(_ identifier: String) -> String {
        "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
