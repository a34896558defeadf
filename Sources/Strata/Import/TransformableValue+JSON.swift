import Foundation

// The JSON form of a transformable value, which export writes, import and Lua read, and
// `fetch --format json` prints:
//
//   string, integer, boolean        as themselves: "fantasy", 12, true
//   real                            a number with a fraction or exponent: 1.0, 2.5e-7;
//                                   {"$real": "nan"}, {"$real": "inf"}, {"$real": "-inf"}
//   array                           [ … ]
//   dictionary                      { … }; {"$dictionary": { … }} when a key begins with "$"
//   NSNull                          null inside an array or dictionary; {"$null": true} as a
//                                   whole value (where null means no value) and in Lua
//   date                            {"$date": "2024-05-01T10:30:15.25Z"} (Unix seconds outside
//                                   years 1–9999, as dates of Date attributes)
//   data                            {"$data": "<base64>"}
//   URL                             {"$url": "https://…"}; {"$url": "page.html", "$base": "https://…/"}
//   UUID                            {"$uuid": "…"}
//   set, ordered set                {"$set": [ … ]}, {"$orderedSet": [ … ]}
//   object of another class         {"$class": "FigTimeObj", "$archive": "<base64 keyed archive>"}
//   bytes that are no keyed archive {"$bytes": "<base64>"}, only as a whole value
//
// An object whose keys all begin with "$" is one of these forms, and reading refuses any other
// such key, so that a misspelt tag is an error rather than a dictionary.

extension TransformableValue {
    /// The value as JSON that ``init(json:)`` reads back to an equal value (see the table at
    /// the top of `TransformableValue+JSON.swift`): `["fantasy", "classic"]`,
    /// `{"fontSize": 12, "updated": {"$date": "2024-05-01T10:30:15Z"}}`.
    ///
    /// - Parameter taggingNulls: whether an `NSNull` inside an array or dictionary is
    ///   `{"$null": true}` too, for Lua, where `nil` leaves a hole; a whole value always is.
    public func jsonValue(taggingNulls: Bool = false) -> JSONValue {
        if case .null = self { return .object(["$null": .bool(true)]) }
        return json(taggingNulls: taggingNulls)
    }

    private func json(taggingNulls: Bool) -> JSONValue {
        func tagged(_ key: String, _ value: JSONValue) -> JSONValue { .object([JSONMember(key, value)]) }
        switch self {
        case .null: return taggingNulls ? tagged("$null", .bool(true)) : .null
        case .bool(let flag): return .bool(flag)
        case .integer(let integer): return .number(integer)
        case .real(let real):
            guard real.isFinite else { return tagged("$real", .string(real.isNaN ? "nan" : real < 0 ? "-inf" : "inf")) }
            // Swift writes 1.0 as "1.0" and 1e20 as "1e+20": a real never reads back as an integer.
            return .number(real)
        case .string(let string): return .string(string)
        case .date(let date): return tagged("$date", Exporter.json(date))
        case .data(let data): return tagged("$data", .string(data.base64EncodedString()))
        case .uuid(let uuid): return tagged("$uuid", .string(uuid.uuidString))
        case .url(let url):
            guard let base = url.baseURL else { return tagged("$url", .string(url.relativeString)) }
            return .object([JSONMember("$url", .string(url.relativeString)), JSONMember("$base", .string(base.absoluteString))])
        case .array(let values): return .array(values.map { $0.json(taggingNulls: taggingNulls) })
        case .orderedSet(let values): return tagged("$orderedSet", .array(values.map { $0.json(taggingNulls: taggingNulls) }))
        case .set(let values):
            return tagged("$set", .array(values.sorted { $0.canonicalText < $1.canonicalText }.map { $0.json(taggingNulls: taggingNulls) }))
        case .dictionary(let entries):
            let members = entries.sorted { $0.key < $1.key }.map { JSONMember($0.key, $0.value.json(taggingNulls: taggingNulls)) }
            return entries.keys.contains { $0.hasPrefix("$") } ? tagged("$dictionary", .object(members)) : .object(members)
        case .object(let object):
            return .object([JSONMember("$class", .string(object.className)), JSONMember("$archive", .string(object.archive.base64EncodedString()))])
        case .bytes(let data): return tagged("$bytes", .string(data.base64EncodedString()))
        }
    }

    /// The value that `json`, in the form ``jsonValue(taggingNulls:)`` writes, stands for.
    /// `null` is `NSNull`; a caller for which a whole `null` means no value checks for it first.
    ///
    /// ```swift
    /// let tags = try TransformableValue(json: JSONReader.parse(Data(#"["fantasy", "classic"]"#.utf8)))
    /// ```
    ///
    /// - Throws: ``TransformableValueError`` naming the place in the value: `at [2].updated:
    ///   "May 1" is not an ISO 8601 date`.
    public init(json: JSONValue) throws(TransformableValueError) {
        self = try Self.read(json, path: "")
    }

