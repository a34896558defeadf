import Foundation

/// The value of a Transformable attribute: what Core Data's value transformer hands an app,
/// as a Swift value.
///
/// Core Data's default transformer and the secure one (`NSSecureUnarchiveFromData`) keep a
/// value as an `NSKeyedArchiver` archive. The property-list classes those archives hold (as the
/// secure transformer allows them) read as the cases of their own: strings, numbers, dates,
/// data, URLs, UUIDs, `NSNull`, arrays, dictionaries, sets and ordered sets. An object of
/// another class is an ``ArchivedObject``: its class name, and an archive of its own that
/// keeps it as it was. Bytes that are no keyed archive (an app's own transformer) are
/// ``bytes(_:)``.
///
/// ```swift
/// let tags = try book.transformableValue(forKey: "tags")     // .array([.string("fantasy"), .string("classic")])
/// try book.setTransformableValue(.dictionary(["fontSize": .integer(12)]), forKey: "settings")
/// ```
///
/// Writing a value archives it as Apple's archiver does (see ``keyedArchive()``); a value read
/// from a store and not changed keeps its bytes.
public indirect enum TransformableValue: Sendable, Hashable {
    /// `NSNull`.
    case null
    /// A Boolean `NSNumber`.
    case bool(Bool)
    /// An integer `NSNumber`.
    case integer(Int64)
    /// A floating-point `NSNumber`.
    case real(Double)
    /// An `NSString`.
    case string(String)
    /// An `NSDate`.
    case date(Date)
    /// An `NSData`.
    case data(Data)
    /// An `NSURL`, relative to its base URL when it has one.
    case url(URL)
    /// An `NSUUID`.
    case uuid(UUID)
    /// An `NSArray`.
    case array([TransformableValue])
    /// An `NSDictionary` whose keys are strings.
    case dictionary([String: TransformableValue])
    /// An `NSSet`.
    case set(Set<TransformableValue>)
    /// An `NSOrderedSet`.
    case orderedSet([TransformableValue])
    /// An object of another class, or a part of an archive that cannot be read as a value (a
    /// dictionary with keys that are not strings), kept as an archive of its own.
    case object(ArchivedObject)
    /// The whole value, when its bytes are not a keyed archive (an app's own transformer wrote
    /// them): kept as they are. Only a whole value can be bytes.
    case bytes(Data)

    /// The string, when the value is one.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The elements of an array or ordered set.
    public var arrayValue: [TransformableValue]? {
        switch self {
        case .array(let values), .orderedSet(let values): values
        default: nil
        }
    }

    /// The entries of a dictionary.
    public var dictionaryValue: [String: TransformableValue]? {
        if case .dictionary(let value) = self { return value }
        return nil
    }

    /// The value for `key`, when this is a dictionary.
    public subscript(key: String) -> TransformableValue? {
        dictionaryValue?[key]
    }

    /// The names of the classes of ``object(_:)`` values in this value, each once, in the
    /// order met: what an export warns cannot be shown as a value.
    public var archivedClassNames: [String] {
        var names: [String] = []
        func visit(_ value: TransformableValue) {
            switch value {
            case .object(let object): if !names.contains(object.className) { names.append(object.className) }
            case .array(let values), .orderedSet(let values): values.forEach(visit)
            case .set(let values): values.forEach(visit)
            case .dictionary(let entries): entries.values.forEach(visit)
            default: break
            }
        }
        visit(self)
        return names
    }
}

/// An object of a keyed archive that Strata keeps rather than reads: its class name and an
/// archive of its own whose root it is, holding every object it refers to.
public struct ArchivedObject: Sendable, Hashable {
    /// The class the archive names for the object (`$classname`), such as `FigTimeObj`;
    /// `NSString` or `NSNumber` for a plain value at an archive's root.
    public let className: String
    /// An `NSKeyedArchiver` archive whose root is the object.
    public let archive: Data

    /// The object at the root of `archive`, an `NSKeyedArchiver` archive.
    ///
    /// - Throws: ``TransformableValueError`` when `archive` is not a keyed archive.
    public init(archive: Data) throws(TransformableValueError) {
        let parsed: KeyedArchive
        do {
            parsed = try KeyedArchive(data: archive)
        } catch {
            throw TransformableValueError("not an NSKeyedArchiver archive: \(error)")
        }
        self.init(className: Self.className(of: parsed.root, in: parsed), archive: archive)
    }

    init(className: String, archive: Data) {
        self.className = className
        self.archive = archive
    }

    /// The class name of an archived object, or of the Foundation class of a plain value.
    static func className(of object: PropertyListValue, in archive: KeyedArchive) -> String {
        switch object {
        case .string: "NSString"
        case .integer, .real, .bool: "NSNumber"
        case .data: "NSData"
        default: archive.className(of: object) ?? "NSObject"
        }
    }
}

/// Why a transformable value could not be read or written, in words: `not an NSKeyedArchiver
/// archive`, `at [2].name: {"$date": 1} is not a date`.
public struct TransformableValueError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, with the place in the value when there is one.
    public let message: String

    /// An error saying `message`.
    init(_ message: String) {
        self.message = message
    }

    /// An error saying `message` about the part of a value at `path` (`[2].name`; empty for
    /// the whole value): `at [2].name: …`.
    init(at path: String, _ message: String) {
        self.message = path.isEmpty ? message : "at \(path.hasPrefix(".") ? String(path.dropFirst()) : path): \(message)"
    }

    public var description: String { message }
}

extension TransformableValue: CustomStringConvertible {
    /// The value on one line as a person reads it: `["fantasy", "classic"]`,
    /// `{"fontSize": 12}`, dates in ISO 8601, data as its size, an archived object as
    /// `<FigTimeObj>`.
    public var description: String {
        switch self {
        case .null: "null"
        case .bool(let value): value ? "true" : "false"
        case .integer(let value): String(value)
        case .real(let value): String(value)
        case .string(let value): Self.quoted(value)
        case .date(let value): value.formatted(.iso8601)
        case .data(let value): "<\(value.count) bytes>"
        case .url(let value): value.absoluteString
        case .uuid(let value): value.uuidString
        case .array(let values): "[" + values.map(\.description).joined(separator: ", ") + "]"
        case .orderedSet(let values): "OrderedSet[" + values.map(\.description).joined(separator: ", ") + "]"
        case .set(let values): "Set[" + values.map(\.description).sorted().joined(separator: ", ") + "]"
        case .dictionary(let entries):
            "{" + entries.sorted { $0.key < $1.key }.map { "\(Self.quoted($0.key)): \($0.value)" }.joined(separator: ", ") + "}"
        case .object(let object): "<\(object.className)>"
        case .bytes(let data): "<\(data.count) bytes>"
        }
    }

    private static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
