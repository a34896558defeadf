import ArgumentParser
import Foundation
import Strata

/// `strata count`: how many objects of an entity a store holds, optionally those matching a
/// predicate.
struct CountCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "count",
        abstract: "Count the objects of an entity in a store, optionally those matching a predicate.",
        discussion: """
            Prints one number: the objects of ENTITY and of its sub-entities (unless \
            --exclude-subentities) that satisfy the --where predicate, written in Core Data's \
            predicate format (for example "rating >= 4 AND ANY tags.name ==[c] 'classic'"). \
            The store is opened read-only. A predicate that does not parse, or that names a key \
            the entity lacks, is a usage error (exit status 2).
            """)

    @OptionGroup var options: StoreOptions

    @Argument(help: "The entity whose objects to count.")
    var entity: String

    @Option(name: .customLong("where"), help: ArgumentHelp("Count only the objects that satisfy this predicate.", valueName: "predicate"))
    var predicate: String?

    @Flag(help: "Leave out the objects of the entity's sub-entities.")
    var excludeSubentities = false

    func run() async throws {
        let parsed: Strata.Predicate?
        do {
            parsed = try predicate.map { try Strata.Predicate(format: $0) }
        } catch {
            throw CLIError("--where: \(error)", status: .usage)
        }
        let (store, _) = try options.openStoreForReading()
        defer { store.close() }
        do {
            print(try store.count(of: entity, matching: parsed, includesSubentities: !excludeSubentities))
        } catch let error as PredicateKeyError {
            throw CLIError("--where: \(error)", status: .usage)
        } catch let error as PredicateCompileError {
            throw CLIError("--where: \(error)", status: .usage)
        }
    }
}
