/// A JSON value as read from a document, with the place it was read from.
///
/// Objects keep their members in document order, and numbers keep their literal text so that
/// nothing is lost to floating point before the reader knows the value's destination type.
public struct JSONValue: Sendable {
    /// What the value is.
    public enum Kind: Sendable {
        /// JSON `null`.
        case null
        /// `true` or `false`.
        case bool(Bool)
        /// The number's literal text, exactly as written (`-12`, `1.5e3`).
        case number(String)
        /// A string, its escapes decoded.
        case string(String)
        /// An array's elements, in document order.
        case array([JSONValue])
        /// An object's members in document order, repeated keys included.
        case object([JSONMember])
    }

    /// What the value is, with its contents.
    public var kind: Kind
    /// Where the value starts; `nil` for values built in code.
    public var location: SourceLocation?

    /// A value of `kind` that starts at `location`.
    public init(_ kind: Kind, location: SourceLocation? = nil) {
        self.kind = kind
        self.location = location
    }
}

/// One `"key": value` member of a JSON object.
public struct JSONMember: Sendable {
    /// The member's key, its escapes decoded.
    public var key: String
    /// The value the key names, with its own location.
    public var value: JSONValue
    /// Where the key starts; `nil` for members built in code.
    public var keyLocation: SourceLocation?

    /// A member `key: value` whose key starts at `keyLocation`.
    public init(_ key: String, _ value: JSONValue, keyLocation: SourceLocation? = nil) {
        self.key = key
        self.value = value
        self.keyLocation = keyLocation
    }
}

// MARK: - Building values in code

extension JSONValue {
    /// JSON `null`, with no location.
    public static let null = JSONValue(.null)
    /// `true` or `false`, with no location.
    public static func bool(_ value: Bool) -> JSONValue { JSONValue(.bool(value)) }
    /// A string, with no location.
    public static func string(_ value: String) -> JSONValue { JSONValue(.string(value)) }
    /// An integer, written as its decimal digits.
    public static func number<N: BinaryInteger>(_ value: N) -> JSONValue { JSONValue(.number(String(value))) }
    /// A floating-point number, in the shortest text that reads back exactly (`1.5`, `1e+20`);
    /// `null` for infinities and NaN, which JSON cannot hold.
    public static func number(_ value: Double) -> JSONValue {
        value.isFinite ? JSONValue(.number(String(value))) : .null
    }
    /// An array of `values`, with no location.
    public static func array(_ values: [JSONValue]) -> JSONValue { JSONValue(.array(values)) }
    /// An object of `members` in the order given, with no location.
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

    /// The string, if the value is a string.
    public var stringValue: String? {
        if case .string(let value) = kind { return value }
        return nil
    }

    /// The boolean, if the value is `true` or `false`.
    public var boolValue: Bool? {
        if case .bool(let value) = kind { return value }
        return nil
    }

    /// The number as an `Int`, when it is an integer literal that fits.
    public var intValue: Int? {
        if case .number(let text) = kind { return Int(text) }
        return nil
    }

    /// The number as a `Double`, possibly rounded, if the value is a number.
    public var doubleValue: Double? {
        if case .number(let text) = kind { return Double(text) }
        return nil
    }

    /// The elements, if the value is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let values) = kind { return values }
        return nil
    }

    /// The members in document order, if the value is an object.
    public var objectMembers: [JSONMember]? {
        if case .object(let members) = kind { return members }
        return nil
    }

    /// Whether the value is JSON `null`.
    public var isNull: Bool {
        if case .null = kind { return true }
        return false
    }

    /// The value of the member named `key`, if this is an object that has one; of a key
    /// written twice, the last one counts, as in most JSON readers.
    public subscript(key: String) -> JSONValue? {
        objectMembers?.last { $0.key == key }?.value
    }
}
