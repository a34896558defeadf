import Foundation
import Synchronization

/// The identity of a managed object, safe to pass between contexts and threads.
///
/// An object's ID is temporary from its insertion until its first save, then permanent: the
/// store's UUID, the entity and the row's `Z_PK`. Its URI is Core Data's:
///
/// ```swift
/// book.objectID.uriRepresentation()
/// // x-coredata://3889065F-08A3-48B5-8C1D-C5493B4F9A26/Book/p12
/// ObjectID(uri: url)?.entityName   // "Book"
/// ```
public struct ObjectID: Sendable, Hashable, CustomStringConvertible {
    /// Where the object's row is, or will be once saved.
    public enum Key: Sendable, Hashable {
        /// Not saved yet: a placeholder unique to the object.
        case temporary(UUID)
        /// The row's `Z_PK` in the store.
        case permanent(Int64)
    }

    /// The store and entity the ID belongs to: one shared instance per pair, so that an ID is
    /// copied, hashed and compared as plain bits, without counting references to two strings.
    unowned(unsafe) let scope: ObjectIDScope
    /// The row the ID names: temporary until the object's first save, then its `Z_PK`.
    public var key: Key

    /// The object's entity (a sub-entity's objects name the sub-entity).
    public var entityName: String {
        get { scope.entityName }
        set { self = ObjectID(entityName: newValue, storeIdentifier: storeIdentifier, key: key) }
    }

    /// The UUID of the store the object belongs to.
    public var storeIdentifier: String {
        get { scope.storeIdentifier }
        set { self = ObjectID(entityName: entityName, storeIdentifier: newValue, key: key) }
    }

    /// The ID of the object of `entityName` with `key` in the store whose UUID is `storeIdentifier`.
    public init(entityName: String, storeIdentifier: String, key: Key) {
        self.init(scope: .named(entityName, inStore: storeIdentifier), key: key)
    }

    init(scope: ObjectIDScope, key: Key) {
        self.scope = scope
        self.key = key
    }

    /// Whether the object has not been saved yet.
    public var isTemporary: Bool {
        if case .temporary = key { return true }
        return false
    }

    /// The row's `Z_PK`, once the object has been saved.
    public var primaryKey: Int64? {
        if case .permanent(let key) = key { return key }
        return nil
    }

    /// `x-coredata://<store UUID>/<Entity>/p<Z_PK>`, or `x-coredata:///<Entity>/t<UUID>` while
    /// temporary, as Core Data writes object URIs.
    public func uriRepresentation() -> URL {
        URL(string: uriString)!
    }

    /// ``uriRepresentation()`` as text, made without parsing a URL: what output of many
    /// objects prints.
    public var uriString: String {
        var uri = "x-coredata://"
        uri.reserveCapacity(56 + storeIdentifier.utf8.count + entityName.utf8.count)
        switch key {
        case .permanent(let primaryKey):
            uri += storeIdentifier
            uri += "/"
            uri += entityName
            uri += "/p"
            uri += String(primaryKey)
        case .temporary(let uuid):
            uri += "/"
            uri += entityName
            uri += "/t"
            uri += uuid.uuidString
        }
        return uri
    }

    /// The ID a permanent object URI names; `nil` for another kind of URL.
    public init?(uri: URL) {
        guard uri.scheme == "x-coredata", let store = uri.host, !store.isEmpty else { return nil }
        let parts = uri.path.split(separator: "/")
        guard parts.count == 2, parts[1].first == "p", let primaryKey = Int64(parts[1].dropFirst()), primaryKey > 0 else { return nil }
        self.init(entityName: String(parts[0]), storeIdentifier: store, key: .permanent(primaryKey))
    }

    // Scopes are unique per store and entity, so comparing them by identity compares both names.
    public static func == (lhs: ObjectID, rhs: ObjectID) -> Bool {
        lhs.key == rhs.key && lhs.scope === rhs.scope
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(bits)
    }

    // A context hashes IDs several times per object it inserts, saves or fetches (its identity
    // map, the sets of inserted and deleted objects, re-keying after a save), and the general
    // hasher costs more than the rest of such a look-up. An ID is one word of bits, so a
    // dictionary's seed mixed into it by a 64-bit finalizer (MurmurHash3's `fmix64`) spreads it
    // as well, at a fraction of the cost.
    public func _rawHashValue(seed: Int) -> Int {
        var mixed = bits ^ UInt64(bitPattern: Int64(seed))
        mixed ^= mixed >> 33
        mixed &*= 0xFF51_AFD7_ED55_8CCD
        mixed ^= mixed >> 33
        mixed &*= 0xC4CE_B9FE_1A85_EC53
        mixed ^= mixed >> 33
        return Int(truncatingIfNeeded: mixed)
    }

