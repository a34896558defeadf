import Foundation

/// A request for a store's persistent history, or for its deletion: Core Data's
/// `NSPersistentHistoryChangeRequest`. Run it with ``PersistentStore/execute(_:)`` or
/// ``ObjectContext/execute(_:)-(PersistentHistoryChangeRequest)``.
///
/// ```swift
/// var request = PersistentHistoryChangeRequest.fetchHistory(after: lastToken)
/// request.author = "widget"
/// let transactions = try store.execute(request).transactions
/// try store.execute(.deleteHistory(before: transactions.last?.token))
/// ```
public struct PersistentHistoryChangeRequest: Sendable, Equatable {
    /// Which transactions the request covers.
    public enum Bound: Sendable, Equatable {
        /// Those after the token's transaction; every one for `nil`.
        case afterToken(PersistentHistoryToken?)
        /// Those saved after the date.
        case afterDate(Date)
        /// Those before the token's transaction (not that one); none for `nil`.
        case beforeToken(PersistentHistoryToken?)
        /// Those saved before the date.
        case beforeDate(Date)
    }

    /// Whether the request reads the transactions or deletes them.
    public enum Operation: Sendable, Equatable {
        case fetch, delete
    }

    /// What a fetch returns: Core Data's `NSPersistentHistoryResultType`.
    public enum ResultType: Sendable, Equatable {
        /// The transactions with their changes.
        case transactionsAndChanges
        /// The transactions without their changes (their ``PersistentHistoryTransaction/changes`` empty).
        case transactionsOnly
        /// The number of transactions alone.
        case count
    }

    /// Whether the request fetches (or counts) the transactions or deletes them.
    public var operation: Operation
    /// Which transactions the request covers: after or before a token or a date.
    public var bound: Bound
    /// Only the transactions of this author (a fetch; a deletion ignores it, as Core Data's).
    public var author: String?
    /// Only changes of these entities (and their transactions); every entity when `nil`.
    public var entityNames: Set<String>?
    /// At most this many transactions, the earliest first.
    public var fetchLimit: Int?
    /// What a fetch returns: transactions with their changes (the default), without them, or a count.
    public var resultType: ResultType = .transactionsAndChanges

    /// A request of `operation` over the transactions `bound` selects; the static
    /// ``fetchHistory(after:)-(PersistentHistoryToken?)`` and ``deleteHistory(before:)-(PersistentHistoryToken?)`` say the same more briefly.
    public init(operation: Operation, bound: Bound) {
        (self.operation, self.bound) = (operation, bound)
    }

    /// The transactions after `token`'s (every one for `nil`), earliest first.
    public static func fetchHistory(after token: PersistentHistoryToken?) -> Self { Self(operation: .fetch, bound: .afterToken(token)) }
    /// The transactions saved after `date`, earliest first.
    public static func fetchHistory(after date: Date) -> Self { Self(operation: .fetch, bound: .afterDate(date)) }
    /// Deletes the transactions before `token`'s (`token`'s own is kept) and their changes.
    public static func deleteHistory(before token: PersistentHistoryToken?) -> Self { Self(operation: .delete, bound: .beforeToken(token)) }
    /// Deletes the transactions saved before `date` and their changes.
    public static func deleteHistory(before date: Date) -> Self { Self(operation: .delete, bound: .beforeDate(date)) }
}

/// What a ``PersistentHistoryChangeRequest`` returned: Core Data's `NSPersistentHistoryResult`.
public struct PersistentHistoryResult: Sendable, Equatable {
    /// The transactions fetched, earliest first (empty for a deletion or a count).
    public var transactions: [PersistentHistoryTransaction] = []
    /// How many transactions the request fetched, counted or deleted.
    public var count: Int = 0

    /// A result holding `transactions` and `count`, as ``PersistentStore/execute(_:)`` returns one.
    public init(transactions: [PersistentHistoryTransaction] = [], count: Int = 0) {
        (self.transactions, self.count) = (transactions, count)
    }
}
