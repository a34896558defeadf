import Strata
import StrataLua

/// The exit statuses `strata` returns.
enum ExitStatus: Int32 {
    case success = 0
    case failure = 1
    case usage = 2
    case dataError = 3
    /// The command did its work and kept it, but found problems, which it names on standard
    /// error: an import saved its records, yet some made invalid objects (deleted) or named
    /// objects that do not exist (links left unset). Unlike ``dataError``, which leaves the
    /// store as it was.
    case completedWithProblems = 4
    /// Ctrl-C stopped the command (128 + SIGINT, as shells report it).
    case interrupted = 130

    /// The status `strata` ends with after `error`: the one place that maps an error to a
    /// status. `nil` for an error that is not Strata's (argument parsing's, raised while a
    /// command runs), whose status the parser gives.
    ///
    /// Rules: a request that names what the model lacks or does not parse is a usage error;
    /// records, models, mapping models and SQL that the data or the model's rules refuse are
    /// data errors; what cannot run where the store is (locked, unreadable) is a runtime failure.
    init?(for error: any Error) {
        switch error {
        case let trouble as DiffTrouble:
            // strata diff's 1 says that the stores differ: its runtime failures are 2.
            let status = ExitStatus(for: trouble.error) ?? .failure
            self = status == .failure ? .usage : status
        case let error as CLIError: self.init(for: error)
        case let error as ModelError: self.init(for: error)
        case let error as StoreError: self.init(for: error)
        case let error as MigrationError: self.init(for: error)
        case let error as LuaError: self.init(for: error)
        case let error as DatabaseError: self.init(for: error)
        case let error as ImportError: self.init(for: error)
        case StreamingImportError.badInput(_, let cause):
            // The input's own error decides: a record that does not fit, or text that does not parse.
            self = ExitStatus(for: cause) ?? .dataError
        case is PredicateKeyError, is PredicateCompileError, is PredicateSyntaxError, is FetchRequestError: self = .usage
        case ContextError.store(let error):
            // A name the model lacks is the request's fault, as it is when the store reports it.
            switch error {
            case .unknownEntity, .unknownProperty: self = .usage
            default: self = .dataError
            }
        case is MappingModelError, is InvalidIfError, is StreamingImportError, is ContextError, is JSONSyntaxError, is StackError:
            // Records that do not fit the model, or a save the model's rules refuse.
            self = .dataError
        case is SQLScriptError:
            // The user's own SQL that SQLite refused: a data error, as a failed save is.
            self = .dataError
        default: return nil
        }
    }

    /// A request that is incomplete or contradicts itself is a usage error, as is a file named
    /// by an option (`--file`, `--script`, `--policy`) that cannot be read; a store the model
    /// did not make, or a deletion that the model's rules refused, a data error; what cannot
    /// run where the command runs (a missing store or file, a program that fails) a runtime
    /// failure.
    init(for error: CLIError) {
        switch error {
        case .missing, .refused, .needsConfirmation: self = .usage
        case .unreadableFile(_, .sql, _), .unreadableFile(_, .migrationScript, _), .unreadableFile(_, .migrationPolicy, _): self = .usage
        case .needsMigration, .modelMismatch, .importRefused: self = .dataError
        case .nothingDeleted(.deleteDenied), .nothingDeleted(.validation), .nothingDeleted(.stringMatching): self = .dataError
        case .noSuchStore, .storeNotWritable, .unreadableFile, .unwritableFile, .outputExists, .unavailable, .programFailed, .declined, .nothingDeleted:
            self = .failure
        case .importCompletedWithProblems: self = .completedWithProblems
        case .importInterrupted: self = .interrupted
        }
    }

    /// A predicate's pattern that the data makes too costly (or that does not compile), a value
    /// whose external data file is missing, or a damaged file is a data error, as it is when
    /// a context reports it; anything else a runtime failure.
    init(for error: DatabaseError) {
        self = error.isDamagedFile || error.functionFailure != nil ? .dataError : .failure
    }

    /// Records that do not fit the model, an identity that cannot identify them, and a model
    /// rule (`strata.invalidIf`) that does not parse are data errors: the input or the model
    /// must change, as for the model's own errors.
    init(for error: ImportError) {
        switch error.problem {
        case .doesNotFit, .notJSON, .unknownEntity, .unknownIdentity, .invalidIf: self = .dataError
        }
    }

    init(for error: ModelError) {
        switch error {
        case .unreadable: self = .failure
        case .unknownVersion: self = .usage
        case .malformed, .invalidContent, .invalid: self = .dataError
        }
    }

    init(for error: StoreError) {
        switch error {
        case .database(let error) where error.functionFailure != nil:
            // What a store's data made a query fail on (a missing external data file, say).
            self = .dataError
        case .notFound, .folderNotFound, .locked, .inUse, .closed, .alreadyExists, .strayJournal, .symbolicLinkLoop, .fileOperation, .database:
            self = .failure
        case .unknownEntity, .unknownProperty, .foreignHistoryToken: self = .usage
        case .noPersistentHistory: self = .dataError
        case .notSQLite, .notACoreDataStore, .modelMismatch, .missingColumn, .conflict, .uniquenessConflict, .modelCacheUnreadable, .invalidModel, .foreignWriteAheadLog:
            self = .dataError
        }
    }

    /// A migration that the store's model, the models or the data refuse is a data error; one
    /// that cannot run where the store is (read-only, in use) a runtime failure.
    init(for error: MigrationError) {
        switch error {
        case .sourceModelNotFound, .unmappable, .dataDoesNotFit, .verificationFailed: self = .dataError
        case .cannotMigrate, .backupFailed, .stepFailed: self = .failure
        case .unknownVersion(_, let error): self.init(for: error)
        case .store(let storeError): self.init(for: storeError)
        case .customStepFailed(_, let error as LuaError): self.init(for: error)
        case .customStepFailed: self = .failure
        case .mappingFailed(_, _, let error as LuaError): self.init(for: error)
        case .mappingFailed: self = .dataError
        }
    }

    /// A script that does not compile is a usage error; one that fails as it runs, a runtime
    /// failure, unless a save it made broke the model's rules.
    init(for error: LuaError) {
        switch error.code {
        case "syntax": self = .usage
        case "validation", "uniqueness": self = .dataError
        default: self = .failure
        }
    }
}
