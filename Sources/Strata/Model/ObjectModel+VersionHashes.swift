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
    ///
    /// The hashes are computed once per model value and change of its entities: opening a
    /// store compares them several times, and a migration compares every version of a bundle.
    public func entityVersionHashes() -> [String: Data] {
        versionHashMemo.hashes {
            var hasher = EntityHasher(model: self)
            var hashes: [String: Data] = [:]
            for entity in entities { hashes[entity.name] = hasher.hash(of: entity) }
            return hashes
        }
    }

    /// The version hash of `entity`:
    /// SHA-256(name ‖ u8(isAbstract) ‖ [parent's hash] ‖ property hashes in name order ‖
    /// [versionHashModifier] ‖ [uniqueness constraints]).
    ///
    /// A sub-entity's property hashes are those of its inherited properties and its own,
    /// sorted together by name, as the stores Core Data wrote for models with sub-entities show.
    public func versionHash(of entity: EntityDescription) -> Data {
        var hasher = EntityHasher(model: self)
        return hasher.hash(of: entity)
    }
}

/// A model's entity version hashes, made on first use. A class, so that the copies of one model
/// value share what one of them computed; `ObjectModel` replaces it when its entities change.
final class VersionHashMemo: Sendable {
    private let computed = Locked<[String: Data]?>(nil)

    /// The hashes made before, else those `make` returns, kept for the next call. Two threads
    /// asking at once may both compute them (the same hashes); `make` runs outside the lock.
    func hashes(orMake make: () -> [String: Data]) -> [String: Data] {
        if let known = computed.withLock({ $0 }) { return known }
        let made = make()
        computed.withLock { $0 = made }
        return made
    }
}

/// Hashes a model's entities, each once: an entity's hash holds its parent's, and the hashes of
/// its inherited properties, so both are kept for its sub-entities. Hashing every entity of a
/// hierarchy then computes each entity's and each property's hash once, and copies each
/// entity's inherited property hashes once, where recomputing them made a chain of entities
/// cubic in its depth (200 levels took a minute).
struct EntityHasher {
    let model: ObjectModel
    /// The hashes made so far, by entity name.
    private var entityHashes: [String: Data] = [:]
    /// Each hashed entity's stored properties, inherited and its own, sorted by name, with
    /// their hashes.
    private var propertyHashes: [String: [(name: String, hash: Data)]] = [:]
    /// How many entity hashes were computed (rather than found made): what keeps the work linear.
    private(set) var computedEntityHashes = 0

    init(model: ObjectModel) {
        self.model = model
    }

    mutating func hash(of entity: EntityDescription) -> Data {
        // Only the model's own entity is remembered: a changed copy under its name is not it.
        let isModels = model.entity(named: entity.name) == entity
        if isModels, let known = entityHashes[entity.name] { return known }
        // The entity and its ancestors not hashed yet, nearest first, gathered without
        // recursion: a deep hierarchy must not exhaust a thread's stack.
        var pending = [entity]
        var seen: Set<String> = [entity.name]
        var next = entity.superentityName
        while let name = next, entityHashes[name] == nil, let parent = model.entity(named: name) {
            // A cycle of parents (which validation refuses) has no root to start from.
            guard seen.insert(name).inserted else { return cyclicHash(of: entity, visiting: []) }
            pending.append(parent)
            next = parent.superentityName
        }
        var result = Data()
        for (index, current) in pending.enumerated().reversed() {
            var parentHash: Data?
            var inherited: [(name: String, hash: Data)] = []
            if let parentName = current.superentityName, let known = entityHashes[parentName] {
                parentHash = known
                inherited = propertyHashes[parentName] ?? []
            }
            let properties = Self.merged(inherited, Self.ownPropertyHashes(of: current))
            result = Self.hash(of: current, parentHash: parentHash, properties: properties.map(\.hash))
            computedEntityHashes += 1
            if index > 0 || isModels {
                entityHashes[current.name] = result
                propertyHashes[current.name] = properties
            }
        }
        return result
    }

