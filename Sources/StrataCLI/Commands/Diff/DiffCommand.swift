import ArgumentParser
import Foundation
import Strata

/// `strata diff OLD NEW`: the objects added, removed and changed between two stores.
struct DiffCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "Show the objects added, removed and changed between two stores.",
        discussion: """
            Compares two stores of one model, or of two versions of one model bundle (after \
            an import or a migration, say), entity by entity. Objects are matched by their \
            entity's identity attribute, the one strata import matches records by (a \
            uniqueness constraint on one attribute, relatedByAttribute, remoteID, <entity>ID \
            or id), else by their primary key (Z_PK), which only means the same object in a \
            store and its copy. Attributes are compared by value, relationships by the keys \
            of the objects they point to; a to-many whose inverse is a to-one is compared on \
            that to-one, a many-to-many on one of its sides, so that a changed link shows \
            once. The order of an ordered to-many is not compared.

            The entities and properties compared are those of NEW's model, matched by name \
            in OLD's: a property one store lacks is named in the summary and not compared; \
            an entity one store lacks has all its objects added or removed. Each store is \
            read with its own model (its model cache, the model Strata recorded, or one \
            inferred from its tables), or with the version of the --model bundle that made it.

            A table shows each difference on a line, + added, - removed, ~ changed with its \
            old and new values, then the numbers per entity; --summary prints only those. \
            --format json prints one object {old, new, equal, entities, differences}; \
            --format ndjson one difference per line. Both stores are read once, in the order \
            of the matching key, in memory that does not grow with their size, and opened \
            read-only.

            Exit status, as diff(1)'s: 0 when the stores hold the same objects, 1 when they \
            differ, 2 when a store cannot be read or the command is misused, 3 when a store's \
            data or model is damaged.
            """)

    @OptionGroup var options: StoreOptions

    @Argument(help: ArgumentHelp("The store to compare from (before).", valueName: "old"), completion: .file())
    var oldStore: String

    @Argument(help: ArgumentHelp("The store to compare with (after).", valueName: "new"), completion: .file())
    var newStore: String

    @Option(help: "How to print the differences: a table (lines and a summary), one JSON object, or one JSON object per difference.")
    var format: DiffFormat = .table

    @Flag(help: "Print only the numbers of objects added, removed and changed per entity.")
    var summary = false

    enum DiffFormat: String, CaseIterable, ExpressibleByArgument {
        case table, json, ndjson
    }

    func validate() throws {
        if options.store != nil { throw ValidationError("give the two stores as arguments: strata diff OLD NEW (not --store)") }
        if options.readOnly || options.trackHistory { throw ValidationError("strata diff only reads; --read-only and --track-history do not apply") }
    }

    func run() async throws {
        let equal: Bool
        do {
            let old = try open(oldStore)
            defer { old.close() }
            let new = try open(newStore)
            defer { new.close() }
            var output = DiffOutput(format: format, summaryOnly: summary, old: oldStore, new: newStore)
            let found = try StoreComparison(old: old, new: new).run { output.write($0) }
            output.finish(found)
            equal = found.isEqual
        } catch {
            // As diff(1) has it: 1 means the stores differ, so trouble is 2.
            throw DiffTrouble(error: error)
        }
        if !equal { throw ExitCode(1) }
    }

    private func open(_ path: String) throws -> PersistentStore {
        var storeOptions = options
        storeOptions.store = path
        guard FileManager.default.fileExists(atPath: path) else { throw StoreError.notFound(path: path) }
        return try storeOptions.openStoreForReading().0
    }
}

/// An error of `strata diff`, whose runtime failures end in exit status 2, since 1 says that
/// the stores differ.
struct DiffTrouble: Error {
    var error: any Error
}
