import Foundation
import Strata
import StrataLua

/// An error a command reports to the user, saying what went wrong as values: the input that
/// is missing, the file, path or option at fault, the error from below that it wraps.
/// ``description`` is the sentence `strata` prints after `strata: `; ``ExitStatus/init(for:)``
/// picks the exit status from the case.
enum CLIError: Error {
    /// An input the command needs was not given (a usage error).
    case missing(MissingInput)
    /// No store at `path`; `remedy` says how to name another or make one.
    case noSuchStore(path: String, remedy: StoreRemedy)
    /// The store at `path` opened, but only for reading: the user may not write it.
    case storeNotWritable(path: String)
    /// A file the command was to read is absent, a folder, or cannot be read.
    case unreadableFile(path: String, role: InputFile, problem: FileProblem)
    /// A file the command was to write could not be written; `cause` says why, where the
    /// system said.
    case unwritableFile(path: String, cause: (any Error)?)
    /// The file to write exists, and replacing it needs `--force`.
    case outputExists(path: String)
    /// The request, as given, contradicts itself, the store or the model (a usage error).
    case refused(Refusal)
    /// Something the command runs on cannot be had here.
    case unavailable(Facility)
    /// An external program the command ran ended in failure.
    case programFailed(program: String, arguments: [String], status: Int32, standardError: String)
    /// An operation that removes objects needs `--yes` where it cannot ask.
    case needsConfirmation(Confirmation)
    /// The user answered no when asked to confirm; nothing was changed.
    case declined(Confirmation)
    /// The store was made with another version of the model (`cause`, a
    /// ``StackError/modelVersionMismatch(path:bundle:storeVersion:stackVersion:)``), and the
    /// command was not asked to migrate it.
    case needsMigration(StackError)
    /// The model given by `--model` (the version at `modelPath`) did not make the store
    /// (`cause`, a ``StoreError/modelMismatch(path:comparison:)``); `storeVersion` names the
    /// bundle's version that did, when one did.
    case modelMismatch(StoreError, modelPath: String, storeVersion: String?)
    /// A deletion failed and was rolled back, for `cause`.
    case nothingDeleted(ContextError)
    /// An import was refused for the links that named no object or the keys that no property
    /// reads, which it was not allowed to accept; nothing was imported.
    case importRefused(ImportReport, unresolvedLinks: Bool, unknownKeys: Bool)
    /// An import saved its records (or, on a dry run, rolled them back), but `invalid` of them
    /// made invalid objects, which were deleted.
    case importCompletedWithProblems(invalid: Int, dryRun: Bool)
    /// Ctrl-C stopped an import, whose transaction was rolled back.
    case importInterrupted

    /// An input that was not given.
    enum MissingInput: Equatable {
        /// No `--store` nor `STRATA_STORE`; `creatable` when `--model PATH --create` would do.
        case store(creatable: Bool)
        /// No `--model` nor `STRATA_MODEL`; `orStore` when a store's own model would do.
        case model(orStore: Bool)
        /// Neither an entity nor a `--template`.
        case entityOrTemplate
        /// No SQL as an argument, in a file or on standard input.
        case sql
    }

    /// What would make a store that is missing, or name one that exists.
    enum StoreRemedy: Equatable {
        /// Name an existing store with `--store`.
        case passStore
        /// `--create` makes it (or `strata setup`).
        case create
        /// `--create` with `--model` makes it.
        case createWithModel
    }

    /// The part a file that cannot be read plays in the command.
    enum InputFile: Equatable {
        /// The SQL of `strata sql --file`.
        case sql
        /// A Lua script `strata run` runs.
        case script
        /// A file of records `strata import` reads.
        case records
        /// The Lua script of `strata migrate --script`.
        case migrationScript
        /// The Lua policy of `strata migrate --policy`.
        case migrationPolicy
    }

    /// Why a file cannot be read.
    enum FileProblem: Equatable {
        case missing
        case folder
        /// It exists, but reading it failed (permissions, say).
        case unreadable
    }

