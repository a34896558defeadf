import Foundation

// How the property-list classes lie in an NSKeyedArchiver archive. Confirmed on the stores of
// the shared fixtures (Final Cut Pro's `dictionaryData`, written by macOS's archiver; CoreDataPlus's
// and BookMigration's transformables): strings, numbers and booleans as plain values, NSData as
// plain data and NSMutableData as `NS.data`, NSDate as `NS.time` (seconds since 2001), NSNull
// as an object with no fields, NSArray, NSMutableArray, NSSet as `NS.objects`, NSDictionary and
// NSMutableDictionary as `NS.keys` and `NS.objects`, and each class description as `$classname`
// with `$classes` up to NSObject. Not seen on a store, and taken from swift-corelibs-foundation's
// archiver, which follows Apple's: NSURL as `NS.base` (`$null` without a base) and `NS.relative`,
// NSUUID as `NS.uuidbytes`, NSOrderedSet as `NS.object.0`, `NS.object.1`, …. Read but seen in no
// archive here, and never written: NSMutableString as `NS.string` and the numbered keys of older
// archives (`NS.key.0`, `NS.object.0`) for arrays, sets and dictionaries.

extension TransformableValue {
    /// The most values, objects kept as archives counted with the objects they hold, that one
    /// archive may read as: a small archive whose objects refer to one another many times could
    /// otherwise stand for a value too large for memory. An archive that stands for more is
    /// kept whole, as an ``ArchivedObject``.
    static let maximumDecodedCount = 1_000_000
    /// How deeply containers may nest before the rest is kept as an archive.
    package static let maximumDepth = 512

    /// The value an `NSKeyedArchiver` archive holds. Objects of classes other than the
    /// property-list ones, and parts that no value can stand for (a dictionary with keys that are
    /// not strings, a container inside itself), are ``ArchivedObject``s; a root object of such a
    /// class keeps `data` itself as its archive.
    ///
    /// - Throws: ``TransformableValueError`` when `data` is not a keyed archive.
    public init(keyedArchive data: Data) throws(TransformableValueError) {
        try self.init(keyedArchive: data, decodedCountLimit: Self.maximumDecodedCount)
    }

    /// ``init(keyedArchive:)`` with another limit than ``maximumDecodedCount``.
    init(keyedArchive data: Data, decodedCountLimit: Int) throws(TransformableValueError) {
        let archive: KeyedArchive
        do {
            archive = try KeyedArchive(data: data)
        } catch {
            throw TransformableValueError("not an NSKeyedArchiver archive: \(error.description)")
        }
        var decoder = ArchiveDecoder(archive: archive, limit: decodedCountLimit)
        let rootClass = ArchivedObject.className(of: archive.root, in: archive)
        guard let value = decoder.value(at: archive.rootIndex, depth: 0) else {
            self = .object(ArchivedObject(className: rootClass, archive: data))
            return
        }
        if case .object(let object) = value, decoder.keptRoot {
            self = .object(ArchivedObject(className: object.className, archive: data))
        } else {
            self = value
        }
    }

    /// The value as an `NSKeyedArchiver` archive in a binary property list, laid out as Apple's
    /// archiver lays it out (see the top of this file): property-list classes under their
    /// immutable names (an `NSMutableDictionary` read from a store is written as an
    /// `NSDictionary`), dictionary keys and set members in a stable order, ``ArchivedObject``s
    /// with the objects they hold. An ``object(_:)`` value is its archive as it is.
    ///
    /// - Throws: ``TransformableValueError`` for ``bytes(_:)``, which is no archive, and for an
    ///   archived object whose archive is damaged.
    public func keyedArchive() throws(TransformableValueError) -> Data {
        if case .object(let object) = self { return object.archive }
        var encoder = ArchiveEncoder()
        let root = try encoder.reference(self, path: "")
        return encoder.writer.data(root: root)
    }
}

