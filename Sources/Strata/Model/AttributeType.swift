/// The type of an attribute's values, as Xcode's model editor names them.
///
/// ``code`` is Core Data's `NSAttributeType` number, which enters the model version hashes.
public enum AttributeType: String, Sendable, CaseIterable {
    /// Only for transient attributes whose values Core Data does not store.
    case undefined = "Undefined"
    case integer16 = "Integer 16"
    case integer32 = "Integer 32"
    case integer64 = "Integer 64"
    case decimal = "Decimal"
    case double = "Double"
    case float = "Float"
    case string = "String"
    case boolean = "Boolean"
    case date = "Date"
    case binary = "Binary"
    case uuid = "UUID"
    case uri = "URI"
    case transformable = "Transformable"
    case objectID = "ObjectID"

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
        }
    }

    /// Integer 16, 32 or 64.
    public var isInteger: Bool { self == .integer16 || self == .integer32 || self == .integer64 }

    /// Any integer or floating-point type, or Decimal.
    public var isNumeric: Bool { isInteger || self == .decimal || self == .double || self == .float }
}
