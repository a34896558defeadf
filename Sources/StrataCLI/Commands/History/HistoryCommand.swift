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
            throw StoreError.foreignHistoryToken(path: store.path, token: text, storeUUID: store.metadata.uuid)
        }
        return token
    }
}