    /// A request that cannot be carried out as given.
    enum Refusal: Equatable {
        /// A command that writes was given `--read-only`.
        case readOnly
        /// `--template` fetches `fetches`, where the command names `entity`.
        case templateEntity(template: String, fetches: String, entity: String)
        /// `--template` returns results other than objects, which `strata fetch` lists.
        case templateResultType(template: String, resultType: String)
        /// `strata sql` without `--write` was given SQL that writes: statement `number`
        /// (`sql`), or one SQLite found writing as it ran (`nil`).
        case sqlWrites(statement: (number: Int, sql: String)?)
        /// A format of one entity's records, for `entity`, which has `subentities`.
        case entityWithSubentities(format: String, entity: String, subentities: [String])
        /// A format of one entity's records, for several `entities`.
        case severalEntities(format: String, entities: [String])
        /// A `--select` or `--include` item with an empty step.
        case notAKeyPath(String)
        /// The store at `path` keeps no model of its own (the model was `source`), and the
        /// command was given none.
        case noModelOfItsOwn(path: String, source: PersistentStore.ModelSource)

        static func == (lhs: Refusal, rhs: Refusal) -> Bool {
            switch (lhs, rhs) {
            case (.readOnly, .readOnly): true
            case (.templateEntity(let a, let b, let c), .templateEntity(let d, let e, let f)): (a, b, c) == (d, e, f)
            case (.templateResultType(let a, let b), .templateResultType(let c, let d)): (a, b) == (c, d)
            case (.sqlWrites(let a), .sqlWrites(let b)): a?.number == b?.number && a?.sql == b?.sql
            case (.entityWithSubentities(let a, let b, let c), .entityWithSubentities(let d, let e, let f)): (a, b) == (d, e) && c == f
            case (.severalEntities(let a, let b), .severalEntities(let c, let d)): a == c && b == d
            case (.notAKeyPath(let a), .notAKeyPath(let b)): a == b
            case (.noModelOfItsOwn(let a, let b), .noModelOfItsOwn(let c, let d)): a == c && b == d
            default: false
            }
        }
    }

    /// What a command runs on that could not be had.
    enum Facility {
        /// The Lua state would not start.
        case lua(LuaError)
        /// libedit's line editor would not start.
        case lineEditor
        /// The pipe that carries Ctrl-C to a running script could not be made (`errno`).
        case interruptHandling(errno: Int32)
        /// Graphviz's `dot`, which draws `--format`, is not on PATH.
        case graphviz(format: String)
    }

    /// An operation that removes objects, which a user confirms.
    enum Confirmation: Equatable {
        /// `strata reset` of the store at `path`.
        case reset(path: String)
        /// `strata delete` of `entity` objects (`all` of them, with `--all`).
        case delete(entity: String, all: Bool)
    }
}

extension CLIError: CustomStringConvertible {
    /// What `strata` prints after `strata: `.
    var description: String {
        switch self {
        case .missing(let input): input.description
        case .noSuchStore(let path, let remedy):
            switch remedy {
            case .passStore: "\(path): no such store; pass --store PATH"
            case .create: "\(path): no such store; pass --create to make one (or strata setup)"
            case .createWithModel: "\(path): no such store; pass --create (with --model) to make one"
            }
        case .storeNotWritable(let path): "\(path): the store cannot be written (no write permission)"
        case .unreadableFile(let path, let role, let problem):
            Self.unreadable(path, role, problem)
        case .unwritableFile(let path, let cause):
            "cannot write \(path)" + (cause.map { ": \($0.localizedDescription)" } ?? "")
        case .outputExists(let path): "\(path) exists; pass --force to replace it"
        case .refused(let refusal): refusal.description
        case .unavailable(let facility): facility.description
        case .programFailed(let program, let arguments, let status, let standardError):
            "\(([program] + arguments).joined(separator: " ")) failed (exit status \(status)): \(standardError.trimmingCharacters(in: .whitespacesAndNewlines))"
        case .needsConfirmation(.reset(let path)): "reset removes every object in \(path); pass --yes to confirm"
        case .needsConfirmation(.delete(let entity, _)): "delete --all removes every \(entity) object; pass --yes to confirm"
        case .declined(.reset(let path)): "\(path) was not reset"
        case .declined(.delete): "nothing deleted"
        case .needsMigration(let cause):
            "\(cause); pass --migrate to migrate it first (the old store is kept beside it as a .bak), or use strata migrate"
        case .modelMismatch(let cause, let modelPath, let storeVersion):
            "\(cause) (model \(modelPath))\(storeVersion.map { "; the store is version '\($0)' of the bundle" } ?? ""); leave out --model to use the store's own model"
        case .nothingDeleted(let cause): "\(cause); nothing was deleted"
        case .importRefused(let report, let unresolvedLinks, let unknownKeys):
            Self.refusal(report, unresolved: unresolvedLinks, unknownKeys: unknownKeys)
        case .importCompletedWithProblems(let invalid, let dryRun):
            "completed with problems: \(Self.counted(invalid, "record")) made invalid objects, which were deleted (--allow-invalid to accept this); "
                + (dryRun ? "the dry run was rolled back" : "the other records were saved")
        case .importInterrupted: "interrupted: the import was rolled back, and the store is as it was"
        }
    }

