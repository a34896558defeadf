import Foundation

// Core Data matches a store to a model by version hashes: one per entity, built from the
// entity's name and the hashes of its stored properties. The layout below was checked against
// stores Core Data wrote (see ARCHITECTURE.md): integers are little-endian, `[…]` parts are
// present only when the model sets them.

extension ObjectModel {
    /// The version hash of every entity, by name: what a store records as
    /// `NSStoreModelVersionHashes`.
    ///
    /// ```swift
    /// model.entityVersionHashes()["Book"]?.hexString   // "4b2c05cd…"
    /// ```
    public func entityVersionHashes() -> [String: Data] {
        var hashes: [String: Data] = [:]
        for entity in entities { hashes[entity.name] = versionHash(of: entity) }
        return hashes
    }

    /// The version hash of `entity`:
    /// SHA-256(name ‖ u8(isAbstract) ‖ [parent's hash] ‖ property hashes in name order ‖
    /// [versionHashModifier] ‖ [uniqueness constraints]).
    ///
    /// A sub-entity's property hashes are those of its inherited properties and its own,
    /// sorted together by name, as the stores Core Data wrote for models with sub-entities show.
    public func versionHash(of entity: EntityDescription) -> Data {
        versionHash(of: entity, visiting: [])
    }

    private func versionHash(of entity: EntityDescription, visiting: Set<String>) -> Data {
        var bytes = Data(entity.name.utf8)
        bytes.append(entity.isAbstract ? 1 : 0)
        if let parentName = entity.superentityName, let parent = self.entity(named: parentName),
            !visiting.contains(parentName)
        {
            bytes.append(versionHash(of: parent, visiting: visiting.union([entity.name])))
        }
        let lineage = ancestors(of: entity).reversed() + [entity]
        let storedProperties =
            lineage.flatMap(\.attributes).filter { !$0.isTransient }.map { ($0.name, $0.versionHash) }
            + lineage.flatMap(\.relationships).filter { !$0.isTransient }.map { ($0.name, $0.versionHash) }
        for (_, hash) in storedProperties.sorted(by: { $0.0 < $1.0 }) { bytes.append(hash) }
        if let modifier = entity.versionHashModifier { bytes.append(Data(modifier.utf8)) }
        for constraint in entity.uniquenessConstraints.map({ $0.joined(separator: ".") }).sorted() {
            bytes.append(Data(constraint.utf8))
        }
        return SHA256.hash(bytes)
    }

    /// `NSStoreModelVersionChecksumKey`: base64 of SHA-256 over the entity hashes in entity-name order.
    public var versionChecksum: String { Self.versionChecksum(of: entityVersionHashes()) }

    /// `NSStoreModelVersionHashesDigest`: base64 of SHA-512 over each entity's UTF-8 name followed
    /// by its hash, in entity-name order.
    public var versionHashesDigest: String { Self.versionHashesDigest(of: entityVersionHashes()) }

    /// The checksum of entity hashes read from a store or computed by ``entityVersionHashes()``.
    public static func versionChecksum(of hashes: [String: Data]) -> String {
        SHA256.hash(hashes.keys.sorted().reduce(into: Data()) { $0.append(hashes[$1]!) }).base64EncodedString()
    }

    /// The digest of entity hashes read from a store or computed by ``entityVersionHashes()``.
    public static func versionHashesDigest(of hashes: [String: Data]) -> String {
        let bytes = hashes.keys.sorted().reduce(into: Data()) { bytes, name in
            bytes.append(Data(name.utf8))
            bytes.append(hashes[name]!)
        }
        return SHA512.hash(bytes).base64EncodedString()
    }
}

extension AttributeDescription {
    /// SHA-256(property hash ‖ u32(attribute type code) ‖ [0x01 external storage] ‖
    /// [0x01 preserve after deletion]).
    public var versionHash: Data {
        var bytes = propertyVersionHash
        bytes.appendLittleEndian(type.code)
        if allowsExternalBinaryDataStorage { bytes.append(1) }
        if preservesValueInHistoryOnDeletion { bytes.append(1) }
        return SHA256.hash(bytes)
    }
}

extension RelationshipDescription {
    /// SHA-256(property hash ‖ [destination name] ‖ [inverse name] ‖ u32(maxCount) ‖
    /// u32(minCount) ‖ [u16(1) when ordered]).
    public var versionHash: Data {
        var bytes = propertyVersionHash
        bytes.append(Data(destinationEntityName.utf8))
        if let inverseName { bytes.append(Data(inverseName.utf8)) }
        bytes.appendLittleEndian(UInt32(truncatingIfNeeded: maxCount))
        bytes.appendLittleEndian(UInt32(truncatingIfNeeded: minCount))
        if isOrdered { bytes.appendLittleEndian(UInt16(1)) }
        return SHA256.hash(bytes)
    }
}

extension PropertyDescription {
    /// SHA-256(name ‖ u16(isOptional | isTransient << 1 | isReadOnly << 2) ‖ [modifier]): the
    /// part of an attribute's or relationship's hash that every property has. Models from Xcode
    /// have no read-only properties, so that bit is always 0.
    fileprivate var propertyVersionHash: Data {
        var bytes = Data(name.utf8)
        bytes.appendLittleEndian(UInt16((isOptional ? 1 : 0) | (isTransient ? 2 : 0)))
        if let versionHashModifier { bytes.append(Data(versionHashModifier.utf8)) }
        return SHA256.hash(bytes)
    }
}

extension Data {
    fileprivate mutating func appendLittleEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }
}
