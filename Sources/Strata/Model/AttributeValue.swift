import Foundation

/// A typed value of an attribute.
///
/// Model files write values as text (a default value, a minimum); ``init(modelText:type:)``
/// reads such text for an attribute type, so that a model whose text does not fit its type is
/// caught when the model is validated rather than when an object is saved.
///
/// ```swift
/// AttributeValue(modelText: "42", type: .integer16)      // .integer(42)
/// AttributeValue(modelText: "70000", type: .integer16)   // nil: out of range
/// ```
public enum AttributeValue: Sendable, Hashable {
    /// The value of an Integer 16, 32 or 64 attribute.
    case integer(Int64)
    /// The value of a Double or Float attribute.
    case double(Double)
    /// The value of a Decimal attribute, without binary rounding.
    case decimal(Decimal)
    /// The value of a String attribute, exactly as written (not trimmed).
    case string(String)
    /// The value of a Boolean attribute; model files write it `YES` or `NO`.
    case boolean(Bool)
    /// A point in time; model files write it as seconds since 2001-01-01 00:00 UTC.
    case date(Date)
    /// The bytes of a Binary attribute.
    case binary(Data)
    /// The value of a UUID attribute.
    case uuid(UUID)
    /// The value of a URI attribute.
    case uri(URL)

    /// The value that `text` denotes for an attribute of `type`, or `nil` when it does not parse
    /// or is out of the type's range. Binary, Transformable, Object ID and Undefined attributes
    /// have no textual values.
    public init?(modelText text: String, type: AttributeType) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        switch type {
        case .integer16, .integer32, .integer64:
            guard let value = Int64(trimmed), Self.integerRange(of: type).contains(value) else { return nil }
            self = .integer(value)
        case .double, .float:
            guard let value = Double(trimmed), value.isFinite else { return nil }
            if type == .float, abs(value) > Double(Float.greatestFiniteMagnitude) { return nil }
            self = .double(value)
        case .decimal:
            guard Double(trimmed) != nil, let value = Decimal(string: trimmed, locale: Locale(identifier: "en_US_POSIX"))
            else { return nil }
            self = .decimal(value)
        case .string:
            self = .string(text)
        case .boolean:
            switch trimmed.lowercased() {
            case "yes", "true", "1": self = .boolean(true)
            case "no", "false", "0": self = .boolean(false)
            default: return nil
            }
        case .date:
            guard let seconds = Double(trimmed), seconds.isFinite else { return nil }
            self = .date(Date(timeIntervalSinceReferenceDate: seconds))
        case .uuid:
            guard let value = UUID(uuidString: trimmed) else { return nil }
            self = .uuid(value)
        case .uri:
            guard !trimmed.isEmpty, let value = URL(string: trimmed) else { return nil }
            self = .uri(value)
        case .binary, .transformable, .objectID, .undefined, .composite:
            return nil
        }
    }

    /// The values an integer attribute of `type` can hold.
    package static func integerRange(of type: AttributeType) -> ClosedRange<Int64> {
        switch type {
        case .integer16: Int64(Int16.min)...Int64(Int16.max)
        case .integer32: Int64(Int32.min)...Int64(Int32.max)
        default: Int64.min...Int64.max
        }
    }

    /// The value as a number, for comparisons against minimum and maximum values.
    public var numericValue: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .double(let value): value
        case .decimal(let value): NSDecimalNumber(decimal: value).doubleValue
        case .date(let value): value.timeIntervalSinceReferenceDate
        default: nil
        }
    }
}

extension AttributeValue {
    /// The value as `description` shows it: strings quoted, dates in ISO 8601.
    var displayText: String {
        switch self {
        case .integer(let value): String(value)
        case .double(let value): String(value)
        case .decimal(let value): NSDecimalNumber(decimal: value).stringValue
        case .string(let value): "\"\(value)\""
        case .boolean(let value): value ? "true" : "false"
        case .date(let value): value.formatted(.iso8601)
        case .binary(let value): "<\(value.count) bytes>"
        case .uuid(let value): value.uuidString
        case .uri(let value): value.absoluteString
        }
    }
}
