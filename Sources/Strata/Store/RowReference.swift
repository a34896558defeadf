/// A to-one relationship's value: the destination row.
package struct RowReference: Sendable, Hashable {
    /// The destination row's own entity (a sub-entity where the row is one). When the
    /// destination has sub-entities, its `Z_ENT` goes into the relationship's `Z<n>_<NAME>` column.
    package var entityName: String
    /// The destination row's `Z_PK`, written to the relationship's key column (`Z<NAME>`).
    package var primaryKey: Int64

    /// A reference to the row of `entityName` whose `Z_PK` is `primaryKey`.
    package init(entityName: String, primaryKey: Int64) {
        self.entityName = entityName
        self.primaryKey = primaryKey
    }
}
