/// What `strata inspect ENTITY` shows of one entity: its properties with the columns or join
/// tables that store them, its indexes, its row count and its first rows.
package struct EntityReport: Sendable {
    /// An attribute and its column (`nil` for a transient attribute, which has none).
    package struct AttributeColumn: Sendable {
        /// The attribute's name as the model spells it.
        package var name: String
        /// The attribute's Core Data type (Integer 64, String, Date, …), which decides its column type.
        package var type: AttributeType
        /// The column holding the attribute in the entity's table, such as `ZTITLE`; `nil` for a
        /// transient attribute.
        package var column: String?
        /// Whether the attribute is inherited from an ancestor rather than declared by the entity.
        package var isInherited: Bool
    }

    /// A relationship and where the store keeps it.
    package struct RelationshipStorage: Sendable {
        /// The relationship's name as the model spells it.
        package var name: String
        /// The name of the destination entity.
        package var destination: String
        /// The name of the inverse relationship on the destination; `nil` when there is none.
        package var inverse: String?
        /// `to-one`, `to-many` or `ordered to-many`.
        package var cardinality: String
        /// The table that stores the relationship: the entity's own (to-one), the destination's
        /// (one-to-many, keyed by the inverse), or the join table (many-to-many); `nil` when
        /// the store keeps nothing for it (a to-many without inverse, a transient).
        package var table: String?
        /// The columns of ``table`` that hold it: the key, then the entity and order columns.
        package var columns: [String]
        /// Whether ``table`` is a many-to-many join table.
        package var isJoinTable: Bool

        /// Where the relationship is stored, in words: `ZAUTHOR`, `ZPAGE.ZBOOK, ZPAGE.Z_FOK_BOOK`,
        /// `join table Z_2TAGS`, or `-`.
        package var storageDescription: String {
            guard let table else { return "-" }
            if isJoinTable { return "join table \(table)" }
            return columns.map { table == ownTable ? $0 : "\(table).\($0)" }.joined(separator: ", ")
        }

        /// The reported entity's table, to tell its own columns from the destination's.
        var ownTable: String
    }

    /// The entity's name as the model spells it.
    package var name: String
    /// `Z_ENT`: the entity's number in `Z_PRIMARYKEY` and in its rows.
    package var number: Int
    /// The table holding the entity's rows: its root entity's `Z<NAME>` table, such as `ZBOOK`.
    package var table: String
    /// The name of the entity's direct superentity; `nil` for a root entity.
    package var parent: String?
    /// The names of the entity's direct sub-entities, in model order.
    package var subentities: [String]
    /// Every attribute of the entity, inherited ones first (from the root down), with its column.
    package var attributes: [AttributeColumn]
    /// Every relationship of the entity, inherited ones first (from the root down), with where
    /// the store keeps it.
    package var relationships: [RelationshipStorage]
    /// Indexes on the entity's table, as `(name, CREATE INDEX statement)`.
    package var indexes: [(name: String, sql: String)]
    /// Rows of the entity itself, sub-entities' not included, as ``PersistentStore/rowCountExcludingSubentities(of:)``
    /// counts them.
    package var rowCount: Int
    /// The first rows of the entity and its sub-entities, in key order.
    package var firstRows: [RowSnapshot]

    /// Gathers the report of `entityName` in `store`, with up to `rowLimit` rows.
    package init(store: PersistentStore, entityName: String, rowLimit: Int) throws {
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
            var storage = RelationshipStorage(
                name: relationship.name, destination: relationship.destinationEntityName, inverse: relationship.inverseName,
                cardinality: cardinality, table: nil, columns: [], isJoinTable: false, ownTable: layout.tableName)
            if let columns = layout.toOneColumns[relationship.name] {
                storage.table = layout.tableName
                storage.columns = [columns.key] + [columns.entity, columns.order].compactMap { $0 }
            } else if let join = store.layout.joinTable(
                for: model.entityDeclaring(relationship: relationship.name, from: entity)?.name ?? entity.name, relationship: relationship.name)
            {
                storage.table = join.name
                storage.columns = [join.sourceColumn, join.destinationColumn]
                storage.isJoinTable = true
            } else if let inverse = relationship.inverseName, let destination = store.layout.entity(named: relationship.destinationEntityName),
                let columns = destination.toOneColumns[inverse]
            {
                storage.table = destination.tableName
                storage.columns = [columns.key, columns.order].compactMap { $0 }
            } else if let column = layout.toManyKeyColumns[relationship.name],
                let destination = store.layout.entity(named: relationship.destinationEntityName)
            {
                storage.table = destination.tableName
                storage.columns = [column]
            }
            return storage
        }
        indexes = store.schema.indexes.filter { $0.table.caseInsensitiveCompare(layout.tableName) == .orderedSame }.map { ($0.name, $0.sql) }
        rowCount = try store.rowCountExcludingSubentities(of: entity.name)
        firstRows = try store.rows(entity.name, limit: rowLimit)
    }

}
