import ArgumentParser
import Foundation
import Strata

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
