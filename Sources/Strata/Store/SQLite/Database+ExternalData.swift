import CSQLite
import Foundation

extension Database {
    /// The SQL functions of external binary data, on every connection:
    ///
    /// - `NSCoreDataPrependExternalReferenceMarker(length, value)`: Core Data's migrations
    ///   call it when an attribute comes to allow external storage; the value behind the
    ///   inline marker (NULL stays NULL).
    /// - `strata_external_data(value, Z_PK, folder, place)`: Strata's own, the data a column
    ///   value stands for (see ``ExternalBinaryStorage/data(ofStored:place:)``); a missing file
    ///   fails the statement with an ``ExternalDataError`` naming it, `place` and the row.
    /// - `strata_release_external_data(value, folder)`: Strata's own, called by the
    ///   connection's temporary triggers when a row's reference goes (the row deleted, the
    ///   value replaced): its file is removed once the transaction commits.
    func registerExternalDataFunctions() throws(DatabaseError) {
        try defineFunction("NSCoreDataPrependExternalReferenceMarker", arity: 2) { arguments in
            switch arguments[1] {
            case .blob(let data): .blob(Data([ExternalBinaryStorage.inlineMarker]) + data)
            case .text(let text): .blob(Data([ExternalBinaryStorage.inlineMarker]) + Data(text.utf8))
            default: arguments[1]
            }
        }
        try defineFunction("strata_external_data", arity: 4, isDeterministic: false) { arguments throws(ExternalDataError) -> DatabaseValue in
            guard case .blob(let stored) = arguments[0] else { return arguments[0] }
            let storage = ExternalBinaryStorage(folder: arguments[2].stringValue)
            let place = (arguments[3].stringValue ?? "a value") + (arguments[1].int64Value.map { " of p\($0)" } ?? "")
            return .blob(try storage.data(ofStored: stored, place: place))
        }
        let files = transactionFiles, connection = handle
        try defineFunction("strata_release_external_data", arity: 2, isDeterministic: false) { arguments in
            // Only a transaction's release can wait for its commit: a statement that commits
            // by itself might fail after the call, and its file is better left than lost.
            if sqlite3_get_autocommit(connection) == 0, case .blob(let stored) = arguments[0],
                let name = ExternalBinaryStorage.fileName(in: stored), let folder = arguments[1].stringValue {
                files.released.append((folder as NSString).appendingPathComponent(name))
            }
            return .null
        }
    }
}
