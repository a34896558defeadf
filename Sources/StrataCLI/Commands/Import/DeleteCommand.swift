import ArgumentParser
import Foundation
import Logging
import Strata

/// `strata delete`: deletes the objects of an entity that match a predicate (or all of them),
/// following the model's delete rules, in one transaction.
struct DeleteCommand: AsyncParsableCommand, ReadsModelOrStore {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete the objects of an entity that match a predicate, or all of them, following the model's delete rules.",
        discussion: """
            Deletes the objects of ENTITY and of its sub-entities that satisfy the --where \
            predicate (Core Data's format) or the model's --template, or every one with --all \
            (DKDBManager's deleteAllEntities). The model's delete rules apply: Cascade deletes \
            the related objects too, Nullify takes the deleted objects out of their relations, \
            and a Deny rule that still holds objects stops the command (exit status 3) with \
            nothing deleted, as does a Nullify that would leave a required to-one empty. \
            The deletion runs in SQL, as set operations, without reading the objects; \
            everything is saved in one transaction, or nothing is.

            Prints what was deleted, by entity: "deleted 3 Book, 7 Page (cascade)". Each \
            deletion is logged with --reason ("Deleting Book { ... }: REASON"): at info level \
            for the entities the model marks strata.verbose, at verbose level for the others.

            --dry-run runs the same deletion in a transaction that it rolls back, and \
            prints what would be deleted ("dry run: would delete 3 Book, 7 Page (cascade)"); \
            it asks nothing and logs nothing. --explain prints the SQL that selects the \
            objects, its arguments and SQLite's query plan, with the store opened read-only.

            When standard input and standard output are both a terminal, it asks first \
            ("Delete 3 Book objects (and 7 Page by cascade)? [y/N]") unless --yes is given. \
            Otherwise (a script, a pipe) it deletes without asking, but for --all, which needs \
            --yes there, as strata reset does. While it deletes, a terminal shows for how long.

            The store is opened for writing with the model of --model, which must be the \
            store's (as strata setup opens it), else with the store's own model.
            """)

    @OptionGroup var options: StoreOptions

    @Argument(help: "The entity whose objects to delete, sub-entities included; may be left out with --template.", completion: EntityCompletion.kind)
    var entity: String?

    @OptionGroup var selection: PredicateOptions

    @Flag(help: "Delete every object of ENTITY.")
    var all = false

    @Option(help: ArgumentHelp("Why the objects are deleted, written with each deletion in the log.", valueName: "text"))
    var reason: String?

    @Flag(help: "Delete without asking, on a terminal too.")
    var yes = false

    @Flag(help: "Print what would be deleted, and delete nothing.")
    var dryRun = false

    @OptionGroup var explanation: ExplainOptions

    func validate() throws {
        if options.readOnly { throw ValidationError("delete writes to the store; --read-only cannot be used with it") }
        let selects = selection.predicate != nil || selection.template != nil
        if all, selects { throw ValidationError("--all deletes every object of ENTITY: leave out --where and --template") }
        if !all, !selects { throw ValidationError("say which objects to delete: --where PREDICATE, --template NAME, or --all") }
        if all, entity == nil { throw ValidationError("--all needs the ENTITY") }
        if explanation.explain, dryRun { throw ValidationError("--explain and --dry-run each delete nothing; give one") }
    }

    func run() async throws {
        if explanation.explain { return try explain() }
        let target = try Cleanup.openForWriting(options)
        defer { target.close() }
        let context = target.context
        let asks = !dryRun && !yes && isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1
        if all, !yes, !asks, !dryRun {
            throw CLIError.needsConfirmation(.delete(entity: entity ?? "", all: true))
        }
        let summary = try Cleanup.mapped {
            try context.performAndWait { () throws -> Cleanup.Summary in
                let request = all ? FetchRequest(entityName: entity ?? "") : try selection.makeRequest(entity: entity, model: context.model)
                let deletion = BatchDeleteRequest(fetchRequest: request)
                if dryRun {
                    // The deletion as it would run, rolled back: what SQL selects, as `delete` would.
                    guard let preview = try preview(deletion, in: context) else { return Cleanup.Summary(entityName: request.entityName, matched: [], deleted: []) }
                    return Cleanup.Summary(entityName: request.entityName, preview)
                }
                if asks, let preview = try preview(deletion, in: context), preview.count > 0,
                    !confirm(Cleanup.Summary(entityName: request.entityName, preview))
                {
                    throw CLIError.declined(.delete(entity: request.entityName, all: all))
                }
                let activity = ActivityIndicator("deleting \(request.entityName) objects")
                defer { activity.stop() }
                return Cleanup.Summary(entityName: request.entityName, try context.execute(deletion, reason: reason))
            }
        }
        let deleted = summary.matchedCount == 0 ? "0 \(summary.entityName)" : summary.description
        print(dryRun ? "dry run: would delete \(deleted)" : "deleted \(deleted)")
    }

    /// Prints the SQL that selects the objects to delete, read-only: nothing is deleted,
    /// asked or logged.
    private func explain() throws {
        let (store, _) = try options.openStoreForReading()
        defer { store.close() }
        let request = all ? FetchRequest(entityName: entity ?? "") : try selection.makeRequest(entity: entity, model: store.model)
        ExplainOptions.print(try store.explain(request, for: .delete))
    }

    /// What `request` would delete: run in a transaction rolled back at once, unlogged, so that
    /// the store is not held while the user answers.
    private func preview(_ request: BatchDeleteRequest, in context: ObjectContext) throws -> BatchDeleteResult? {
        var unlogged = Logger(label: "strata.delete")
        unlogged.logLevel = .critical
        var preview: BatchDeleteResult?
        do {
            _ = try context.execute(request, activity: EntityActivityLog(logger: unlogged)) { result in
                preview = result
                return false
            }
        } catch is CancellationError {}
        return preview
    }

    /// Asks on the terminal whether to delete what `summary` lists.
    private func confirm(_ summary: Cleanup.Summary) -> Bool {
        let cascade = summary.cascaded.isEmpty ? "" : " (and \(Cleanup.Summary.list(summary.cascaded)) by cascade)"
        let noun = summary.matchedCount == 1 ? "object" : "objects"
        FileHandle.standardError.write(Data("Delete \(Cleanup.Summary.list(summary.matched)) \(noun)\(cascade)? [y/N] ".utf8))
        guard let answer = readLine() else { return false }
        return ["y", "yes"].contains(answer.lowercased())
    }
}

