import Foundation

/// One save as the store's persistent history recorded it: Core Data's
/// `NSPersistentHistoryTransaction`, an `ATRANSACTION` row with its `ACHANGE` rows.
public struct PersistentHistoryTransaction: Sendable, Equatable {
    /// The transaction's number, `ATRANSACTION.Z_PK`: later saves have larger ones.
    public var transactionNumber: Int64
    /// When the save committed.
    public var timestamp: Date
    /// Who saved, as the saving context's ``ObjectContext/transactionAuthor`` named it.
    public var author: String?
    /// The saving program's bundle identifier (Strata: the bundle's, else the process's name).
    public var bundleID: String?
    /// The name of the saving context.
    public var contextName: String?
    /// The saving process's name.
    public var processID: String?
    /// The UUID of the store the transaction belongs to.
    public var storeUUID: String
    /// The objects the save inserted, updated and deleted, in the order recorded; empty when
    /// the request asked for transactions only.
    public var changes: [PersistentHistoryChange]

    /// The token that points at this transaction: fetching history after it returns the
    /// transactions that followed.
    public var token: PersistentHistoryToken {
        PersistentHistoryToken(storeUUID: storeUUID, transactionNumber: transactionNumber)
    }

    /// A transaction as the store records it; ``PersistentStore/fetchHistory(after:)`` makes
    /// these, and a test or a sync engine may make its own to compare with them.
    public init(
        transactionNumber: Int64, timestamp: Date, author: String? = nil, bundleID: String? = nil, contextName: String? = nil,
        processID: String? = nil, storeUUID: String, changes: [PersistentHistoryChange] = []
    ) {
        (self.transactionNumber, self.timestamp, self.author, self.bundleID) = (transactionNumber, timestamp, author, bundleID)
        (self.contextName, self.processID, self.storeUUID, self.changes) = (contextName, processID, storeUUID, changes)
    }
}