    private static func unreadable(_ path: String, _ role: InputFile, _ problem: FileProblem) -> String {
        switch (role, problem) {
        case (.sql, _): "--file \(path): no such file, or it cannot be read"
        case (.script, .missing): "cannot read the script \(path): no such file"
        case (.script, .folder): "cannot read the script \(path): it is a folder"
        case (.script, .unreadable): "cannot read the script \(path): permission denied"
        case (.records, .missing): "\(path): no such file"
        case (.records, .folder): "\(path): is a folder, not a JSON file"
        case (.records, .unreadable): "\(path): cannot be read"
        case (.migrationScript, _): "\(path): cannot read the migration script"
        case (.migrationPolicy, _): "\(path): cannot read the migration policy"
        }
    }

    /// Why an import was rolled back, with the options that would accept it.
    private static func refusal(_ report: ImportReport, unresolved: Bool, unknownKeys: Bool) -> String {
        var reasons: [String] = []
        if unresolved {
            let count = report.unresolvedLinks.count
            reasons.append("\(counted(count, "link")) named no object (--allow-unresolved saves the import with \(count == 1 ? "it" : "them") unset)")
        }
        if unknownKeys {
            let count = report.ignoredKeys.count
            reasons.append("\(counted(count, "key")) no property reads (--allow-unknown-keys saves the import without \(count == 1 ? "it" : "them"))")
        }
        return reasons.joined(separator: "; ") + "; nothing was imported, the store is as it was"
    }

    private static func counted(_ count: Int, _ noun: String) -> String { "\(count) \(noun)\(count == 1 ? "" : "s")" }
}

extension CLIError.MissingInput: CustomStringConvertible {
    var description: String {
        switch self {
        case .store(creatable: false): "no store given: pass --store PATH or set STRATA_STORE"
        case .store(creatable: true): "no store given: pass --store PATH or set STRATA_STORE (--model PATH --create makes a new one)"
        case .model(orStore: false): "no model given: pass --model PATH or set STRATA_MODEL"
        case .model(orStore: true): "no model given: pass --model PATH (or --store PATH for a store's own model), or set STRATA_MODEL"
        case .entityOrTemplate: "name the ENTITY, or a --template"
        case .sql: "no SQL given: pass it as an argument, with --file PATH, or on standard input"
        }
    }
}

extension CLIError.Refusal: CustomStringConvertible {
    var description: String {
        switch self {
        case .readOnly: "this command writes to the store; --read-only cannot be used with it"
        case .templateEntity(let template, let fetches, let entity): "template '\(template)' fetches \(fetches), not \(entity)"
        case .templateResultType(let template, let resultType): "template '\(template)' returns \(resultType) results; run it with strata query"
        case .sqlWrites(let statement):
            (statement.map { "statement \($0.number) writes to the store" } ?? "the SQL writes to the store")
                + ", which strata sql opens read-only; pass --write to run it (bypassing Core Data's bookkeeping)"
                + (statement.map { "\n  \($0.sql)" } ?? "")
        case .entityWithSubentities(let format, let entity, let subentities):
            "--format \(format) writes the records of one entity, and \(entity) has sub-entities (\(subentities.joined(separator: ", "))): "
                + "add --exclude-subentities for \(entity)'s own objects, or use --format json"
        case .severalEntities(let format, let entities):
            "--format \(format) writes the records of one entity; name exactly one ENTITY (this export has \(entities.count): \(entities.joined(separator: ", ")))"
        case .notAKeyPath(let item): "'\(item)' is not a key path"
        case .noModelOfItsOwn(let path, let source): "\(path) keeps no model of its own (\(source)); pass --model"
        }
    }
}

extension CLIError.Facility: CustomStringConvertible {
    var description: String {
        switch self {
        case .lua(let error): "cannot start Lua: \(error.message)"
        case .lineEditor: "cannot start the line editor (libedit)"
        case .interruptHandling(let errno): "cannot handle Ctrl-C: \(String(cString: strerror(errno)))"
        case .graphviz(let format):
            "--format \(format) needs Graphviz's dot, which is not on PATH: install graphviz (apt-get install graphviz), or write --format dot and draw it elsewhere"
        }
    }
}