    /// The key and scope folded into one word: equal IDs fold alike.
    private var bits: UInt64 {
        let scope = UInt64(UInt(bitPattern: ObjectIdentifier(scope)))
        switch key {
        case .permanent(let primaryKey):
            return UInt64(bitPattern: primaryKey) &* 0x9E37_79B9_7F4A_7C15 ^ scope
        case .temporary(let uuid):
            let (high, low) = withUnsafeBytes(of: uuid.uuid) { ($0.loadUnaligned(as: UInt64.self), $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self)) }
            return (high ^ low &* 0xC2B2_AE3D_27D4_EB4F) &* 0x9E37_79B9_7F4A_7C15 ^ scope ^ 1
        }
    }

    /// A new placeholder for a temporary ID: unique to this process run and never a row's key.
    ///
    /// A random 64-bit prefix drawn once per process, then a counter, so that inserting many
    /// objects does not read the system's random source once per object.
    static func newTemporaryKey() -> Key {
        .temporary(temporaryUUID(high: temporaryPrefix, low: temporarySequence.wrappingAdd(1, ordering: .relaxed).newValue))
    }

    /// A temporary key's UUID from two numbers: `high` its first 8 bytes, `low` its last 8,
    /// big-endian, with the top 2 bits of `low` replaced by RFC 4122's variant bits, which
    /// ``temporaryParts(of:)`` takes off again. `high` is kept whole, version nibble included,
    /// so that any temporary ID of that variant comes back as it was.
    static func temporaryUUID(high: UInt64, low: UInt64) -> UUID {
        let low = (low & ((1 << 62) - 1)) | (0b10 << 62)
        var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &uuid) {
            $0.storeBytes(of: high.bigEndian, as: UInt64.self)
            $0.storeBytes(of: low.bigEndian, toByteOffset: 8, as: UInt64.self)
        }
        return UUID(uuid: uuid)
    }

    /// The two numbers of a temporary key's UUID (see ``temporaryUUID(high:low:)``), `low`
    /// without the variant bits, so that keys made one after another count up in it. `nil` for
    /// a permanent ID, or a UUID not of RFC 4122's variant.
    static func temporaryParts(of id: ObjectID) -> (high: UInt64, low: UInt64)? {
        guard case .temporary(let uuid) = id.key else { return nil }
        let (high, low) = withUnsafeBytes(of: uuid.uuid) {
            (UInt64(bigEndian: $0.loadUnaligned(as: UInt64.self)), UInt64(bigEndian: $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
        }
        guard low >> 62 == 0b10 else { return nil }
        return (high, low & ((1 << 62) - 1))
    }

    /// The first 8 bytes of this process's temporary keys, with the version nibble of a
    /// random-kind UUID (4).
    private static let temporaryPrefix = (UInt64.random(in: .min ... .max) & ~0xF000) | 0x4000
    /// An atomic counter rather than a locked one: taking and releasing a lock for every new
    /// object was 3% of `Person(context:)` in case 1's profile (BENCHMARKS.md).
    private static let temporarySequence = Atomic<UInt64>(0)

    /// The order saves write objects in and validation reports them, the same every run: by
    /// entity name, then saved objects by key, then new ones in the order they were made.
    func precedes(_ other: ObjectID) -> Bool {
        guard scope === other.scope || entityName == other.entityName else { return entityName < other.entityName }
        switch (key, other.key) {
        case (.permanent(let lhs), .permanent(let rhs)): return lhs < rhs
        case (.permanent, .temporary): return true
        case (.temporary, .permanent): return false
        case (.temporary(let lhs), .temporary(let rhs)):
            return withUnsafeBytes(of: lhs.uuid) { left in
                withUnsafeBytes(of: rhs.uuid) { right in left.lexicographicallyPrecedes(right) }
            }
        }
    }

    /// `<Book p12>` or `<Book t…>`.
    public var description: String {
        switch key {
        case .permanent(let primaryKey): "<\(entityName) p\(primaryKey)>"
        case .temporary(let uuid): "<\(entityName) t\(uuid.uuidString.prefix(8))>"
        }
    }
}

/// The store and entity of object IDs, made once per pair for the life of the process (there are
/// as many as entities in the stores a process opens): an ``ObjectID`` points at one without
/// owning it, which keeps IDs plain values that cost no reference counting.
final class ObjectIDScope: Sendable {
    let entityName: String
    let storeIdentifier: String

    private init(entityName: String, storeIdentifier: String) {
        self.entityName = entityName
        self.storeIdentifier = storeIdentifier
    }

    /// The scope of `entityName` in the store `storeIdentifier`.
    static func named(_ entityName: String, inStore storeIdentifier: String) -> ObjectIDScope {
        scopes.withLock { scopes in
            let name = Name(entityName: entityName, storeIdentifier: storeIdentifier)
            if let scope = scopes[name] { return scope }
            let scope = ObjectIDScope(entityName: entityName, storeIdentifier: storeIdentifier)
            scopes[name] = scope
            return scope
        }
    }

    private struct Name: Hashable {
        let entityName: String
        let storeIdentifier: String
    }

    /// Never emptied: IDs point at their scope without keeping it alive.
    private static let scopes = Locked<[Name: ObjectIDScope]>([:])
}
