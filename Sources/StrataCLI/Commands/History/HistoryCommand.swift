import ArgumentParser
import Foundation
import Strata

/// `strata history`: a store's persistent history, listed (`strata history list`, the
/// default) or pruned (`strata history prune`).
struct HistoryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "List or prune a store's persistent history (Core Data's ATRANSACTION and ACHANGE).",
        discussion: """
            Stores of apps that turn on Core Data's persistent history tracking (widgets, \
            extensions, CloudKit mirroring, sync) record every save as a transaction (when, by \
            which author, context, bundle and process) with one change per object inserted, \
            updated or deleted. strata records its own saves there too, as the author strata \
            (--history-author), so that the app learns what a command or a script changed; \
            --track-history starts a history on a store that has none.

            strata history list shows the transactions and their changes; strata history \
            prune deletes those before a transaction or a date.
            """,
        subcommands: [HistoryListCommand.self, HistoryPruneCommand.self],
        defaultSubcommand: HistoryListCommand.self)
}

/// Where a history listing starts or a pruning stops: a transaction (its number, or a token
/// `<store UUID>:<number>`) or a date in ISO 8601.
enum HistoryBound: ExpressibleByArgument {
    case transaction(String)
    case date(Date)

    init?(argument: String) {
        if PersistentHistoryToken(argument, storeUUID: "") != nil {
            self = .transaction(argument)
        } else if let date = Self.date(argument) {
            self = .date(date)
        } else {
            return nil
        }
    }

    static var defaultCompletionKind: CompletionKind { .default }

    /// `2024-05-10T18:00:00Z`, with a fraction of seconds or an offset, or `2024-05-10` (UTC).
    private static func date(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        for options: ISO8601DateFormatter.Options in [[.withInternetDateTime], [.withInternetDateTime, .withFractionalSeconds], [.withFullDate]] {
            formatter.formatOptions = options
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }

    /// The token of `store` this bound names; a usage error for another store's.
    func token(of store: PersistentStore) throws -> PersistentHistoryToken? {
        guard case .transaction(let text) = self, let token = PersistentHistoryToken(text, storeUUID: store.metadata.uuid) else { return nil }
        guard token.storeUUID == store.metadata.uuid else {
            throw CLIError("\(text) is a history token of another store (this one's UUID is \(store.metadata.uuid))", status: .usage)
        }
        return token
    }
}

/// `strata history list`: the transactions of a store's history and their changes.
struct HistoryListCommand: AsyncParsableCommand, ReadsModelOrStore {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the transactions of a store's persistent history and their changes.",
        discussion: """
            Prints one row per change: the transaction's number, time, author, context name, \
            bundle and process, then the change (insert, update or delete), the object \
            (Entity/p12) and, for an update, the properties the save wrote; for a deletion, the \
            values the model keeps after deletion. --since starts after a transaction (its \
            number, or a token STORE-UUID:NUMBER as --format json prints it) or a date \
            (2024-05-10T18:00:00Z); --author keeps the transactions of one author; --entity \
            keeps the changes of some entities; --limit caps the transactions. The store is \
            opened read-only. A store without history tables is an error (exit status 3).
            """)

    @OptionGroup var options: StoreOptions

    @Option(help: ArgumentHelp("List the transactions after this one (its number, or STORE-UUID:NUMBER) or after this date (ISO 8601).", valueName: "transaction-or-date"))
    var since: HistoryBound?

    @Option(help: ArgumentHelp("List only the transactions of this author.", valueName: "name"))
    var author: String?

    @Option(help: ArgumentHelp("List only the changes of this entity (repeatable).", valueName: "entity"))
    var entity: [String] = []

    @Option(help: ArgumentHelp("List at most this many transactions, the earliest first.", valueName: "count"))
    var limit: Int?

    @Option(help: "Output format: table, json, ndjson or csv.")
    var format: RowFormat = .table

    func validate() throws {
        if let limit, limit < 1 { throw ValidationError("--limit must be 1 or more") }
    }

    static let columns = ["transaction", "timestamp", "author", "context", "bundle", "process", "change", "object", "properties", "tombstone", "token"]

