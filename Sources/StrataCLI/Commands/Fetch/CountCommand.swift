import ArgumentParser
import Foundation
import Strata

/// `strata count`: how many objects of an entity a store holds, optionally those matching a
/// predicate or a model's fetch request template.
struct CountCommand: AsyncParsableCommand, ReadsModelOrStore {
    static let configuration = CommandConfiguration(
        commandName: "count",
        abstract: "Count the objects of an entity in a store, optionally those matching a predicate.",
        discussion: """
            Prints one number: the objects of ENTITY and of its sub-entities (unless \
            --exclude-subentities) that satisfy the --where predicate, written in Core Data's \
            predicate format (for example "rating >= 4 AND ANY tags.name ==[c] 'classic'"), or \
            the model's --template. The store is opened read-only; --explain prints the SQL and \
            its query plan instead of counting. A predicate that does not \
            parse, or that names a key the entity lacks, is a usage error (exit status 2).
            """)

    @OptionGroup var options: StoreOptions

    @Argument(help: "The entity whose objects to count; may be left out with --template.", completion: EntityCompletion.kind)
    var entity: String?

    @OptionGroup var selection: PredicateOptions

    @Flag(help: "Leave out the objects of the entity's sub-entities.")
    var excludeSubentities = false

    @OptionGroup var explanation: ExplainOptions

    func run() async throws {
        let (store, _) = try options.openStoreForReading()
        defer { store.close() }
        var request = try selection.makeRequest(entity: entity, model: store.model)
        if excludeSubentities { request.includesSubentities = false }
        if explanation.explain { return ExplainOptions.print(try store.explain(request, for: .count)) }
        print(try store.count(for: request))
    }
}
