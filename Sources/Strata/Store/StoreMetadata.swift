import Foundation

/// A store's metadata: the `Z_METADATA` row, with the store UUID and the binary property list
/// that records which model the store was made with.
///
/// Keys Strata does not know are kept as they are and written back unchanged.
///
/// ```swift
/// let metadata = try StoreMetadata(reading: database)
/// metadata.comparison(with: model).isMatch   // the store was made with this model
/// ```
public struct StoreMetadata: Sendable, Equatable {
    /// The store's UUID, the host of its object URIs (`x-coredata://<UUID>/Book/p1`).
    public var uuid: String
    /// Every key of the metadata property list.
    package var properties: [String: PropertyListValue]

    /// The Core Data framework version Strata records in stores it creates: the newest seen in
    /// the Core Data stores Strata was checked against.
    public static let frameworkVersion: Int64 = 1522

    /// Metadata with the given store UUID (`Z_UUID`) and property list keys (`Z_PLIST`), taken
    /// as they are.
    package init(uuid: String, properties: [String: PropertyListValue]) {
        self.uuid = uuid
        self.properties = properties
    }

    /// The metadata Core Data writes into a new store for `model`, as the release
    /// `frameworkVersion` writes it.
    public init(model: ObjectModel, uuid: String = UUID().uuidString, frameworkVersion: Int64 = Self.frameworkVersion) {
        let hashes = model.entityVersionHashes()
        self.init(uuid: uuid, properties: [
            "NSStoreType": .string("SQLite"),
            "NSPersistenceFrameworkVersion": .integer(frameworkVersion),
            "NSPersistenceMaximumFrameworkVersion": .integer(frameworkVersion),
            "NSStoreModelVersionHashes": .dictionary(hashes.mapValues(PropertyListValue.data)),
            "NSStoreModelVersionHashesVersion": .integer(3),
            "NSStoreModelVersionIdentifiers": .array([.string(model.versionIdentifier)]),
            "NSStoreModelVersionChecksumKey": .string(ObjectModel.versionChecksum(of: hashes)),
            "NSStoreModelVersionHashesDigest": .string(ObjectModel.versionHashesDigest(of: hashes)),
            "_NSAutoVacuumLevel": .string("2"),
            Self.modelKey: .data(Data(JSONModelWriter.string(for: model).utf8)),
        ])
    }

    /// The metadata key under which Strata records the store's model in its JSON model format,
    /// so that a store Strata made can be opened without its model file. Core Data keeps
    /// metadata keys it does not know, and ignores them.
    public static let modelKey = "StrataModel"

    /// The model Strata recorded in the metadata, when there is one and its version hashes are
    /// still the store's (a tool that migrated the store would have left it stale).
    public func recordedModel() -> ObjectModel? {
        guard let data = properties[Self.modelKey]?.dataValue,
            let model = try? JSONModelReader.read(data, path: "\(Self.modelKey) metadata", compilesPatterns: false),
            model.entityVersionHashes() == entityVersionHashes
        else { return nil }
        return model
    }

    // MARK: - Known keys

    /// `NSStoreModelVersionHashes`: entity name → 32-byte version hash.
    public var entityVersionHashes: [String: Data] {
        properties["NSStoreModelVersionHashes"]?.dictionaryValue?.compactMapValues(\.dataValue) ?? [:]
    }

    /// `NSPersistenceFrameworkVersion`: the Core Data version that last wrote the store.
    public var frameworkVersion: Int64? { properties["NSPersistenceFrameworkVersion"]?.integerValue }

    /// `NSStoreType`, `SQLite` for every store Strata reads.
    public var storeType: String? { properties["NSStoreType"]?.stringValue }

    /// `NSStoreModelVersionIdentifiers`: the model's version identifiers.
    public var versionIdentifiers: [String] {
        properties["NSStoreModelVersionIdentifiers"]?.arrayValue?.compactMap(\.stringValue) ?? []
    }

    // MARK: - Reading and writing

    /// Reads the `Z_METADATA` row of `database`.
    public init(reading database: Database) throws(StoreError) {
        let rows: [[DatabaseValue]]
        do {
            rows = try database.rows("SELECT Z_UUID, Z_PLIST FROM Z_METADATA ORDER BY Z_VERSION LIMIT 1")
        } catch {
            throw .database(error)
        }
        guard let row = rows.first else {
            throw .notACoreDataStore(path: database.path, reason: .noMetadataRow)
        }
        let properties: [String: PropertyListValue]
        if !row[1].isNull, row[1].dataValue == nil {
            throw .notACoreDataStore(path: database.path, reason: .metadataNotData)
        }
        if let plist = row[1].dataValue, !plist.isEmpty {
            do {
                guard let dictionary = try BinaryPropertyListReader.read(plist).dictionaryValue else {
                    throw StoreError.notACoreDataStore(path: database.path, reason: .metadataNotADictionary)
                }
                properties = dictionary
            } catch let error as PropertyListError {
                throw .notACoreDataStore(path: database.path, reason: .unreadableMetadata(error))
            } catch {
                throw .notACoreDataStore(path: database.path, reason: .metadataNotADictionary)
            }
        } else {
            properties = [:]
        }
        self.init(uuid: row[0].stringValue ?? "", properties: properties)
    }

    /// Writes the metadata as the `Z_METADATA` row (`Z_VERSION` 1) of `database`.
    public func write(to database: Database) throws(DatabaseError) {
        try database.execute(
            "INSERT OR REPLACE INTO Z_METADATA (Z_VERSION, Z_UUID, Z_PLIST) VALUES (1, ?, ?)",
            [.text(uuid), .blob(BinaryPropertyListWriter.data(for: .dictionary(properties)))])
    }

    // MARK: - Matching a model

    /// How the store's entity hashes compare with `model`'s.
    ///
    /// - Parameter storeModel: the model the store keeps (Core Data's `Z_MODELCACHE`), if read.
    ///   Strata's version hash does not reproduce Core Data's for every entity: for one with a
    ///   derived attribute it differs, for a reason not yet found (CoreDataPlus's `Book`). An
    ///   entity whose hash, computed from the store's own model, misses the hash the store
    ///   recorded is compared with that model instead, both hashed by Strata; any other entity
    ///   must match the recorded hash. (Inferred: a model that equals the store's own one in
    ///   every part Strata hashes is taken for the store's.)
    public func comparison(with model: ObjectModel, storeModel: ObjectModel? = nil) -> HashComparison {
        let modelHashes = model.entityVersionHashes()
        var comparison = HashComparison(store: entityVersionHashes, model: modelHashes)
        guard let storeModel, !comparison.changed.isEmpty else { return comparison }
        let storeModelHashes = storeModel.entityVersionHashes()
        comparison.changed.removeAll { name in
            guard let own = storeModelHashes[name] else { return false }
            return own != entityVersionHashes[name] && own == modelHashes[name]
        }
        return comparison
    }
}