/// Reads the values of an archive's objects, keeping what it cannot read as archives of their own.
private struct ArchiveDecoder {
    let archive: KeyedArchive
    /// The objects being read, to keep a container that holds itself.
    var open: Set<Int> = []
    var count = 0
    let limit: Int
    /// Whether the root object was kept as an archive.
    var keptRoot = false

    init(archive: KeyedArchive, limit: Int) {
        self.archive = archive
        self.limit = limit
    }

    /// The value of the object at `index`; `nil` once the archive stands for more than
    /// ``TransformableValue/maximumDecodedCount`` values.
    mutating func value(at index: Int, depth: Int) -> TransformableValue? {
        count += 1
        guard count <= limit else { return nil }
        guard index > 0, index < archive.objects.count else { return .null }
        let object = archive.objects[index]
        switch object {
        case .string(let value): return .string(value)
        case .integer(let value): return .integer(value)
        case .real(let value): return .real(value)
        case .bool(let value): return .bool(value)
        case .data(let value): return .data(value)
        case .date(let value): return .date(value)
        case .dictionary(let fields):
            guard depth < TransformableValue.maximumDepth, !open.contains(index), let className = archive.className(of: object) else {
                return kept(index, depth: depth)
            }
            open.insert(index)
            defer { open.remove(index) }
            switch known(className, fields, depth: depth) {
            case .value(let value): return value
            case .unreadable: return kept(index, depth: depth)
            case .tooLarge: return nil
            }
        default:
            return kept(index, depth: depth)
        }
    }

    private enum Reading {
        case value(TransformableValue)
        /// The object is not of a property-list class, or not laid out as one.
        case unreadable
        case tooLarge
    }

