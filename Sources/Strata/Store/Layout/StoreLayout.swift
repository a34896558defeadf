/// Where a model's objects live in a Core Data SQLite store: entity numbers, tables, columns,
/// join tables and indexes.
///
/// ``init(model:)`` makes the choices Core Data makes for a new store (see the rules in
/// `StoreLayout+Model.swift`); ``StoreLayout/reconciled(with:)`` replaces them with the names an
/// existing store actually uses, so that Strata never rewrites another tool's layout.
///
/// ```swift
/// let layout = StoreLayout(model: model)
/// layout.entity(named: "Book")?.tableName          // "ZBOOK"
/// layout.entity(named: "Book")?.column(for: "title") // "ZTITLE"
/// ```
package struct StoreLayout: Sendable, Equatable {
    /// One entity's place in the store.
    package struct Entity: Sendable, Equatable {
        /// The entity's name as the model spells it, and as `Z_PRIMARYKEY.Z_NAME` records it.
        package var name: String
        /// `Z_ENT`: the entity's number in `Z_PRIMARYKEY` and in its rows.
        package var number: Int
        /// `Z_SUPER`: the parent entity's number, 0 for a root entity.
        var superNumber: Int
        /// The table holding the rows of the entity's whole hierarchy.
        package var tableName: String
        /// The `Z_ENT` values of the entity and all its sub-entities: a fetch that includes
        /// sub-entities selects rows whose `Z_ENT` lies in this range.
        var numberRange: ClosedRange<Int>
        /// The column of each stored attribute, by attribute name (inherited ones included).
        var attributeColumns: [String: String]
        /// The columns of each to-one relationship, by relationship name (inherited ones included).
        var toOneColumns: [String: ToOneColumns]
        /// For each to-many without an inverse, by relationship name (inherited ones included):
        /// the column of the destination's table that holds this entity's `Z_PK` (Core Data's
        /// `Z<n><NAME>`, `n` the `Z_ENT` of the entity declaring it, such as `Z1DOCUMENTS`).
        var toManyKeyColumns: [String: String] = [:]

        /// Whether the entity's table holds no other entity's rows: it has neither a parent nor
        /// sub-entities.
        var holdsTableAlone: Bool { superNumber == 0 && numberRange.count == 1 }

        /// The SQL condition that selects the rows of the entity and its sub-entities in its table.
        /// Every row of a table the entity holds alone is the entity's, whatever its `Z_ENT` says,
        /// as Core Data reads it (a real store holds such a row).
        var kindCondition: String {
            if holdsTableAlone { return "Z_PK IS NOT NULL" }
            return numberRange.count == 1 ? "Z_ENT = \(number)" : "Z_ENT BETWEEN \(numberRange.lowerBound) AND \(numberRange.upperBound)"
        }

        /// The SQL condition that selects the rows of the entity itself, its sub-entities aside.
        var ownKindCondition: String {
            holdsTableAlone ? kindCondition : "Z_ENT = \(number)"
        }

        /// The column of the attribute or to-one relationship named `property`.
        package func column(for property: String) -> String? {
            attributeColumns[property] ?? toOneColumns[property]?.key
        }
    }

    /// The columns that store a to-one relationship.
    package struct ToOneColumns: Sendable, Equatable {
        /// The destination's `Z_PK`.
        package var key: String
        /// The destination's `Z_ENT`, present when the destination has sub-entities.
        package var entity: String?
        /// `Z_FOK_…`: the position in the inverse ordered to-many, when the inverse is ordered.
        package var order: String?
    }

    /// A table: its name and its columns with their declared SQL types, in order.
    package struct Table: Sendable, Equatable {
        /// The table's name: `Z<ENTITY>` for an entity table, `Z_<n><RELATIONSHIP>` for a join table.
        package var name: String
        /// The columns in `CREATE TABLE` order; an entity table starts with `Z_PK`, `Z_ENT`, `Z_OPT`.
        package var columns: [Column]
        /// Columns of a composite primary key (join tables); entity tables use `Z_PK`.
        package var primaryKey: [String] = []
    }

    /// A column and its declared SQL type (`INTEGER`, `VARCHAR`, `TIMESTAMP`, …).
    package struct Column: Sendable, Equatable {
        /// The column's name, such as `Z_PK`, `ZTITLE` or `Z_FOK_BOOK`.
        package var name: String
        /// The declared SQL type as `CREATE TABLE` writes it; empty when the column has none.
        package var type: String
    }

    /// The table of a many-to-many relationship.
    package struct JoinTable: Sendable, Equatable {
        /// The table's name, `Z_<n><RELATIONSHIP>`: the `Z_ENT` of the side it is named after and
        /// that side's relationship name, uppercased (`Z_2TAGS`).
        package var name: String
        /// The relationship the table is named after, as `Entity.relationship`.
        package var relationship: RelationshipPath
        /// Its inverse.
        package var inverse: RelationshipPath
        /// The column holding the `Z_PK` of the relationship's source objects.
        var sourceColumn: String
        /// The column holding the `Z_PK` of its destination objects.
        var destinationColumn: String
        /// Order columns, by the relationship (`Entity.name`) whose order each keeps.
        var orderColumns: [RelationshipPath: String] = [:]
    }

    /// An entity name and one of its relationships.
    package struct RelationshipPath: Sendable, Hashable, CustomStringConvertible {
        /// The name of the entity that declares the relationship (a superentity, for an inherited one).
        package var entity: String
        /// The relationship's name as the model spells it.
        package var relationship: String
        /// The relationship named `relationship` of the entity named `entity`.
        package init(entity: String, relationship: String) {
            self.entity = entity
            self.relationship = relationship
        }
        /// `Entity.relationship`, such as `Book.tags`.
        package var description: String { "\(entity).\(relationship)" }
    }

    /// An index, in the form `CREATE [UNIQUE] INDEX name ON table (columns)`.
    package struct Index: Sendable, Equatable {
        /// The index's name, such as `ZBOOK_ZAUTHOR_INDEX` for a to-one key or `Z_Book_title` for
        /// a fetch index.
        package var name: String
        /// The name of the table the index is on.
        package var table: String
        /// The column terms as written (`ZNAME`, `ZTITLE COLLATE BINARY ASC`).
        package var terms: [String]
        /// Whether it is a `UNIQUE` index, as made for a uniqueness constraint.
        var isUnique = false
    }

    /// The entities, in `Z_ENT` order.
    package var entities: [Entity]
    /// The entity tables, in `Z_ENT` order of their root entity, then the join tables (those
    /// with a composite ``Table/primaryKey``).
    package var tables: [Table]
    /// The join tables, one per many-to-many relationship and its inverse.
    var joinTables: [JoinTable]
    /// The indexes of the entity and join tables, each name once: to-one keys, join tables,
    /// fetch indexes, uniqueness constraints and compound indexes.
    package var indexes: [Index]
    /// Core Data's `Z_DA_` triggers, which keep the derived attributes current (see
    /// `StoreLayout+DerivedAttributes.swift`), in the order they are created.
    var triggers: [Trigger] = []
    /// The statements that compute every row's derived attributes, for rows written while the
    /// triggers were not there (a migration's copy); one per derived attribute.
    var derivedValueStatements: [String] = []

    /// The entity named `name`.
    package func entity(named name: String) -> Entity? {
        entities.first { $0.name == name }
    }

    /// The join table of the many-to-many relationship `relationship` of `entity`, from either side.
    package func joinTable(for entity: String, relationship: String) -> JoinTable? {
        let path = RelationshipPath(entity: entity, relationship: relationship)
        return joinTables.first { $0.relationship == path || $0.inverse == path }
    }

    /// The join table of `entity`'s many-to-many `relationship` (an inherited one included), with
    /// its columns seen from `entity`: `source` holds `entity`'s keys, `destination` the other
    /// side's, and `order` the positions of the destinations when the relationship is ordered.
    func joinColumns(
        of entity: EntityDescription, relationship: String, in model: ObjectModel
    ) -> (table: String, source: String, destination: String, order: String?)? {
        let owner = model.entityDeclaring(relationship: relationship, from: entity)?.name ?? entity.name
        let path = RelationshipPath(entity: owner, relationship: relationship)
        guard let join = joinTable(for: owner, relationship: relationship) else { return nil }
        return join.relationship == path
            ? (join.name, join.sourceColumn, join.destinationColumn, join.orderColumns[path])
            : (join.name, join.destinationColumn, join.sourceColumn, join.orderColumns[path])
    }
}
