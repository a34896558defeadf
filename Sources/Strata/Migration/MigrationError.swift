import Foundation

/// Why a migration did not run or did not finish. Whatever the case, the store is as it was.
///
/// ```swift
/// do {
///     try StoreMigrator(storePath: path, bundle: bundle).migrate()
/// } catch let error as MigrationError {
///     print(error)   // Library.sqlite: cannot migrate from Model to Model 2: Book.rating: Double → Integer 32 loses values
/// }
/// ```
public enum MigrationError: Error, Sendable, CustomStringConvertible {
    /// None of the models at hand has the store's version hashes (a store of a model the
    /// bundle does not hold, a later release's say). Version identifiers are labels and are
    /// never compared, so no store is refused for an identifier that sorts after another.
    case sourceModelNotFound(path: String, reason: String)
    /// The model change cannot be inferred: each reason names the entity and property
    /// (lossy type changes, ambiguous renaming identifiers, merged hierarchies).
    case unmappable(path: String, step: String, reasons: [String])
    /// The store's data does not fit the new model: each reason names the entity, property
    /// and rows (nil values of required attributes, duplicates of a new uniqueness
    /// constraint, to-many relationships that became to-one holding several objects).
    case dataDoesNotFit(path: String, step: String, reasons: [String])
    /// A mapping model could not be carried out: an expression, a policy or the save of the
    /// new objects failed, with its error (a ``MigrationManagerError``, a ``ContextError``, a
    /// policy's own).
    case mappingFailed(path: String, step: String, error: any Error & Sendable)
    /// The migrated copy failed its checks before it replaced the store.
    case verificationFailed(path: String, reason: String)
    /// The custom step (a script's data fixes) failed on the migrated copy, with its error.
    case customStepFailed(path: String, error: any Error & Sendable)
    /// The store cannot be migrated where it is (read-only, in use, a file operation failed).
    /// Where a system call failed, `cause` is its `errno` as a value (its text follows
    /// `reason` in the description), such as `EISDIR` when the migrated store could not be
    /// renamed into the store's place.
    case cannotMigrate(path: String, reason: String, cause: POSIXError? = nil)
    /// A version the migration was to go to or through is not one of the bundle's: the
    /// bundle's ``ModelError/unknownVersion(name:bundle:available:)``.
    case unknownVersion(path: String, error: ModelError)
    /// The backup of the store, or of its external data folder (`ofExternalData`), could not
    /// be kept at `backup`, for `cause` (a file system error).
    case backupFailed(path: String, backup: String, ofExternalData: Bool, cause: any Error)
    /// A step failed with an error that is neither the store's nor the migration's own.
    case stepFailed(path: String, step: String, error: any Error)
    /// The store could not be read or the copy written.
    case store(StoreError)

    public var description: String {
        switch self {
        case .sourceModelNotFound(let path, let reason): "\(path): cannot find the model the store was made with: \(reason)"
        case .unmappable(let path, let step, let reasons):
            "\(path): cannot migrate \(step):\n" + reasons.map { "  \($0)" }.joined(separator: "\n")
        case .dataDoesNotFit(let path, let step, let reasons):
            "\(path): the store's data does not fit \(step):\n" + reasons.map { "  \($0)" }.joined(separator: "\n")
        case .mappingFailed(let path, let step, let error): "\(path): cannot migrate \(step) with its mapping model, so the store was left as it was: \(error)"
        case .verificationFailed(let path, let reason): "\(path): the migrated copy failed its check, so the store was left as it was: \(reason)"
        case .customStepFailed(let path, let error): "\(path): the custom step failed, so the store was left as it was: \(error)"
        case .cannotMigrate(let path, let reason, let cause):
            "\(path): cannot migrate: \(reason)" + (cause.map { ": " + String(cString: strerror($0.code.rawValue)) } ?? "")
        case .unknownVersion(let path, let error): "\(path): cannot migrate: \(error)"
        case .backupFailed(let path, let backup, let ofExternalData, let cause):
            "\(path): cannot migrate: cannot keep a backup \(ofExternalData ? "of the external data folder beside" : "at") \(backup): \(cause.localizedDescription)"
        case .stepFailed(let path, let step, let error): "\(path): cannot migrate: \(step): \(error)"
        case .store(let error): error.description
        }
    }
}
