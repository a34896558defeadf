/// The type of an attribute's values, as Xcode's model editor names them.
///
/// ``code`` is Core Data's `NSAttributeType` number, which enters the model version hashes.
public enum AttributeType: String, Sendable, CaseIterable {
    /// Only for transient attributes whose values Core Data does not store.
    case undefined = "Undefined"
    /// A 16-bit signed integer (−32768…32767), stored in an `INTEGER` column.
    case integer16 = "Integer 16"
    /// A 32-bit signed integer, stored in an `INTEGER` column.
    case integer32 = "Integer 32"
    /// A 64-bit signed integer, stored in an `INTEGER` column.
    case integer64 = "Integer 64"
    /// A decimal number (`Decimal`), stored in a `DECIMAL` column.
    case decimal = "Decimal"
    /// A 64-bit floating-point number, stored in a `FLOAT` column.
    case double = "Double"
    /// A 32-bit floating-point number, stored in a `FLOAT` column.
    case float = "Float"
    /// Text, stored in a `VARCHAR` column.
    case string = "String"
    /// True or false, stored in an `INTEGER` column.
    case boolean = "Boolean"
    /// A point in time, stored in a `TIMESTAMP` column as seconds since 2001-01-01 00:00 UTC.
    case date = "Date"
    /// Raw bytes (Xcode's Binary Data), stored in a `BLOB` column.
    case binary = "Binary"
    /// A UUID, stored as its 16 raw bytes in a `BLOB` column.
    case uuid = "UUID"
    /// A URL, stored as its text in a `VARCHAR` column.
    case uri = "URI"
    /// A value of a custom class that a value transformer turns into data, stored in a `BLOB` column.
    case transformable = "Transformable"
    /// A managed object's ID, as Core Data's `NSObjectIDAttributeType`.
    case objectID = "ObjectID"
    /// Several named values held as one (iOS 17's composite attributes), described by a
    /// ``CompositeDescription`` of the model; Strata reads and checks such models but does not
    /// store composite values yet.
    case composite = "Composite"

    /// The type of Core Data's `NSAttributeType` raw value, as archived models hold it; `nil`
    /// for another number.
    public init?(code: UInt32) {
        guard let type = Self.allCases.first(where: { $0.code == code }) else { return nil }
        self = type
    }

    /// Core Data's `NSAttributeType` raw value.
    public var code: UInt32 {
        switch self {
        case .undefined: 0
        case .integer16: 100
        case .integer32: 200
        case .integer64: 300
        case .decimal: 400
        case .double: 500
        case .float: 600
        case .string: 700
        case .boolean: 800
        case .date: 900
        case .binary: 1000
        case .uuid: 1100
        case .uri: 1200
        case .transformable: 1800
        case .objectID: 2000
        case .composite: 2100
        }
    }

    /// The name in Strata's JSON model format: Xcode's name in lower camel case (`integer16`).
    public var jsonName: String {
        switch self {
        case .undefined: "undefined"
        case .integer16: "integer16"
        case .integer32: "integer32"
        case .integer64: "integer64"
        case .decimal: "decimal"
        case .double: "double"
        case .float: "float"
        case .string: "string"
        case .boolean: "boolean"
        case .date: "date"
        case .binary: "binary"
        case .uuid: "uuid"
        case .uri: "uri"
        case .transformable: "transformable"
        case .objectID: "objectID"
        case .composite: "composite"
        }
    }

    /// Integer 16, 32 or 64.
    public var isInteger: Bool { self == .integer16 || self == .integer32 || self == .integer64 }

    /// Any integer or floating-point type, or Decimal.
    public var isNumeric: Bool { isInteger || self == .decimal || self == .double || self == .float }
}
