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

    /// The object's entity (a sub-entity's objects name the sub-entity).
    public var entityName: String
    /// The UUID of the store the object belongs to.
    public var storeIdentifier: String
    public var key: Key

    public init(entityName: String, storeIdentifier: String, key: Key) {
        self.entityName = entityName
        self.storeIdentifier = storeIdentifier
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
        switch key {
        case .permanent(let primaryKey): URL(string: "x-coredata://\(storeIdentifier)/\(entityName)/p\(primaryKey)")!
        case .temporary(let uuid): URL(string: "x-coredata:///\(entityName)/t\(uuid.uuidString)")!
        }
    }

    /// The ID a permanent object URI names; `nil` for another kind of URL.
    public init?(uri: URL) {
        guard uri.scheme == "x-coredata", let store = uri.host, !store.isEmpty else { return nil }
        let parts = uri.path.split(separator: "/")
        guard parts.count == 2, parts[1].first == "p", let primaryKey = Int64(parts[1].dropFirst()), primaryKey > 0 else { return nil }
        self.init(entityName: String(parts[0]), storeIdentifier: store, key: .permanent(primaryKey))
    }

    /// `<Book p12>` or `<Book t…>`.
    public var description: String {
        switch key {
        case .permanent(let primaryKey): "<\(entityName) p\(primaryKey)>"
        case .temporary(let uuid): "<\(entityName) t\(uuid.uuidString.prefix(8))>"
        }
    }
}
