import ArgumentParser
import Foundation
import Strata

/// `strata inspect [ENTITY]`: what a store holds, without changing it. It does not await, so
/// that it runs without starting Swift concurrency's threads (see ``StrataCLI/start(_:)``).
struct InspectCommand: ParsableCommand, ReadsModelOrStore {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Show what a store holds: its file, metadata, model and entities.",
        discussion: """
            Without ENTITY: the store file and its -wal, journal mode, page size, store UUID, \
            Core Data framework version, where the model came from (--model, the store's model \
            cache, the model Strata recorded in the store's metadata, or inferred from the \
            schema), whether that model matches the store (and which \
            entities differ), a warning for each column the model names that the store's \
            tables lack (a store made by hand or by another tool, which Core Data would refuse), \
            and every entity with its hierarchy, table and row count.

            With ENTITY: its attributes and their columns, relationships and where they are \
            stored, indexes, row count and first rows.

            The store is always opened read-only and never changed.
            """)

    @OptionGroup var options: StoreOptions

    @Argument(help: ArgumentHelp("An entity to show in detail.", valueName: "entity"), completion: EntityCompletion.kind)
    var entity: String?

    @OptionGroup var output: FormatOptions<OutputFormat>

    var format: OutputFormat { output.format }

    @Option(parsing: .unconditional, help: ArgumentHelp("How many rows of ENTITY to show.", valueName: "n"))
    var limit = 5

    func validate() throws {
        if limit < 0 { throw ValidationError("--limit must be 0 or more") }
    }

    func run() throws {
        let (store, _) = try options.openStoreForReading()
        if let entity {
            let report = try EntityReport(store: store, entityName: entity, rowLimit: limit)
            print(format == .json ? JSONWriter.string(from: report.json(model: store.model)) : report.lines(model: store.model).joined(separator: "\n"))
        } else {
            let report = try StoreReport(store: store)
            print(format == .json ? JSONWriter.string(from: report.json) : report.lines.joined(separator: "\n"))
        }
    }
}
