/// Reads the members of one JSON object of a model file strictly: each value must have the
/// expected kind, and ``finish()`` rejects keys nobody asked for, so that a misspelt key is an
/// error naming the line and column rather than a silently ignored setting.
struct JSONObjectReader {
    let path: String
    /// What the object is, for messages: `entity 'Book', attribute 'title'`.
    let context: String
    private let object: JSONValue
    private let members: [JSONMember]
    private var consumedKeys: Set<String> = []

    init(_ value: JSONValue, path: String, context: String) throws(ModelError) {
        guard let members = value.objectMembers else {
            throw .invalidContent(
                path: path, location: value.location, message: "\(context) must be an object, found \(value.kindDescription)")
        }
        self.path = path
        self.context = context
        self.object = value
        self.members = members
    }

    mutating func value(_ key: String) -> JSONValue? {
        consumedKeys.insert(key)
        return members.last { $0.key == key }.map(\.value).flatMap { $0.isNull ? nil : $0 }
    }

    mutating func requiredString(_ key: String) throws(ModelError) -> String {
        guard let string = try string(key), !string.isEmpty else {
            // A missing key is most often a misspelt one: point at it.
            if let misspelt = members.first(where: { $0.key != key && editDistance($0.key.lowercased(), key.lowercased()) <= 2 }) {
                throw .invalidContent(
                    path: path, location: misspelt.keyLocation ?? object.location,
                    message: "\(context) has no \"\(key)\"; is \"\(misspelt.key)\" a misspelling of it?")
            }
            throw .invalidContent(path: path, location: object.location, message: "\(context) has no \"\(key)\"")
        }
        return string
    }

    mutating func string(_ key: String) throws(ModelError) -> String? {
        guard let value = value(key) else { return nil }
        guard let string = value.stringValue else { throw mismatch(key, value, expected: "a string") }
        return string
    }

    /// A string, or the literal text of a number or boolean (`true` reads as `YES`), for values
    /// that model files keep as text.
    mutating func text(_ key: String) throws(ModelError) -> String? {
        guard let value = value(key) else { return nil }
        switch value.kind {
        case .string(let string): return string
        case .number(let literal): return literal
        case .bool(let bool): return bool ? "YES" : "NO"
        default: throw mismatch(key, value, expected: "a string, number or boolean")
        }
    }

    mutating func bool(_ key: String) throws(ModelError) -> Bool? {
        guard let value = value(key) else { return nil }
        guard let bool = value.boolValue else { throw mismatch(key, value, expected: "true or false") }
        return bool
    }

    mutating func integer(_ key: String) throws(ModelError) -> Int? {
        guard let value = value(key) else { return nil }
        guard let integer = value.intValue else { throw mismatch(key, value, expected: "a whole number") }
        return integer
    }

    mutating func array(_ key: String) throws(ModelError) -> [JSONValue] {
        guard let value = value(key) else { return [] }
        guard let array = value.arrayValue else { throw mismatch(key, value, expected: "an array") }
        return array
    }

    mutating func stringList(_ key: String) throws(ModelError) -> [String] {
        var strings: [String] = []
        for element in try array(key) {
            guard let string = element.stringValue else { throw mismatch(key, element, expected: "strings") }
            strings.append(string)
        }
        return strings
    }

    mutating func stringLists(_ key: String) throws(ModelError) -> [[String]] {
        var lists: [[String]] = []
        for element in try array(key) {
            guard let list = element.arrayValue, list.allSatisfy({ $0.stringValue != nil }) else {
                throw mismatch(key, element, expected: "arrays of strings")
            }
            lists.append(list.compactMap(\.stringValue))
        }
        return lists
    }

    mutating func stringDictionary(_ key: String) throws(ModelError) -> [String: String] {
        guard let value = value(key) else { return [:] }
        guard let members = value.objectMembers else { throw mismatch(key, value, expected: "an object") }
        var dictionary: [String: String] = [:]
        for member in members {
            guard let string = member.value.stringValue else {
                throw mismatch("\(key).\(member.key)", member.value, expected: "a string")
            }
            dictionary[member.key] = string
        }
        return dictionary
    }

    func invalid(_ key: String, _ message: String) -> ModelError {
        .invalidContent(
            path: path, location: members.last { $0.key == key }?.value.location ?? object.location,
            message: "\(context): \(message)")
    }

    /// Fails on the first key that no reading asked for.
    func finish() throws(ModelError) {
        if let unknown = members.first(where: { !consumedKeys.contains($0.key) }) {
            throw .invalidContent(
                path: path, location: unknown.keyLocation ?? unknown.value.location,
                message: "\(context) has an unknown key \"\(unknown.key)\"; known keys: "
                    + consumedKeys.sorted().joined(separator: ", "))
        }
    }

    private func mismatch(_ key: String, _ value: JSONValue, expected: String) -> ModelError {
        .invalidContent(
            path: path, location: value.location,
            message: "\(context): \"\(key)\" must be \(expected), found \(value.kindDescription)")
    }
}