    /// The value of an object of class `className` with `fields`, when it is one of the
    /// property-list classes laid out as such.
    private mutating func known(_ className: String, _ fields: [String: PropertyListValue], depth: Int) -> Reading {
        switch className {
        case "NSNull":
            return .value(.null)
        case "NSString", "NSMutableString":
            return plain(fields["NS.string"]).flatMap(\.stringValue).map { .value(.string($0)) } ?? .unreadable
        case "NSData", "NSMutableData":
            return plain(fields["NS.data"]).flatMap(\.dataValue).map { .value(.data($0)) } ?? .unreadable
        case "NSDate":
            switch plain(fields["NS.time"]) {
            case .real(let seconds)?: return .value(.date(Date(timeIntervalSinceReferenceDate: seconds)))
            case .integer(let seconds)?: return .value(.date(Date(timeIntervalSinceReferenceDate: Double(seconds))))
            default: return .unreadable
            }
        case "NSUUID":
            guard let bytes = plain(fields["NS.uuidbytes"])?.dataValue, bytes.count == 16 else { return .unreadable }
            let b = [UInt8](bytes)
            return .value(.uuid(UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))))
        case "NSURL":
            return url(fields, depth: depth)
        case "NSArray", "NSMutableArray", "NSSet", "NSMutableSet", "NSOrderedSet", "NSMutableOrderedSet":
            guard let references = Self.references(in: fields, list: "NS.objects", numbered: "NS.object.") else { return .unreadable }
            var values: [TransformableValue] = []
            for reference in references {
                guard case .uid(let index) = reference else { return .unreadable }
                guard let value = value(at: Self.index(index), depth: depth + 1) else { return .tooLarge }
                values.append(value)
            }
            if className.hasSuffix("OrderedSet") { return .value(.orderedSet(values)) }
            return .value(className.hasSuffix("Set") ? .set(Set(values)) : .array(values))
        case "NSDictionary", "NSMutableDictionary":
            guard let keys = Self.references(in: fields, list: "NS.keys", numbered: "NS.key."),
                let values = Self.references(in: fields, list: "NS.objects", numbered: "NS.object."), keys.count == values.count
            else { return .unreadable }
            var entries: [String: TransformableValue] = [:]
            for (key, value) in zip(keys, values) {
                guard case .uid(let keyIndex) = key, case .uid(let valueIndex) = value else { return .unreadable }
                guard let name = self.value(at: Self.index(keyIndex), depth: depth + 1) else { return .tooLarge }
                // An NSDictionary may have numbers or other objects as keys; JSON and Lua cannot.
                guard case .string(let text) = name, entries[text] == nil else { return .unreadable }
                guard let item = self.value(at: Self.index(valueIndex), depth: depth + 1) else { return .tooLarge }
                entries[text] = item
            }
            return .value(.dictionary(entries))
        default:
            return .unreadable
        }
    }

    private mutating func url(_ fields: [String: PropertyListValue], depth: Int) -> Reading {
        guard let relative = plain(fields["NS.relative"])?.stringValue else { return .unreadable }
        var base: URL?
        if case .uid(let index)? = fields["NS.base"], index != 0 {
            guard let value = value(at: Self.index(index), depth: depth + 1) else { return .tooLarge }
            guard case .url(let url) = value else { return .unreadable }
            base = url
        }
        guard let url = URL(string: relative, relativeTo: base) else { return .unreadable }
        return .value(.url(url))
    }

    /// A field's plain value, following a reference to it.
    private func plain(_ field: PropertyListValue?) -> PropertyListValue? {
        guard case .uid(let index)? = field else { return field }
        let position = Self.index(index)
        guard position > 0, position < archive.objects.count else { return nil }
        let object = archive.objects[position]
        if case .dictionary = object { return nil }
        return object
    }

    /// The object at `index`, kept as an archive of its own whose root it is; the root object,
    /// met first at `depth` 0, as the whole archive, which the caller holds.
    private mutating func kept(_ index: Int, depth: Int) -> TransformableValue? {
        let className = ArchivedObject.className(of: archive.objects[index], in: archive)
        if depth == 0 {
            keptRoot = true
            return .object(ArchivedObject(className: className, archive: Data()))
        }
        var writer = KeyedArchiveWriter()
        let root = writer.copy(from: archive, index: index)
        count += writer.objects.count
        guard count <= limit else { return nil }
        return .object(ArchivedObject(className: className, archive: writer.data(root: root)))
    }

    /// A list of references: the array `list`, or the numbered keys `numbered0`, `numbered1`, …
    /// of older archives; `nil` when the fields hold neither.
    private static func references(in fields: [String: PropertyListValue], list: String, numbered: String) -> [PropertyListValue]? {
        if let references = fields[list] { return references.arrayValue }
        var references: [PropertyListValue] = []
        while let reference = fields[numbered + String(references.count)] { references.append(reference) }
        // An object with numbered keys beyond those read is not a list of this layout.
        let numberedCount = fields.keys.count { $0.hasPrefix(numbered) }
        return numberedCount == references.count ? references : nil
    }

    private static func index(_ uid: UInt64) -> Int {
        uid > UInt64(Int.max) ? -1 : Int(uid)
    }
}

/// Writes values as the objects of an archive.
private struct ArchiveEncoder {
    var writer = KeyedArchiveWriter()
    /// The reference to the archive's NSNull, once written.
    var null: PropertyListValue?

