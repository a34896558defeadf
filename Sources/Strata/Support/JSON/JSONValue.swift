/// A JSON value as read from a document, with the place it was read from.
///
/// Objects keep their members in document order, and numbers keep their literal text so that
/// nothing is lost to floating point before the reader knows the value's destination type.
public struct JSONValue: Sendable {
    /// What the value is.
    public enum Kind: Sendable {
        case null
        case bool(Bool)
        /// The number's literal text, exactly as written (`-12`, `1.5e3`).
        case number(String)
        case string(String)
        case array([JSONValue])
        case object([JSONMember])
    }

    public var kind: Kind
    /// Where the value starts; `nil` for values built in code.
    public var location: SourceLocation?

    public init(_ kind: Kind, location: SourceLocation? = nil) {
        self.kind = kind
        self.location = location
    }
}

/// One `"key": value` member of a JSON object.
public struct JSONMember: Sendable {
    public var key: String
    public var value: JSONValue
    /// Where the key starts; `nil` for members built in code.
    public var keyLocation: SourceLocation?

    public init(_ key: String, _ value: JSONValue, keyLocation: SourceLocation? = nil) {
        self.key = key
        self.value = value
        self.keyLocation = keyLocation
    }
}

// MARK: - Building values in code

extension JSONValue {
    public static let null = JSONValue(.null)
    public static func bool(_ value: Bool) -> JSONValue { JSONValue(.bool(value)) }
    public static func string(_ value: String) -> JSONValue { JSONValue(.string(value)) }
    public static func number<N: BinaryInteger>(_ value: N) -> JSONValue { JSONValue(.number(String(value))) }
    public static func number(_ value: Double) -> JSONValue {
        value.isFinite ? JSONValue(.number(String(value))) : .null
    }
    public static func array(_ values: [JSONValue]) -> JSONValue { JSONValue(.array(values)) }
    public static func object(_ members: [JSONMember]) -> JSONValue { JSONValue(.object(members)) }

    /// An object from `(key, value)` pairs, skipping pairs whose value is `nil`.
    public static func object(_ pairs: KeyValuePairs<String, JSONValue?>) -> JSONValue {
        .object(members(pairs))
    }

    /// Members from `(key, value)` pairs, skipping pairs whose value is `nil`.
    public static func members(_ pairs: KeyValuePairs<String, JSONValue?>) -> [JSONMember] {
        pairs.compactMap { key, value in value.map { JSONMember(key, $0) } }
    }
}

// MARK: - Reading values

extension JSONValue {
    /// A short name of the value's kind, for error messages (`a string`, `an object`).
    public var kindDescription: String {
        switch kind {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    public var stringValue: String? {
        if case .string(let value) = kind { return value }
        return nil
    }

    public var boolValue: Bool? {
        if case .bool(let value) = kind { return value }
        return nil
    }

    /// The number as an `Int`, when it is an integer literal that fits.
    public var intValue: Int? {
        if case .number(let text) = kind { return Int(text) }
        return nil
    }

    public var doubleValue: Double? {
        if case .number(let text) = kind { return Double(text) }
        return nil
    }

    public var arrayValue: [JSONValue]? {
        if case .array(let values) = kind { return values }
        return nil
    }

    public var objectMembers: [JSONMember]? {
        if case .object(let members) = kind { return members }
        return nil
    }

    public var isNull: Bool {
        if case .null = kind { return true }
        return false
    }

    /// The value of the first member named `key`, if this is an object that has one.
    public subscript(key: String) -> JSONValue? {
        objectMembers?.first { $0.key == key }?.value
    }
}
