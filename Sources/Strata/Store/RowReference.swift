/// A to-one relationship's value: the destination row.
public struct RowReference: Sendable, Hashable {
    public var entityName: String
    public var primaryKey: Int64

    public init(entityName: String, primaryKey: Int64) {
        self.entityName = entityName
        self.primaryKey = primaryKey
    }
}
