import Foundation

/// A Swift type that a part of a Transformable attribute's value can be: `String`, `Bool`,
/// `Int`, `Int64`, `Double`, `Date`, `Data`, `URL`, `UUID`, ``TransformableValue`` itself, and
/// arrays, sets and string-keyed dictionaries of them. Arrays, sets and dictionaries of them are
/// ``AttributeRepresentable``, so a typed subclass declares a Transformable attribute as the
/// Swift type its archive holds:
///
/// ```swift
/// final class Book: ManagedObject {
///     @Attribute("tags") var tags: [String]?                      // an archived NSArray of NSString
///     @Attribute("settings") var settings: [String: TransformableValue]?
/// }
/// ```
///
/// Reading a value the archive does not hold as that type stops the program, as any typed
/// property of the wrong type does; ``ManagedObject/transformableValue(forKey:)`` reads any value.
public protocol TransformableRepresentable {
    /// `value` as this type, or `nil` when it is not of this type.
    init?(transformableValue value: TransformableValue)
    /// The transformable value this value stands for.
    var transformableValue: TransformableValue { get }
}

extension TransformableValue: TransformableRepresentable {
    public init?(transformableValue value: TransformableValue) { self = value }
    public var transformableValue: TransformableValue { self }
}

extension String: TransformableRepresentable {
    public init?(transformableValue value: TransformableValue) {
        guard case .string(let string) = value else { return nil }
        self = string
    }
    public var transformableValue: TransformableValue { .string(self) }
}

extension Bool: TransformableRepresentable {
    public init?(transformableValue value: TransformableValue) {
        guard case .bool(let flag) = value else { return nil }
        self = flag
    }
    public var transformableValue: TransformableValue { .bool(self) }
}

extension Int: TransformableRepresentable {
    public init?(transformableValue value: TransformableValue) {
        guard case .integer(let integer) = value, let exact = Int(exactly: integer) else { return nil }
        self = exact
    }
    public var transformableValue: TransformableValue { .integer(Int64(self)) }
}

extension Int64: TransformableRepresentable {
    public init?(transformableValue value: TransformableValue) {
        guard case .integer(let integer) = value else { return nil }
        self = integer
    }
    public var transformableValue: TransformableValue { .integer(self) }
}

extension Double: TransformableRepresentable {
    /// A real, or an integer that a `Double` holds exactly: `NSNumber` does not tell them apart
    /// to an app that reads a `Double`.
    public init?(transformableValue value: TransformableValue) {
        switch value {
        case .real(let real): self = real
        case .integer(let integer):
            guard let exact = Double(exactly: integer) else { return nil }
            self = exact
        default: return nil
        }
    }
    public var transformableValue: TransformableValue { .real(self) }
}

extension Date: TransformableRepresentable {
    public init?(transformableValue value: TransformableValue) {
        guard case .date(let date) = value else { return nil }
        self = date
    }
    public var transformableValue: TransformableValue { .date(self) }
}

extension Data: TransformableRepresentable {
    public init?(transformableValue value: TransformableValue) {
        guard case .data(let data) = value else { return nil }
        self = data
    }
    public var transformableValue: TransformableValue { .data(self) }
}

extension URL: TransformableRepresentable {
    public init?(transformableValue value: TransformableValue) {
        guard case .url(let url) = value else { return nil }
        self = url
    }
    public var transformableValue: TransformableValue { .url(self) }
}

extension UUID: TransformableRepresentable {
    public init?(transformableValue value: TransformableValue) {
        guard case .uuid(let uuid) = value else { return nil }
        self = uuid
    }
    public var transformableValue: TransformableValue { .uuid(self) }
}

extension Array: TransformableRepresentable where Element: TransformableRepresentable {
    /// An array or ordered set whose elements are all of `Element`.
    public init?(transformableValue value: TransformableValue) {
        guard let values = value.arrayValue else { return nil }
        var elements: [Element] = []
        elements.reserveCapacity(values.count)
        for value in values {
            guard let element = Element(transformableValue: value) else { return nil }
            elements.append(element)
        }
        self = elements
    }
    public var transformableValue: TransformableValue { .array(map(\.transformableValue)) }
}

extension Set: TransformableRepresentable where Element: TransformableRepresentable {
    public init?(transformableValue value: TransformableValue) {
        guard case .set(let values) = value else { return nil }
        var elements = Set<Element>()
        for value in values {
            guard let element = Element(transformableValue: value) else { return nil }
            elements.insert(element)
        }
        self = elements
    }
    public var transformableValue: TransformableValue { .set(Set<TransformableValue>(map(\.transformableValue))) }
}

extension Dictionary: TransformableRepresentable where Key == String, Value: TransformableRepresentable {
    public init?(transformableValue value: TransformableValue) {
        guard case .dictionary(let entries) = value else { return nil }
        var dictionary: [String: Value] = [:]
        for (key, entry) in entries {
            guard let converted = Value(transformableValue: entry) else { return nil }
            dictionary[key] = converted
        }
        self = dictionary
    }
    public var transformableValue: TransformableValue { .dictionary(mapValues(\.transformableValue)) }
}

// MARK: - As attribute values

extension TransformableValue: AttributeRepresentable {
    /// The value the archive of a Transformable attribute holds; bytes that are no keyed
    /// archive are ``bytes(_:)``.
    public init?(attributeValue: AttributeValue?) {
        guard case .binary(let data)? = attributeValue else { return nil }
        self = (try? TransformableValue(keyedArchive: data)) ?? .bytes(data)
    }

    /// The archive of the value, as Core Data's default and secure transformers keep it. A
    /// value that cannot be archived (bytes inside an array) stops the program, as Core Data's
    /// archiver raises.
    public var attributeValue: AttributeValue? {
        do {
            return .binary(try storedData(valueTransformerName: nil))
        } catch {
            preconditionFailure("a transformable value cannot be archived: \(error.message)")
        }
    }
}

extension Array: AttributeRepresentable where Element: TransformableRepresentable {
    public init?(attributeValue: AttributeValue?) {
        guard let value = TransformableValue(attributeValue: attributeValue) else { return nil }
        self.init(transformableValue: value)
    }
    public var attributeValue: AttributeValue? { transformableValue.attributeValue }
}

extension Set: AttributeRepresentable where Element: TransformableRepresentable {
    public init?(attributeValue: AttributeValue?) {
        guard let value = TransformableValue(attributeValue: attributeValue) else { return nil }
        self.init(transformableValue: value)
    }
    public var attributeValue: AttributeValue? { transformableValue.attributeValue }
}

extension Dictionary: AttributeRepresentable where Key == String, Value: TransformableRepresentable {
    public init?(attributeValue: AttributeValue?) {
        guard let value = TransformableValue(attributeValue: attributeValue) else { return nil }
        self.init(transformableValue: value)
    }
    public var attributeValue: AttributeValue? { transformableValue.attributeValue }
}
