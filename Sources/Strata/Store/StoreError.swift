import Foundation

/// An error opening, creating or reading a store, naming the store and what is wrong with it.
public enum StoreError: Error, Sendable {
    /// No file at the path.
    case notFound(path: String)
    /// The folder a new store was to be created in does not exist.
    case folderNotFound(path: String, folder: String)
    /// The file is not an SQLite database.
    case notSQLite(path: String)
    /// An SQLite database without Core Data's bookkeeping tables, or with damaged metadata:
    /// `reason` says which, with the error of the layer below where one was the cause.
    case notACoreDataStore(path: String, reason: Defect)
    /// The store was made with another model.
    case modelMismatch(path: String, comparison: HashComparison)
    /// The store was closed (by a stack's reset, say) and can no longer be used.
    case closed(path: String)
    /// Another connection holds the store locked beyond the busy timeout.
    case locked(path: String)
    /// Another connection has the store open, which an operation that replaces its files (a
    /// reset) cannot allow: that connection's writes would go to the replaced file and be lost.
    /// `processIDs` names the other processes holding the file, where the system tells them.
    case inUse(path: String, processIDs: [Int32])
    /// A file operation on the store's files (sync, rename, removal) failed with `cause`.
    case fileOperation(path: String, cause: any Error)
    /// A store already exists where a new one was to be created.
    case alreadyExists(path: String)
    /// A `-wal`, `-shm` or `-journal` file lies where a new store was to be created, without its
    /// store: SQLite would take it for the new store's and delete or replay it.
    case strayJournal(path: String)
    /// The symbolic links at the store's path form a loop (or a chain too long to follow):
    /// there is no file to open or create.
    case symbolicLinkLoop(path: String)
    /// The `-wal` beside the store cannot be the store's own (`reason` says why): SQLite would
    /// replay another database's pages into it.
    case foreignWriteAheadLog(path: String, wal: String, reason: String)
    /// An update found the row changed since it was read (`Z_OPT` moved on).
    case conflict(path: String, entity: String, primaryKey: Int64, expectedVersion: Int64, actualVersion: Int64?)
    /// A write would give the row `primaryKey` of `entity` the values another row of the entity
    /// holds in `attributes`, which a uniqueness constraint of the model forbids.
    case uniquenessConflict(path: String, entity: String, primaryKey: Int64, attributes: [String], values: [DatabaseValue])
    /// The model a store was to be created for breaks the rules of ``ObjectModel/validate()``.
    case invalidModel(path: String, issues: [ModelIssue])
    /// The store's model has no entity `name`; `known` lists the entities it has. A context
    /// reports it inside ``ContextError/store(_:)``.
    case unknownEntity(path: String, name: String, known: [String])
    /// `entity` has no property `property` that the operation can use; `known` lists those it
    /// can (the columns of a row write, every property for a context). A context reports it
    /// inside ``ContextError/store(_:)``.
    case unknownProperty(path: String, entity: String, property: String, known: [String])
    /// The store's model could not be recovered from its model cache.
    case modelCacheUnreadable(path: String, cause: any Error)
    /// A history request on a store without Core Data's persistent history tables.
    case noPersistentHistory(path: String)
    /// A history request named a token of another store (`storeUUID` is this store's).
    case foreignHistoryToken(path: String, token: String, storeUUID: String)
    /// A statement needed a column the store's table lacks (see ``PersistentStore/missingColumns``):
    /// `column` names the table, the column and the entity's attribute or relationship it
    /// stands for; `cause` is SQLite's error.
    case missingColumn(path: String, _ column: MissingColumn, cause: DatabaseError)
    /// SQLite failed while the store was read or written; the ``DatabaseError`` carries the file,
    /// the SQL and its arguments.
    case database(DatabaseError)
}

