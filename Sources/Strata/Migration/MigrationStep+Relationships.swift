// Relationships whose storage changes. A to-one keeps its key in its owner's row; a to-many
// lives in its inverse to-one's keys, or in a join table when the inverse is to-many too. When
// a relationship's kind changes (to-one → to-many, a new inverse), the old storage is read as
// pairs of objects and written into the new one, after every row is copied.

extension MigrationStep {
    /// The objects a source relationship links, as rows of `owner, owner_ent, target,
    /// target_ent, owner_pos, target_pos`: primary keys and entity numbers of both sides, the
    /// target's position in the owner's ordered to-many, and the owner's in the target's.
    struct LinkPairs: Sendable {
        var sql: String
        var hasOwnerPositions: Bool
        var hasTargetPositions: Bool

        /// The same pairs seen from the other side.
        var flipped: LinkPairs {
            LinkPairs(
                sql: "SELECT target AS owner, target_ent AS owner_ent, owner AS target, owner_ent AS target_ent, target_pos AS owner_pos, owner_pos AS target_pos FROM (\(sql))",
                hasOwnerPositions: hasTargetPositions, hasTargetPositions: hasOwnerPositions)
        }
    }

    /// The pairs the source relationship `relationship` of the source entity `entityName`
    /// (and its sub-entities) links; `nil` when the store has no place for it.
    func pairs(of relationship: RelationshipDescription, from entityName: String) -> LinkPairs? {
        let model = mapping.source
        guard let owner = sourceLayout.entity(named: entityName), let target = sourceLayout.entity(named: relationship.destinationEntityName) else { return nil }
        if !relationship.isToMany {
            guard let columns = owner.toOneColumns[relationship.name] else { return nil }
            return LinkPairs(
                sql: "SELECT Z_PK AS owner, Z_ENT AS owner_ent, \(columns.key) AS target, \(columns.entity ?? String(target.number)) AS target_ent, "
                    + "NULL AS owner_pos, \(columns.order ?? "NULL") AS target_pos FROM src.\(owner.tableName) WHERE \(owner.kindCondition) AND \(columns.key) IS NOT NULL",
                hasOwnerPositions: false, hasTargetPositions: columns.order != nil)
        }
        if let inverseName = relationship.inverseName, let destination = model.entity(named: target.name),
            let inverse = model.relationship(named: inverseName, in: destination), !inverse.isToMany
        {
            guard let columns = target.toOneColumns[inverseName] else { return nil }
            let ownerFilter = columns.entity.map { " AND \($0) BETWEEN \(owner.numberRange.lowerBound) AND \(owner.numberRange.upperBound)" } ?? ""
            return LinkPairs(
                sql: "SELECT \(columns.key) AS owner, \(columns.entity ?? String(owner.number)) AS owner_ent, Z_PK AS target, Z_ENT AS target_ent, "
                    + "\(columns.order ?? "NULL") AS owner_pos, NULL AS target_pos FROM src.\(target.tableName) WHERE \(target.kindCondition) AND \(columns.key) IS NOT NULL\(ownerFilter)",
                hasOwnerPositions: columns.order != nil, hasTargetPositions: false)
        }
        if relationship.inverseName == nil, let column = owner.toManyKeyColumns[relationship.name] {
            // Without an inverse, the owner's key sits in a column of the target's row.
            return LinkPairs(
                sql: "SELECT t.\(column) AS owner, o.Z_ENT AS owner_ent, t.Z_PK AS target, t.Z_ENT AS target_ent, NULL AS owner_pos, NULL AS target_pos "
                    + "FROM src.\(target.tableName) t JOIN src.\(owner.tableName) o ON o.Z_PK = t.\(column) WHERE t.\(target.kindCondition) AND o.\(owner.kindCondition)",
                hasOwnerPositions: false, hasTargetPositions: false)
        }
        guard let declaring = model.entity(named: entityName).flatMap({ model.entityDeclaring(relationship: relationship.name, from: $0) }),
            let join = sourceLayout.joinTable(for: declaring.name, relationship: relationship.name)
        else { return nil }
        let fromNamedSide = join.relationship == StoreLayout.RelationshipPath(entity: declaring.name, relationship: relationship.name)
        let (ownerColumn, targetColumn) = fromNamedSide ? (join.sourceColumn, join.destinationColumn) : (join.destinationColumn, join.sourceColumn)
        let ownerPositions = join.orderColumns[fromNamedSide ? join.relationship : join.inverse]
        let targetPositions = join.orderColumns[fromNamedSide ? join.inverse : join.relationship]
        return LinkPairs(
            sql: "SELECT j.\(ownerColumn) AS owner, o.Z_ENT AS owner_ent, j.\(targetColumn) AS target, t.Z_ENT AS target_ent, "
                + "\(ownerPositions.map { "j.\($0)" } ?? "NULL") AS owner_pos, \(targetPositions.map { "j.\($0)" } ?? "NULL") AS target_pos "
                + "FROM src.\(join.name) j JOIN src.\(owner.tableName) o ON o.Z_PK = j.\(ownerColumn) JOIN src.\(target.tableName) t ON t.Z_PK = j.\(targetColumn) "
                + "WHERE o.\(owner.kindCondition) AND t.\(target.kindCondition)",
            hasOwnerPositions: ownerPositions != nil, hasTargetPositions: targetPositions != nil)
    }

