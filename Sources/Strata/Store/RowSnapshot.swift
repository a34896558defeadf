/// One entity row as the store keeps it: its key, entity, version and column values.
public struct RowSnapshot: Sendable, Equatable {
    /// The row's entity (a sub-entity's rows name the sub-entity).
    public var entityName: String
    /// `Z_PK`.
    public var primaryKey: Int64
    /// `Z_OPT`: raised on every save of the row; an update names the version it read.
    public var version: Int64
    /// The values by property name: attributes, and to-one relationships as the destination's `Z_PK`.
    public var values: [String: DatabaseValue]
    /// The to-one relationships that hold a row, by relationship name, with the destination's
    /// exact entity (read from the `Z<n>_` column where the destination has sub-entities).
    public var references: [String: RowReference] = [:]
}