    func run() async throws {
        let (store, _) = try options.openStoreForReading()
        defer { store.close() }
        var request: PersistentHistoryChangeRequest
        switch since {
        case .date(let date)?: request = .fetchHistory(after: date)
        default: request = .fetchHistory(after: try since?.token(of: store))
        }
        request.author = author
        request.fetchLimit = limit
        if !entity.isEmpty {
            for name in entity where store.model.entity(named: name) == nil {
                throw CLIError("no entity '\(name)' in the store's model", status: .usage)
            }
            request.entityNames = Set(entity)
        }
        let transactions = try store.execute(request).transactions
        var writer = RowWriter(columns: Self.columns, format: format, pages: true)
        for transaction in transactions {
            let head: [JSONValue] = [
                .number(transaction.transactionNumber), .string(transaction.timestamp.formatted(.iso8601)),
                transaction.author.map(JSONValue.string) ?? .null, transaction.contextName.map(JSONValue.string) ?? .null,
                transaction.bundleID.map(JSONValue.string) ?? .null, transaction.processID.map(JSONValue.string) ?? .null,
            ]
            let token = JSONValue.string(transaction.token.description)
            if transaction.changes.isEmpty { writer.write(head + [.null, .null, .null, .null, token]) }
            for change in transaction.changes {
                let properties = change.updatedProperties.map { JSONValue.string($0.sorted().joined(separator: " ")) } ?? .null
                let tombstone = change.tombstone.map { values in
                    JSONValue.string(values.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))
                } ?? .null
                writer.write(head + [.string(change.changeType.description), .string("\(change.entityName)/p\(change.primaryKey)"), properties, tombstone, token])
            }
        }
        writer.finish()
    }
}

/// `strata history prune`: deletes the transactions before one, or before a date.
struct HistoryPruneCommand: AsyncParsableCommand, ReadsModelOrStore {
    static let configuration = CommandConfiguration(
        commandName: "prune",
        abstract: "Delete the persistent history before a transaction or a date.",
        discussion: """
            Deletes, in one transaction, the transactions before --before (a transaction's \
            number or token, which is kept, or an ISO 8601 date) and their changes, as Core \
            Data's deleteHistory(before:) does, and prints how many went. Apps that read their \
            history keep the last transaction they handled: prune no further than the oldest \
            of those. --dry-run counts them and deletes nothing.
            """)

    @OptionGroup var options: StoreOptions

    @Option(help: ArgumentHelp("Delete the transactions before this one (its number, or STORE-UUID:NUMBER) or before this date (ISO 8601).", valueName: "transaction-or-date"))
    var before: HistoryBound

    @Flag(help: "Count the transactions that would be deleted, and delete nothing.")
    var dryRun = false

    func validate() throws {
        if options.readOnly, !dryRun { throw ValidationError("prune deletes from the store; --read-only goes only with --dry-run") }
    }

    func run() async throws {
        let store = try dryRun ? options.openStoreForReading().0 : options.openStoreForWriting(creatingIfMissing: false)
        defer { store.close() }
        var request: PersistentHistoryChangeRequest
        switch before {
        case .date(let date): request = .deleteHistory(before: date)
        case .transaction: request = .deleteHistory(before: try before.token(of: store))
        }
        if dryRun {
            let count = switch request.bound {
            case .beforeToken(let token?): try store.execute(PersistentHistoryChangeRequest(operation: .fetch, bound: .beforeToken(token)).counting).count
            case .beforeDate(let date): try store.execute(PersistentHistoryChangeRequest(operation: .fetch, bound: .beforeDate(date)).counting).count
            default: 0
            }
            print("dry run: would delete \(count) transaction\(count == 1 ? "" : "s")")
            return
        }
        let count = try store.execute(request).count
        print("deleted \(count) transaction\(count == 1 ? "" : "s")")
    }
}

extension PersistentHistoryChangeRequest {
    /// The request asking for the number of transactions alone.
    fileprivate var counting: Self {
        var request = self
        request.resultType = .count
        return request
    }
}
