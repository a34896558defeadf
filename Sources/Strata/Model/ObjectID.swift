import Foundation

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
    /// ``key`` in one word (see ``KeyWord``): an ID takes 16 bytes, where the key as an enum
    /// of a UUID made it 25, and 32 in an array.
    private(set) var word: KeyWord

    /// The row the ID names: temporary until the object's first save, then its `Z_PK`.
    public var key: Key {
        get { word.key }
        set { word = KeyWord(newValue) }
    }

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
        self.init(scope: scope, word: KeyWord(key))
    }

    init(scope: ObjectIDScope, word: KeyWord) {
        self.scope = scope
        self.word = word
    }

    /// A new temporary ID in `scope`, unique to this process run and never a row's key.
    static func newTemporary(in scope: ObjectIDScope) -> ObjectID {
        ObjectID(scope: scope, word: .newTemporary())
    }

    /// Whether the object has not been saved yet.
    public var isTemporary: Bool { word.isTemporary }

    /// The row's `Z_PK`, once the object has been saved.
    public var primaryKey: Int64? { word.primaryKey }

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
    // A key has one word (see ``KeyWord``), so comparing words compares keys.
    public static func == (lhs: ObjectID, rhs: ObjectID) -> Bool {
        lhs.word == rhs.word && lhs.scope === rhs.scope
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
        word.bits &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(UInt(bitPattern: ObjectIdentifier(scope)))
    }

    /// The order saves write objects in and validation reports them, the same every run: by
    /// entity name, then saved objects by key, then new ones in the order they were made.
    func precedes(_ other: ObjectID) -> Bool {
        guard scope === other.scope || entityName == other.entityName else { return entityName < other.entityName }
        return word.precedes(other.word)
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
