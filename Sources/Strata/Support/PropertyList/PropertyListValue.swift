import Foundation

/// A value of an Apple property list, as binary property lists hold them: what Core Data keeps
/// in a store's `Z_METADATA` and, as a keyed archive, in `Z_MODELCACHE`.
public indirect enum PropertyListValue: Sendable, Hashable {
    case bool(Bool)
    case integer(Int64)
    case real(Double)
    /// A date, stored as seconds since 2001-01-01 00:00 UTC.
    case date(Date)
    case data(Data)
    case string(String)
    /// A keyed archive's reference to an object in its `$objects` array.
    case uid(UInt64)
    case array([PropertyListValue])
    case dictionary([String: PropertyListValue])

    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    public var integerValue: Int64? {
        switch self {
        case .integer(let value): value
        case .real(let value) where value.rounded() == value: Int64(exactly: value)
        default: nil
        }
    }

    public var boolValue: Bool? {
        switch self {
        case .bool(let value): value
        case .integer(let value): value != 0
        default: nil
        }
    }

    public var dataValue: Data? {
        if case .data(let value) = self { return value }
        return nil
    }

    public var arrayValue: [PropertyListValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    public var dictionaryValue: [String: PropertyListValue]? {
        if case .dictionary(let value) = self { return value }
        return nil
    }

    /// The value for `key`, when this is a dictionary.
    public subscript(key: String) -> PropertyListValue? {
        dictionaryValue?[key]
    }
}

/// A binary property list that could not be read, with the byte offset where reading failed.
public struct PropertyListError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var offset: Int?

    public var description: String {
        offset.map { "binary property list, byte \($0): \(message)" } ?? "binary property list: \(message)"
    }
}
