import Foundation

extension StoreError {
    /// Why an SQLite database is not a Core Data store that can be opened
    /// (``StoreError/notACoreDataStore(path:reason:)``): what of Core Data's bookkeeping it
    /// lacks, or the error of the layer below that read it.
    public enum Defect: Sendable, CustomStringConvertible {
        /// Bookkeeping tables are missing (`Z_PRIMARYKEY`, `Z_METADATA`).
        case missingTables([String])
        /// `Z_METADATA` has no row.
        case noMetadataRow
        /// `Z_PLIST` holds something other than bytes.
        case metadataNotData
        /// `Z_PLIST` is a property list, but not a dictionary.
        case metadataNotADictionary
        /// `Z_PLIST` is not a readable binary property list: the reader's error, with its byte
        /// offset.
        case unreadableMetadata(any Error)
        /// `Z_PRIMARYKEY` has no row for the root entity `entity`.
        case noPrimaryKeyRow(entity: String)
        /// The model the store keeps (`origin`: its model cache, the model recorded in its
        /// metadata, or the one inferred from its tables) breaks a rule of
        /// ``ObjectModel/validate()``: `issue` is the first error.
        case invalidModel(origin: String, issue: ModelIssue)
        /// SQLite reports the file damaged (`SQLITE_CORRUPT`).
        case damaged(DatabaseError)
        /// Opening or reading the store failed with another error, kept as thrown.
        case other(any Error)

        public var description: String {
            switch self {
            case .missingTables(let tables): "it has no \(tables.joined(separator: " or ")) table"
            case .noMetadataRow: "Z_METADATA has no row"
            case .metadataNotData: "the metadata (Z_PLIST) is not a binary property list"
            case .metadataNotADictionary: "the metadata is not a dictionary"
            case .unreadableMetadata(let error): "the metadata cannot be read: \(error)"
            case .noPrimaryKeyRow(let entity): "Z_PRIMARYKEY has no row for \(entity)"
            case .invalidModel(let origin, let issue): "the \(origin) describes an invalid model: \(issue)"
            case .damaged(let error): "the database is damaged (\(error.message))"
            case .other(let error): String(describing: error)
            }
        }
    }
}