extension StoreError: CustomStringConvertible, LocalizedError {
    /// The store's path followed by what is wrong, such as `Library.sqlite: no such store`; for
    /// ``database(_:)``, the ``DatabaseError``'s own description.
    public var description: String {
        switch self {
        case .notFound(let path): "\(path): no such store"
        case .folderNotFound(let path, let folder): "\(path): cannot create the store: no such folder \(folder)"
        case .notSQLite(let path): "\(path): not an SQLite database"
        case .notACoreDataStore(let path, let reason): "\(path): not a Core Data store: \(reason)"
        case .modelMismatch(let path, let comparison): "\(path): the store was made with another model; \(comparison.summary)"
        case .locked(let path): "\(path): the store is locked by another connection"
        case .closed(let path): "\(path): the store was closed"
        case .inUse(let path, let processIDs):
            "\(path): the store is open in another connection"
                + (processIDs.isEmpty ? "" : " (process\(processIDs.count == 1 ? "" : "es") \(processIDs.map(String.init).joined(separator: ", ")))")
                + "; close it and try again"
        case .fileOperation(let path, let cause): "\(path): \(cause.localizedDescription)"
        case .alreadyExists(let path): "\(path): a store already exists there"
        case .invalidModel(let path, let issues):
            "\(path): the model is invalid: " + issues.filter { $0.severity == .error }.map(\.description).joined(separator: "; ")
        case .strayJournal(let path): "\(path): a journal file lies there without its store; move it away first"
        case .symbolicLinkLoop(let path): "\(path): the symbolic links there form a loop, or a chain of more than \(SymbolicLinks.maximumChain)"
        case .foreignWriteAheadLog(let path, let wal, let reason):
            "\(path): the write-ahead log \(wal) is not this store's (\(reason)); it was left as it is: move it away if it belongs to another database"
        case .conflict(let path, let entity, let key, let expected, let actual):
            "\(path): \(entity) p\(key) was changed by someone else (version \(actual.map(String.init) ?? "deleted"), expected \(expected))"
        case .unknownEntity(let path, let name, let known):
            "\(path): no entity '\(name)'\(didYouMean(name, among: known)); entities: \(known.joined(separator: ", "))"
        case .unknownProperty(let path, let entity, let property, let known):
            "\(path): entity '\(entity)' has no property '\(property)'\(didYouMean(property, among: known)); properties: \(known.joined(separator: ", "))"
        case .modelCacheUnreadable(let path, let cause): "\(path): the model cache cannot be read: \(cause)"
        case .uniquenessConflict(let path, let entity, _, let attributes, let values):
            "\(path): another \(entity) already has \(UniquenessText.values(attributes, values)), which the uniqueness constraint on \(attributes.joined(separator: ", ")) forbids"
        case .noPersistentHistory(let path):
            "\(path): the store keeps no persistent history (no ACHANGE, ATRANSACTION and ATRANSACTIONSTRING tables); open it with history tracking on to start one"
        case .foreignHistoryToken(let path, let token, let storeUUID):
            "\(path): the history token \(token) belongs to another store (this one's UUID is \(storeUUID))"
        case .missingColumn(let path, let column, _):
            "\(path): \(column.entity).\(column.property) cannot be read or written: the store's table \(column.table) has no column \(column.column) "
                + "for this \(column.kind.rawValue) (a store made by hand or by another tool for this model)"
        case .database(let error): error.description
        }
    }

    /// The same text as ``description``, so that `localizedDescription` names the store and what
    /// is wrong with it.
    public var errorDescription: String? { description }
}

/// How a uniqueness conflict's values read: `remoteID 1`, `name "Dune" and year 1965`.
enum UniquenessText {
    static func values(_ attributes: [String], _ values: [DatabaseValue]) -> String {
        zip(attributes, values).map { "\($0) \($1.readable)" }.joined(separator: " and ")
    }
}

extension DatabaseValue {
    /// The value as a message shows it: text quoted, numbers plain.
    var readable: String {
        switch self {
        case .text(let text): "\"\(text)\""
        case .blob(let data): "<\(data.count) bytes>"
        default: description
        }
    }
}