    /// The hash of an entity on (or below) a cycle of parents, computed as the format says
    /// without remembering anything: each parent's hash made as if the entity were not its
    /// descendant, and the properties of the ancestors up to the cycle, as
    /// ``ObjectModel/ancestors(of:)`` gives them.
    private mutating func cyclicHash(of entity: EntityDescription, visiting: Set<String>) -> Data {
        computedEntityHashes += 1
        var parentHash: Data?
        if let parentName = entity.superentityName, let parent = model.entity(named: parentName), !visiting.contains(parentName) {
            parentHash = cyclicHash(of: parent, visiting: visiting.union([entity.name]))
        }
        let lineage = model.ancestors(of: entity).reversed() + [entity]
        let properties = lineage.map(Self.ownPropertyHashes).reduce([], Self.merged)
        return Self.hash(of: entity, parentHash: parentHash, properties: properties.map(\.hash))
    }

    /// The entity's own stored attributes and relationships with their hashes, sorted by name
    /// (attributes before relationships of the same name, as a stable sort leaves them).
    private static func ownPropertyHashes(of entity: EntityDescription) -> [(name: String, hash: Data)] {
        let stored = entity.attributes.filter { !$0.isTransient }.map { ($0.name, $0.versionHash) }
            + entity.relationships.filter { !$0.isTransient }.map { ($0.name, $0.versionHash) }
        return stored.enumerated().sorted { ($0.element.0, $0.offset) < ($1.element.0, $1.offset) }.map { (name: $0.element.0, hash: $0.element.1) }
    }

    /// Two lists sorted by name, merged into one: the first's entries before the second's of
    /// the same name.
    private static func merged(_ first: [(name: String, hash: Data)], _ second: [(name: String, hash: Data)]) -> [(name: String, hash: Data)] {
        var result: [(name: String, hash: Data)] = []
        result.reserveCapacity(first.count + second.count)
        var (i, j) = (0, 0)
        while i < first.count || j < second.count {
            if j == second.count || (i < first.count && first[i].name <= second[j].name) {
                result.append(first[i])
                i += 1
            } else {
                result.append(second[j])
                j += 1
            }
        }
        return result
    }

    private static func hash(of entity: EntityDescription, parentHash: Data?, properties: [Data]) -> Data {
        var bytes = Data(entity.name.utf8)
        bytes.append(entity.isAbstract ? 1 : 0)
        if let parentHash { bytes.append(parentHash) }
        for hash in properties { bytes.append(hash) }
        if let modifier = entity.versionHashModifier { bytes.append(Data(modifier.utf8)) }
        for constraint in entity.uniquenessConstraints.map({ $0.joined(separator: ".") }).sorted() {
            bytes.append(Data(constraint.utf8))
        }
        return SHA256.hash(bytes)
    }
}

extension ObjectModel {
    /// `NSStoreModelVersionChecksumKey`: base64 of SHA-256 over the entity hashes in entity-name order.
    package var versionChecksum: String { Self.versionChecksum(of: entityVersionHashes()) }

    /// `NSStoreModelVersionHashesDigest`: base64 of SHA-512 over each entity's UTF-8 name followed
    /// by its hash, in entity-name order.
    package var versionHashesDigest: String { Self.versionHashesDigest(of: entityVersionHashes()) }

    /// The checksum of entity hashes read from a store or computed by ``entityVersionHashes()``.
    package static func versionChecksum(of hashes: [String: Data]) -> String {
        SHA256.hash(hashes.keys.sorted().reduce(into: Data()) { $0.append(hashes[$1]!) }).base64EncodedString()
    }

    /// The digest of entity hashes read from a store or computed by ``entityVersionHashes()``.
    package static func versionHashesDigest(of hashes: [String: Data]) -> String {
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
