import Foundation

/// One object a transaction inserted, updated or deleted: Core Data's
/// `NSPersistentHistoryChange`, an `ACHANGE` row.
public struct PersistentHistoryChange: Sendable, Equatable {
    /// What happened to the object: `ZCHANGETYPE`, as Core Data's `NSPersistentHistoryChangeType`
    /// numbers it.
    public enum ChangeType: Int64, Sendable, Equatable, CaseIterable, CustomStringConvertible {
        case insert = 0
        case update = 1
        case delete = 2

        /// `insert`, `update` or `delete`.
        public var description: String {
            switch self {
            case .insert: "insert"
            case .update: "update"
            case .delete: "delete"
            }
        }
    }

    /// The change's own number, `ACHANGE.Z_PK`.
    public var changeID: Int64
    /// Whether the save inserted, updated or deleted the object.
    public var changeType: ChangeType
    /// The object's entity (a sub-entity's name for its rows, not its root's).
    public var entityName: String
    /// The object's `Z_PK`.
    public var primaryKey: Int64
    /// For an update, the properties the save wrote; `nil` for an insert or a deletion, and
    /// for an update whose bitmap names properties the store's model does not have.
    public var updatedProperties: Set<String>?
    /// For a deletion, the values of the attributes the model marks to be preserved in
    /// history (``AttributeDescription/preservesValueInHistoryOnDeletion``); `nil` otherwise.
    public var tombstone: [String: AttributeValue]?
    /// The number of the transaction the change belongs to.
    public var transactionNumber: Int64

    /// A change as a transaction records it; ``PersistentStore/fetchHistory(after:)`` makes these,
    /// and a test or a sync engine may make its own to compare with them.
    public init(
        changeID: Int64, changeType: ChangeType, entityName: String, primaryKey: Int64, updatedProperties: Set<String>? = nil,
        tombstone: [String: AttributeValue]? = nil, transactionNumber: Int64
    ) {
        (self.changeID, self.changeType, self.entityName, self.primaryKey) = (changeID, changeType, entityName, primaryKey)
        (self.updatedProperties, self.tombstone, self.transactionNumber) = (updatedProperties, tombstone, transactionNumber)
    }
}
