import ArgumentParser
import Foundation
import Strata

/// `strata prune --invalid`: deletes the objects that break the model's rules, listing each
/// with its reason.
struct PruneCommand: AsyncParsableCommand, ReadsModelOrStore {
    static let configuration = CommandConfiguration(
        commandName: "prune",
        abstract: "Delete the invalid objects of a store, listing each with its reason.",
        discussion: """
            With --invalid, deletes the objects of each ENTITY (sub-entities included; every \
            entity when none is named) that fail the model's validation (required values, \
            ranges, lengths, patterns, relationship counts) or match their entity's \
            strata.invalidIf userInfo predicate: the objects an import deletes as invalid \
            (DKDBManager's deleteIfInvalid). Each is listed on standard output with its reason \
            ("Book p12: title is required"), then the count, with the objects the model's \
            Cascade rules deleted with them.

            The deletions follow the model's delete rules and are saved in one transaction: a \
            Deny rule that still holds objects, or an object a Nullify rule leaves invalid, \
            stops the command (exit status 3) with nothing deleted. A strata.invalidIf that \
            does not parse is an error naming its entity (exit status 3). --dry-run lists the \
            objects and what would be deleted, and opens the store read-only. Prune does not \
            ask for confirmation: look first with --dry-run.

            The store is opened for writing with the model of --model, which must be the \
            store's (as strata setup opens it), else with the store's own model.
            """)

    @OptionGroup var options: StoreOptions

    @Flag(help: "Delete the objects that fail validation or match their entity's strata.invalidIf.")
    var invalid = false

    @Argument(help: "The entities to prune, sub-entities included; every entity when none is named.", completion: EntityCompletion.kind)
    var entities: [String] = []

    @Flag(help: "List the objects and what would be deleted, and delete nothing.")
    var dryRun = false

    func validate() throws {
        if !invalid { throw ValidationError("say what to prune: --invalid") }
        if options.readOnly, !dryRun { throw ValidationError("prune deletes from the store; --read-only goes only with --dry-run") }
    }

    func run() async throws {
        let target = try dryRun ? Cleanup.openForReading(options) : Cleanup.openForWriting(options)
        defer { target.close() }
        let context = target.context
        let (found, summary) = try Cleanup.mapped {
            try context.performAndWait { () throws -> ([(label: String, reason: String)], Cleanup.Summary) in
                let model = context.model
                let names = entities.isEmpty ? model.entities.filter { $0.superentityName == nil }.map(\.name) : entities
                let invalid: [(object: ManagedObject, reason: String)]
                if dryRun {
                    invalid = try context.invalidObjects(names)
                    for (object, _) in invalid where !object.isDeleted { try context.delete(object) }
                } else {
                    invalid = try context.deleteInvalidObjects(names)
                }
                let summary = Cleanup.Summary(
                    entityName: names.joined(separator: ", "), matched: invalid.map(\.object.objectID),
                    deleted: context.deletedObjects.map(\.objectID))
                let listed = invalid.map { (Self.label(of: $0.object), $0.reason) }
                if dryRun {
                    context.rollback()
                } else if !invalid.isEmpty {
                    try context.validatePendingChanges()
                    try context.save()
                }
                return (listed, summary)
            }
        }
        for (label, reason) in found { print("\(label): \(reason)") }
        let noun = summary.matchedCount == 1 ? "object" : "objects"
        if summary.matchedCount == 0 {
            print("no invalid objects")
        } else if dryRun {
            print("dry run: would delete \(summary.matchedCount) invalid \(noun): \(summary.description)")
        } else {
            print("deleted \(summary.matchedCount) invalid \(noun): \(summary.description)")
        }
    }

    /// `Book p12`: the object's entity and its row.
    private static func label(of object: ManagedObject) -> String {
        object.objectID.primaryKey.map { "\(object.objectID.entityName) p\($0)" } ?? object.objectID.description
    }
}
