import Foundation

/// A value of an Apple property list, as binary property lists hold them: what Core Data keeps
/// in a store's `Z_METADATA` and, as a keyed archive, in `Z_MODELCACHE`.
package indirect enum PropertyListValue: Sendable, Hashable {
    /// A Boolean (`true` or `false`).
    case bool(Bool)
    /// A signed integer of up to 64 bits, such as `NSPersistenceFrameworkVersion`.
    case integer(Int64)
    /// A floating-point number; 32-bit reals are widened to `Double` when read.
    case real(Double)
    /// A date, stored as seconds since 2001-01-01 00:00 UTC.
    case date(Date)
    /// Raw bytes, such as each entity's 32-byte hash in `NSStoreModelVersionHashes`.
    case data(Data)
    /// A string, such as the `SQLite` of `NSStoreType`.
    case string(String)
    /// A keyed archive's reference to an object in its `$objects` array.
    case uid(UInt64)
    /// An ordered list, such as `NSStoreModelVersionIdentifiers`.
    case array([PropertyListValue])
    /// A dictionary with string keys, such as the metadata itself or `NSStoreModelVersionHashes`.
    case dictionary([String: PropertyListValue])

    /// The string, when the value is one; `nil` otherwise.
    package var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The value as an integer: an `.integer`, or a `.real` with no fraction that fits in `Int64`;
    /// `nil` otherwise.
    var integerValue: Int64? {
        switch self {
        case .integer(let value): value
        case .real(let value) where value.rounded() == value: Int64(exactly: value)
        default: nil
        }
    }

    /// The value as a Boolean: a `.bool`, or an `.integer` (true when not 0); `nil` otherwise.
    package var boolValue: Bool? {
        switch self {
        case .bool(let value): value
        case .integer(let value): value != 0
        default: nil
        }
    }

    /// The bytes, when the value is data; `nil` otherwise.
    package var dataValue: Data? {
        if case .data(let value) = self { return value }
        return nil
    }

    /// The elements, when the value is an array; `nil` otherwise.
    package var arrayValue: [PropertyListValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The entries, when the value is a dictionary; `nil` otherwise.
    var dictionaryValue: [String: PropertyListValue]? {
        if case .dictionary(let value) = self { return value }
        return nil
    }

    /// The value for `key`, when this is a dictionary.
    package subscript(key: String) -> PropertyListValue? {
        dictionaryValue?[key]
    }
}

/// A binary property list that could not be read, with the byte offset where reading failed.
package struct PropertyListError: Error, Sendable, CustomStringConvertible {
    /// What is wrong with the bytes, such as `the trailer is damaged`.
    package var message: String
    /// Where reading failed, in bytes from the start of the property list; `nil` when no single
    /// place is to blame.
    package var offset: Int?

    /// The message, after the byte offset when known: `binary property list, byte 42: …`.
    package var description: String {
        offset.map { "binary property list, byte \($0): \(message)" } ?? "binary property list: \(message)"
    }
}
