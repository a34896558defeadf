/// One object that differs between two stores, as ``StoreComparison`` finds it: added (only in
/// the new store), removed (only in the old one), or changed (in both, with other values or links).
///
/// An object is named by the key it was matched by: its entity's identity attribute
/// (`Book isbn="978-0"`), or its primary key (`Book Z_PK=12`) when the entity has none.
package struct ObjectDifference: Sendable {
    /// How the object differs: only in the new store, only in the old one, or in both with
    /// other values.
    package enum Kind: String, Sendable {
        case added, removed, changed
    }

    /// One property whose value differs: an attribute's value, or a relationship's
    /// destinations, named by their keys (a to-one's destination key, a to-many's sorted list).
    package struct PropertyChange: Sendable {
        package var property: String
        /// The value in the old store, as JSON (as `strata export` writes it; `null` for nil).
        package var old: JSONValue
        /// The value in the new store.
        package var new: JSONValue
    }

    /// The entity of the object (its own entity, not a parent's).
    package var entityName: String
    package var kind: Kind
    /// The name of the attribute the object was matched by, or `Z_PK`.
    package var keyName: String
    /// The object's value of ``keyName``: in the new store, or the old one for a removed object.
    package var key: JSONValue
    /// The object's `Z_PK` in the old store, if it is there.
    package var oldPrimaryKey: Int64?
    /// The object's `Z_PK` in the new store, if it is there.
    package var newPrimaryKey: Int64?
    /// What changed, in the order of the entity's properties; empty when added or removed.
    package var changes: [PropertyChange] = []
}

extension StoreComparison {
    /// What a comparison found in one entity.
    package struct EntitySummary: Sendable {
        package var entityName: String
        /// What its objects were matched by: an attribute's name, or `Z_PK`.
        package var keyName: String
        /// Its objects in the old and the new store (0 where the store has no such entity).
        package var oldCount = 0, newCount = 0
        package var added = 0, removed = 0, changed = 0
        /// Properties one store has and the other lacks, so not compared.
        package var onlyInOld: [String] = [], onlyInNew: [String] = []

        package var isEqual: Bool { added == 0 && removed == 0 && changed == 0 }
    }

    /// What a whole comparison found: per entity, in order of entity name.
    package struct Summary: Sendable {
        package var entities: [EntitySummary]

        /// Whether no object was added, removed or changed.
        package var isEqual: Bool { entities.allSatisfy(\.isEqual) }
    }
}
