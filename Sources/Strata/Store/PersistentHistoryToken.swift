import Foundation

/// A place in a store's persistent history: Core Data's `NSPersistentHistoryToken`. It names the
/// store (its UUID) and the last transaction seen (`ATRANSACTION.Z_PK`, which rises with every
/// save); ``PersistentHistoryChangeRequest/fetchHistory(after:)-(PersistentHistoryToken?)``
/// returns what came after it.
///
/// Core Data keeps its token opaque; that it holds the store's UUID and the transaction's
/// number is inferred from how Core Data describes one (a dictionary of store UUID to
/// transaction number). A token is `Codable`, so that an app can keep the last one it handled:
///
/// ```swift
/// let data = try JSONEncoder().encode(token)
/// let saved = try JSONDecoder().decode(PersistentHistoryToken.self, from: data)
/// ```
public struct PersistentHistoryToken: Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
    /// The UUID of the store whose history the token points into (`Z_METADATA.Z_UUID`).
    public var storeUUID: String
    /// The transaction's number, `ATRANSACTION.Z_PK`.
    public var transactionNumber: Int64

    /// The token of transaction `transactionNumber` in the store whose UUID is `storeUUID`,
    /// as ``PersistentHistoryTransaction/token`` makes it.
    public init(storeUUID: String, transactionNumber: Int64) {
        (self.storeUUID, self.transactionNumber) = (storeUUID, transactionNumber)
    }

    /// Orders tokens of one store by transaction.
    public static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.storeUUID, lhs.transactionNumber) < (rhs.storeUUID, rhs.transactionNumber)
    }

    /// `<store UUID>:<transaction number>`, the form `strata history --since` takes.
    public var description: String { "\(storeUUID):\(transactionNumber)" }

    /// Reads ``description``'s form, or a transaction number alone (the store's UUID then
    /// left to the caller to fill).
    public init?(_ text: String, storeUUID: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard let last = parts.last, let number = Int64(last), number >= 0 else { return nil }
        self.init(storeUUID: parts.count > 1 ? parts.dropLast().joined(separator: ":") : storeUUID, transactionNumber: number)
    }
}