    private static func read(_ json: JSONValue, path: String) throws(TransformableValueError) -> TransformableValue {
        func fail(_ reason: String) -> TransformableValueError { TransformableValueError(at: path, reason) }
        switch json.kind {
        case .null: return .null
        case .bool(let flag): return .bool(flag)
        case .string(let string): return .string(string)
        case .number(let literal):
            if let integer = Int64(literal) { return .integer(integer) }
            guard let real = Double(literal), real.isFinite else { throw fail("\(literal) is not a number a value can hold") }
            return .real(real)
        case .array(let values):
            var items: [TransformableValue] = []
            for (position, value) in values.enumerated() { items.append(try read(value, path: path + "[\(position)]")) }
            return .array(items)
        case .object(let members):
            guard !members.isEmpty, members.allSatisfy({ $0.key.hasPrefix("$") }) else { return try dictionary(members, path: path) }
            return try tagged(Dictionary(members.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first }), count: members.count, path: path)
        }
    }

    private static func dictionary(_ members: [JSONMember], path: String) throws(TransformableValueError) -> TransformableValue {
        var entries: [String: TransformableValue] = [:]
        for member in members {
            let inner = path + "." + member.key
            guard entries[member.key] == nil else { throw TransformableValueError(at: inner, "the key is repeated") }
            if member.key.hasPrefix("$") {
                throw TransformableValueError(at: inner, "a key beginning with $ is one of the tags ($date, $data, …); write a dictionary with such keys as {\"$dictionary\": {…}}")
            }
            entries[member.key] = try read(member.value, path: inner)
        }
        return .dictionary(entries)
    }

    /// One of the tagged forms: an object whose keys all begin with `$`.
    private static func tagged(_ fields: [String: JSONValue], count: Int, path: String) throws(TransformableValueError) -> TransformableValue {
        func fail(_ reason: String) -> TransformableValueError { TransformableValueError(at: path, reason) }
        func text(_ key: String) throws(TransformableValueError) -> String {
            guard let text = fields[key]?.stringValue else { throw fail("\(key) is not a string") }
            return text
        }
        func base64(_ key: String) throws(TransformableValueError) -> Data {
            guard let data = Data(base64Encoded: try text(key)) else { throw fail("\(key) is not base64") }
            return data
        }
        func list(_ key: String) throws(TransformableValueError) -> [TransformableValue] {
            guard let values = fields[key]?.arrayValue else { throw fail("\(key) is not an array") }
            var items: [TransformableValue] = []
            for (position, value) in values.enumerated() { items.append(try read(value, path: path + "[\(position)]")) }
            return items
        }
        let keys = Set(fields.keys)
        guard keys.count == count else { throw fail("a key is repeated") }
        switch keys {
        case ["$null"]:
            guard fields["$null"]?.boolValue == true else { throw fail("$null is not true") }
            return .null
        case ["$real"]:
            switch fields["$real"]?.kind {
            case .string("nan"): return .real(.nan)
            case .string("inf"), .string("+inf"): return .real(.infinity)
            case .string("-inf"): return .real(-.infinity)
            case .number(let literal):
                guard let real = Double(literal) else { throw fail("\(literal) is not a number") }
                return .real(real)
            default: throw fail("$real is not a number, \"nan\", \"inf\" or \"-inf\"")
            }
        case ["$date"]:
            switch fields["$date"]?.kind {
            case .number(let literal):
                guard let seconds = Double(literal), seconds.isFinite else { throw fail("\(literal) is not a number of seconds") }
                return .date(Date(timeIntervalSince1970: seconds))
            case .string(let string):
                guard let date = ISO8601Text.date(from: string) else { throw fail("\"\(string)\" is not an ISO 8601 date") }
                return .date(date)
            default: throw fail("$date is not an ISO 8601 date or Unix seconds")
            }
        case ["$data"]: return .data(try base64("$data"))
        case ["$bytes"]:
            guard path.isEmpty else { throw fail("bytes ($bytes) can only be a whole value, not a part of one") }
            return .bytes(try base64("$bytes"))
        case ["$uuid"]:
            guard let uuid = UUID(uuidString: try text("$uuid")) else { throw fail("\"\(try text("$uuid"))\" is not a UUID") }
            return .uuid(uuid)
        case ["$url"], ["$url", "$base"]:
            var base: URL?
            if keys.contains("$base") {
                guard let url = URL(string: try text("$base")) else { throw fail("\"\(try text("$base"))\" is not a URL") }
                base = url
            }
            guard let url = URL(string: try text("$url"), relativeTo: base) else { throw fail("\"\(try text("$url"))\" is not a URL") }
            return .url(url)
        case ["$set"]: return .set(Set(try list("$set")))
        case ["$orderedSet"]: return .orderedSet(try list("$orderedSet"))
        case ["$dictionary"]:
            switch fields["$dictionary"]?.kind {
            case .object(let members):
                var entries: [String: TransformableValue] = [:]
                for member in members {
                    guard entries[member.key] == nil else { throw fail("the key \"\(member.key)\" is repeated") }
                    entries[member.key] = try read(member.value, path: path + "." + member.key)
                }
                return .dictionary(entries)
            case .array(let values) where values.isEmpty: return .dictionary([:])  // Lua's empty table
            default: throw fail("$dictionary is not an object")
            }
        case ["$archive"], ["$archive", "$class"]:
            let object: ArchivedObject
            do {
                object = try ArchivedObject(archive: try base64("$archive"))
            } catch {
                throw fail("$archive is \(error.message)")
            }
            if keys.contains("$class"), try text("$class") != object.className {
                throw fail("$archive holds a \(object.className), not a \(try text("$class"))")
            }
            return .object(object)
        default:
            let known = "$null, $real, $date, $data, $url (with $base), $uuid, $set, $orderedSet, $dictionary, $archive (with $class), $bytes"
            throw fail("\(keys.sorted().joined(separator: ", ")) is not one of the tagged forms (\(known)); write a dictionary whose keys begin with $ as {\"$dictionary\": {…}}")
        }
    }
}
