import ArgumentParser
import Foundation
import Strata

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

    @Option(parsing: .unconditional, help: ArgumentHelp("List at most this many transactions, the earliest first.", valueName: "count"))
    var limit: Int?

    @OptionGroup var output: FormatOptions<RowFormat>

    var format: RowFormat { output.format }

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
                throw StoreError.unknownEntity(path: store.path, name: name, known: store.model.entities.map(\.name).sorted())
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