/// What `strata delete` and `strata prune` share: opening the store for writing, the exit
/// status of the context's errors, and the summary of what was deleted.
enum Cleanup {
    /// A context on the existing store, for writing: with --model, which must be the store's
    /// (exit status 3 for another model), else with the store's own model.
    static func openForWriting(_ options: StoreOptions) throws -> (context: ObjectContext, close: () -> Void) {
        let store = try options.openStoreForWriting(creatingIfMissing: false)
        return (ObjectContext(store: store, name: "cli"), store.close)
    }

    /// A context on the existing store, for reading only (`--dry-run`).
    static func openForReading(_ options: StoreOptions) throws -> (context: ObjectContext, close: () -> Void) {
        let (store, _) = try options.openStoreForReading()
        return (ObjectContext(store: store, name: "cli"), store.close)
    }

    /// Runs `body`, saying of a deletion that failed for the context's rules or the store that
    /// nothing was deleted (``CLIError/nothingDeleted(_:)``). A name the model lacks, a value of
    /// the wrong type or a model's bad `strata.invalidIf` (an ``InvalidIfError``) goes on as thrown.
    static func mapped<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as ContextError {
            switch error {
            case .store(.unknownEntity), .store(.unknownProperty), .wrongType: throw error
            default: throw CLIError.nothingDeleted(error)
            }
        }
    }

    /// The objects deleted, by entity: those asked for, and those their Cascade rules took.
    struct Summary {
        var entityName: String
        var matched: [String: Int] = [:]
        var cascaded: [String: Int] = [:]
        var matchedCount = 0

        /// What a batch delete of `entityName` deleted.
        init(entityName: String, _ result: BatchDeleteResult) {
            self.entityName = entityName
            matched = result.matchedCounts
            cascaded = result.cascadedCounts
            matchedCount = result.matchedCounts.values.reduce(0, +)
        }

        init(entityName: String, matched: [ObjectID], deleted: [ObjectID]) {
            self.entityName = entityName
            let asked = Set(matched)
            matchedCount = asked.count
            for id in asked { self.matched[id.entityName, default: 0] += 1 }
            for id in deleted where !asked.contains(id) { cascaded[id.entityName, default: 0] += 1 }
        }

        /// `3 Book, 1 EBook`.
        static func list(_ counts: [String: Int]) -> String {
            counts.keys.sorted().map { "\(counts[$0]!) \($0)" }.joined(separator: ", ")
        }

        /// `3 Book, 7 Page (cascade)`.
        var description: String {
            let cascade = cascaded.keys.sorted().map { "\(cascaded[$0]!) \($0) (cascade)" }
            return ([Self.list(matched)].filter { !$0.isEmpty } + cascade).joined(separator: ", ")
        }
    }
}
