/// What `strata inspect ENTITY` shows of one entity: its properties with the columns or join
/// tables that store them, its indexes, its row count and its first rows.
public struct EntityReport: Sendable {
    /// An attribute and its column (`nil` for a transient attribute, which has none).
    public struct AttributeColumn: Sendable {
        public var name: String
        public var type: AttributeType
        public var column: String?
        /// Whether the entity declares the attribute itself rather than inheriting it.
        public var isInherited: Bool
    }

    /// A relationship and where the store keeps it.
    public struct RelationshipStorage: Sendable {
        public var name: String
        public var destination: String
        public var inverse: String?
        /// `to-one`, `to-many` or `ordered to-many`.
        public var cardinality: String
        /// The columns on this entity's table (to-one), on the destination's (one-to-many), or
        /// the join table (many-to-many), in words: `ZAUTHOR`, `ZPAGE.ZBOOK, ZPAGE.Z_FOK_BOOK`,
        /// `join table Z_2TAGS`.
        public var storage: String
    }

    public var name: String
    public var number: Int
    public var table: String
    public var parent: String?
    public var subentities: [String]
    public var attributes: [AttributeColumn]
    public var relationships: [RelationshipStorage]
    /// Indexes on the entity's table, as `(name, CREATE INDEX statement)`.
    public var indexes: [(name: String, sql: String)]
    /// Rows of the entity itself (its `Z_ENT`).
    public var rowCount: Int
    /// The first rows of the entity and its sub-entities, in key order.
    public var firstRows: [RowSnapshot]

    /// Gathers the report of `entityName` in `store`, with up to `rowLimit` rows.
    public init(store: PersistentStore, entityName: String, rowLimit: Int) throws {
        guard let entity = store.model.entity(named: entityName), let layout = store.layout.entity(named: entityName) else {
            throw StoreError.unknownEntity(path: store.path, name: entityName, known: store.model.entities.map(\.name))
        }
        let model = store.model
        name = entity.name
        number = layout.number
        table = layout.tableName
        parent = entity.superentityName
        subentities = model.directSubentities(of: entity).map(\.name)
        let own = Set(entity.attributes.map(\.name) + entity.relationships.map(\.name))
        attributes = model.allAttributes(of: entity).map {
            AttributeColumn(name: $0.name, type: $0.type, column: layout.attributeColumns[$0.name], isInherited: !own.contains($0.name))
        }
        relationships = model.allRelationships(of: entity).map { relationship in
            let cardinality = relationship.isToMany ? (relationship.isOrdered ? "ordered to-many" : "to-many") : "to-one"
            var storage = "-"
            if let columns = layout.toOneColumns[relationship.name] {
                storage = ([columns.key] + [columns.entity, columns.order].compactMap { $0 }).joined(separator: ", ")
            } else if let join = store.layout.joinTable(
                for: model.entityDeclaring(relationship: relationship.name, from: entity)?.name ?? entity.name, relationship: relationship.name)
            {
                storage = "join table \(join.name)"
            } else if let inverse = relationship.inverseName, let destination = store.layout.entity(named: relationship.destinationEntityName),
                let columns = destination.toOneColumns[inverse]
            {
                storage = ([columns.key, columns.order].compactMap { $0 }).map { "\(destination.tableName).\($0)" }.joined(separator: ", ")
            }
            return RelationshipStorage(
                name: relationship.name, destination: relationship.destinationEntityName, inverse: relationship.inverseName,
                cardinality: cardinality, storage: storage)
        }
        indexes = store.schema.indexes.filter { $0.table.caseInsensitiveCompare(layout.tableName) == .orderedSame }.map { ($0.name, $0.sql) }
        rowCount = try store.rowCounts()[entity.name] ?? 0
        firstRows = try store.rows(entity.name, limit: rowLimit)
    }

}