    /// The reference to `value`, encoded at `path` (for messages) in the value being written.
    mutating func reference(_ value: TransformableValue, path: String) throws(TransformableValueError) -> PropertyListValue {
        switch value {
        case .bool(let flag): return writer.plain(.bool(flag))
        case .integer(let integer): return writer.plain(.integer(integer))
        case .real(let real): return writer.plain(.real(real))
        case .string(let string): return writer.plain(.string(string))
        case .data(let data): return writer.plain(.data(data))
        case .null:
            // One NSNull, as NSNull is a single object in Foundation.
            if let null { return null }
            let index = writer.reserve()
            writer.fill(index, className: "NSNull", fields: [:])
            null = .uid(UInt64(index))
            return .uid(UInt64(index))
        case .date(let date):
            let index = writer.reserve()
            writer.fill(index, className: "NSDate", fields: ["NS.time": .real(date.timeIntervalSinceReferenceDate)])
            return .uid(UInt64(index))
        case .uuid(let uuid):
            let index = writer.reserve()
            writer.fill(index, className: "NSUUID", fields: ["NS.uuidbytes": .data(withUnsafeBytes(of: uuid.uuid) { Data($0) })])
            return .uid(UInt64(index))
        case .url(let url):
            let index = writer.reserve()
            let base = try url.baseURL.map { base throws(TransformableValueError) in try reference(.url(base), path: path) } ?? KeyedArchiveWriter.null
            let relative = writer.plain(.string(url.relativeString))
            writer.fill(index, className: "NSURL", fields: ["NS.base": base, "NS.relative": relative])
            return .uid(UInt64(index))
        case .array(let values):
            let index = writer.reserve()
            let references = try elements(values, path: path)
            writer.fill(index, className: "NSArray", fields: ["NS.objects": .array(references)])
            return .uid(UInt64(index))
        case .set(let values):
            let index = writer.reserve()
            let references = try elements(values.sorted { $0.canonicalText < $1.canonicalText }, path: path)
            writer.fill(index, className: "NSSet", fields: ["NS.objects": .array(references)])
            return .uid(UInt64(index))
        case .orderedSet(let values):
            let index = writer.reserve()
            let references = try elements(values, path: path)
            var fields: [String: PropertyListValue] = [:]
            for (position, reference) in references.enumerated() { fields["NS.object.\(position)"] = reference }
            writer.fill(index, className: "NSOrderedSet", fields: fields)
            return .uid(UInt64(index))
        case .dictionary(let entries):
            let index = writer.reserve()
            let keys = entries.keys.sorted()
            let keyReferences = keys.map { writer.plain(.string($0)) }
            var valueReferences: [PropertyListValue] = []
            for key in keys { valueReferences.append(try reference(entries[key]!, path: path + "." + key)) }
            writer.fill(index, className: "NSDictionary", fields: ["NS.keys": .array(keyReferences), "NS.objects": .array(valueReferences)])
            return .uid(UInt64(index))
        case .object(let object):
            let archive: KeyedArchive
            do {
                archive = try KeyedArchive(data: object.archive)
            } catch {
                throw TransformableValueError(at: path, "the archive of the \(object.className) object is damaged: \(error.description)")
            }
            return writer.copy(from: archive, index: archive.rootIndex)
        case .bytes:
            throw TransformableValueError(at: path, "bytes that are not a keyed archive can only be a whole value, not a part of one")
        }
    }

    private mutating func elements(_ values: [TransformableValue], path: String) throws(TransformableValueError) -> [PropertyListValue] {
        var references: [PropertyListValue] = []
        references.reserveCapacity(values.count)
        for (position, value) in values.enumerated() { references.append(try reference(value, path: path + "[\(position)]")) }
        return references
    }
}

extension TransformableValue {
    /// Text that tells any two different values apart, for writing a set's members in an order
    /// that does not change from run to run.
    var canonicalText: String {
        switch self {
        case .data(let data): "data:" + data.base64EncodedString()
        case .bytes(let data): "bytes:" + data.base64EncodedString()
        case .object(let object): "object:\(object.className):" + object.archive.base64EncodedString()
        case .real(let real): "real:\(real.bitPattern)"
        case .date(let date): "date:\(date.timeIntervalSinceReferenceDate.bitPattern)"
        case .url(let url): "url:\(url.relativeString) \(url.baseURL.map { TransformableValue.url($0).canonicalText } ?? "")"
        case .array(let values): "[" + values.map(\.canonicalText).joined(separator: ",") + "]"
        case .orderedSet(let values): "o[" + values.map(\.canonicalText).joined(separator: ",") + "]"
        case .set(let values): "s[" + values.map(\.canonicalText).sorted().joined(separator: ",") + "]"
        case .dictionary(let entries): "{" + entries.sorted { $0.key < $1.key }.map { "\($0.key.debugDescription):\($0.value.canonicalText)" }.joined(separator: ",") + "}"
        default: description
        }
    }
}