    /// How a destination relationship declared by `entity` gets its objects: copied with the
    /// rows (a to-one that was a to-one), from pairs of the old storage, or not at all (new).
    enum LinkSource {
        case copiedWithRows(RelationshipDescription)
        case pairs(LinkPairs)
        case none
    }

    /// Where the destination relationship `relationship` of `entity` finds its objects: its
    /// source relationship, else its inverse's, seen from the other side.
    func linkSource(of relationship: RelationshipDescription, in entity: EntityDescription) -> LinkSource {
        let destination = mapping.destination
        if let entityMapping = mapping.entity(named: entity.name), let owner = entityMapping.source,
            let source = entityMapping.relationships.first(where: { $0.destination.name == relationship.name })?.source
        {
            if !relationship.isToMany, !source.isToMany { return .copiedWithRows(source) }
            return pairs(of: source, from: owner.name).map(LinkSource.pairs) ?? .none
        }
        guard let inverseName = relationship.inverseName, let target = destination.entity(named: relationship.destinationEntityName),
            let targetMapping = mapping.entity(named: target.name), let targetSource = targetMapping.source,
            let inverseSource = targetMapping.relationships.first(where: { $0.destination.name == inverseName })?.source,
            let pairs = pairs(of: inverseSource, from: targetSource.name)
        else { return .none }
        return .pairs(pairs.flipped)
    }

