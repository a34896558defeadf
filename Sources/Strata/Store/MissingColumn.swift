/// A column the model's layout puts in a table that the store's table lacks: a store made by
/// hand or by another tool for a model whose hashes it records. Core Data would refuse to open
/// such a store; Strata opens it with a warning (see ``PersistentStore/missingColumns``), reads
/// what the store holds, and fails a statement that needs the column with
/// ``StoreError/missingColumn(path:_:cause:)`` naming it.
public struct MissingColumn: Sendable, Equatable, CustomStringConvertible {
    /// What the column would hold.
    public enum Kind: String, Sendable {
        /// An attribute's values.
        case attribute
        /// A to-one relationship's destination key (`Z_PK`).
        case toOne = "to-one key"
        /// A to-one's destination entity number (`Z<n>_<NAME>`), kept where the destination has sub-entities.
        case toOneEntity = "to-one entity"
        /// A to-one's position in its ordered inverse (`Z_FOK_<NAME>`).
        case toOneOrder = "to-one order"
        /// A to-many without an inverse: the source's key on the destination's table.
        case toManyKey = "to-many key"
        /// A column of a many-to-many's join table.
        case joinTable = "join table"
    }

    /// The table as the store names it, such as `ZBOOK`.
    public var table: String
    /// The column the model's layout expects, such as `ZISBN`.
    public var column: String
    /// The entity that declares the property the column stands for.
    public var entity: String
    /// The attribute or relationship the column stands for.
    public var property: String
    /// What the column would hold.
    public var kind: Kind

    /// A missing column `column` of `table`, standing for `property` of `entity`.
    public init(table: String, column: String, entity: String, property: String, kind: Kind) {
        self.table = table
        self.column = column
        self.entity = entity
        self.property = property
        self.kind = kind
    }

    /// `ZBOOK.ZISBN (attribute Book.isbn)`.
    public var description: String {
        "\(table).\(column) (\(kind.rawValue) \(entity).\(property))"
    }
}