    /// The statements that write relationships after the rows are in: to-one keys from pairs
    /// of the old storage, join tables, and keys copied with the rows whose object did not
    /// come along.
    var relationshipStatements: [String] {
        var statements: [String] = []
        for layout in destinationLayout.entities {
            guard let entity = mapping.destination.entity(named: layout.name) else { continue }
            for relationship in entity.relationships where !relationship.isTransient {
                guard let target = destinationLayout.entity(named: relationship.destinationEntityName) else { continue }
                if !relationship.isToMany, let columns = layout.toOneColumns[relationship.name] {
                    switch linkSource(of: relationship, in: entity) {
                    case .copiedWithRows(let source):
                        if !lostTargets(of: source, in: target).isEmpty {
                            let cleared = [columns.key, columns.entity, columns.order].compactMap { $0 }.map { "\($0) = NULL" }
                            statements.append("UPDATE main.\(layout.tableName) SET \(cleared.joined(separator: ", ")) WHERE \(layout.kindCondition) AND \(columns.key) IS NOT NULL AND NOT \(Self.exists(columns.key, in: target))")
                        }
                    case .pairs(let pairs):
                        var sets = ["\(columns.key) = p.target"]
                        if let entityColumn = columns.entity { sets.append("\(entityColumn) = \(mappedEntityNumber("p.target_ent"))") }
                        if let order = columns.order { sets.append("\(order) = p.target_pos") }
                        let positions = pairs.hasTargetPositions ? "target_pos" : "ROW_NUMBER() OVER (PARTITION BY target ORDER BY owner) AS target_pos"
                        statements.append("UPDATE main.\(layout.tableName) AS u SET \(sets.joined(separator: ", ")) "
                            + "FROM (SELECT owner, target, target_ent, \(positions) FROM (\(pairs.sql))) AS p "
                            + "WHERE u.Z_PK = p.owner AND u.\(layout.kindCondition) AND \(Self.exists("p.target", in: target))")
                    case .none:
                        break
                    }
                } else if relationship.isToMany, let column = layout.toManyKeyColumns[relationship.name],
                    case .pairs(let pairs) = linkSource(of: relationship, in: entity)
                {
                    statements.append("UPDATE main.\(target.tableName) AS u SET \(column) = p.owner FROM (SELECT owner, target FROM (\(pairs.sql))) AS p "
                        + "WHERE u.Z_PK = p.target AND u.\(target.kindCondition) AND \(Self.exists("p.owner", in: layout))")
                } else if relationship.isToMany, let join = destinationLayout.joinTable(for: entity.name, relationship: relationship.name),
                    join.relationship == StoreLayout.RelationshipPath(entity: entity.name, relationship: relationship.name),
                    case .pairs(let pairs) = linkSource(of: relationship, in: entity)
                {
                    var columns = [join.sourceColumn, join.destinationColumn], values = ["owner", "target"]
                    if let order = join.orderColumns[join.relationship] {
                        columns.append(order)
                        values.append(pairs.hasOwnerPositions ? "owner_pos" : "ROW_NUMBER() OVER (PARTITION BY owner ORDER BY target)")
                    }
                    if let order = join.orderColumns[join.inverse] {
                        columns.append(order)
                        values.append(pairs.hasTargetPositions ? "target_pos" : "ROW_NUMBER() OVER (PARTITION BY target ORDER BY owner)")
                    }
                    statements.append("INSERT INTO main.\(join.name) (\(columns.joined(separator: ", "))) SELECT \(values.joined(separator: ", ")) "
                        + "FROM (\(pairs.sql)) AS p WHERE \(Self.exists("p.owner", in: layout)) AND \(Self.exists("p.target", in: target))")
                }
            }
        }
        return statements
    }

    /// Whether the new store holds the object of `entity` (or a sub-entity) whose key `key`
    /// holds: a look-up by primary key per row, which SQLite cannot turn into a product of
    /// lists as it may an `IN (SELECT …)`.
    private static func exists(_ key: String, in entity: StoreLayout.Entity) -> String {
        "EXISTS (SELECT 1 FROM main.\(entity.tableName) x WHERE x.Z_PK = \(key) AND x.\(entity.kindCondition))"
    }

    /// The source entities with objects that a source to-one may point to and that do not
    /// land among the destination's objects of `target` (or its sub-entities): keys to them,
    /// copied with the rows, are cleared. Empty when every key stays valid.
    func lostTargets(of source: RelationshipDescription, in target: StoreLayout.Entity) -> [String] {
        guard let sourceTarget = sourceLayout.entity(named: source.destinationEntityName) else { return [source.destinationEntityName] }
        return sourceLayout.entities.filter { entity in
            guard sourceTarget.numberRange.contains(entity.number), (sourceCounts[entity.name] ?? 0) > 0 else { return false }
            return entityNumbers[entity.number].map { !target.numberRange.contains($0) } ?? true
        }.map(\.name)
    }

    /// Lines for the plan: to-one relationships whose keys to objects that no longer are of
    /// their destination are cleared.
    var clearedLinks: [String] {
        destinationLayout.entities.flatMap { layout -> [String] in
            guard let entity = mapping.destination.entity(named: layout.name) else { return [] }
            return entity.relationships.compactMap { relationship in
                guard !relationship.isToMany, let target = destinationLayout.entity(named: relationship.destinationEntityName),
                    case .copiedWithRows(let source) = linkSource(of: relationship, in: entity)
                else { return nil }
                let lost = lostTargets(of: source, in: target)
                guard !lost.isEmpty else { return nil }
                return "\(entity.name).\(relationship.name): links to objects of \(lost.joined(separator: ", ")), which are no longer \(target.name) objects, are cleared"
            }
        }
    }
}
