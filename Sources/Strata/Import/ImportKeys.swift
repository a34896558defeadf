import Foundation

/// Where a property's value lies in a JSON record: the key paths to try, in order.
///
/// A property's keys come from its userInfo when set: MagicalRecord's `mappedKeyName` with its
/// fallbacks `mappedKeyName.1` … `mappedKeyName.n`, then Sync's `hyper.remoteKey` /
/// `sync.remoteKey`. A key may be a dotted path into nested JSON (`author.name`). Without
/// them, the property's name and its snake_case form (`createdAt` → `created_at`, `userID` →
/// `user_id`) are looked for, case-insensitively, as KarthVader's `keyForJSONKey` does; an
/// identity attribute named `remoteID` also reads `id`.
struct ImportKeys: Sendable, Equatable {
    /// Key paths from userInfo, matched exactly.
    let mapped: [[String]]
    /// Plain names matched without regard to case.
    let names: [String]

    init(property name: String, userInfo: [String: String], isRemoteIdentity: Bool = false) {
        var mapped: [String] = []
        if let first = userInfo["mappedKeyName"] { mapped.append(first) }
        var fallback = 1
        while let next = userInfo["mappedKeyName.\(fallback)"] {
            mapped.append(next)
            fallback += 1
        }
        for key in ["hyper.remoteKey", "sync.remoteKey"] { if let remote = userInfo[key] { mapped.append(remote) } }
        self.mapped = mapped.map { $0.split(separator: ".").map(String.init) }
        var names = [name, Self.snakeCase(name)]
        if isRemoteIdentity, name == "remoteID" { names.insert("id", at: 0) }
        var seen: Set<String> = []
        self.names = names.filter { seen.insert($0.lowercased()).inserted }
    }

    /// The key a property is written under on export: the first mapped key path, else the name.
    var exportKey: [String] { mapped.first ?? [names.first { !$0.isEmpty } ?? ""] }

    /// The value for these keys in `record`: `.some(nil)` for JSON `null`, `nil` when no key is
    /// present (a missing key leaves the property as it is).
    func value(in record: JSONRecordIndex) -> JSONValue?? {
        for path in mapped {
            if let value = record.value(atPath: path) { return value.isNull ? .some(nil) : value }
        }
        for name in names {
            if let value = record.valueIgnoringCase(name) { return value.isNull ? .some(nil) : value }
        }
        return nil
    }

    /// `userID` → `user_id`, `createdAt` → `created_at`, `URLString` → `url_string`.
    static func snakeCase(_ name: String) -> String {
        var result = ""
        let characters = Array(name)
        for (index, character) in characters.enumerated() {
            if character.isUppercase, index > 0 {
                let previous = characters[index - 1]
                let nextIsLower = index + 1 < characters.count && characters[index + 1].isLowercase
                if previous.isLowercase || previous.isNumber || (previous.isUppercase && nextIsLower) { result += "_" }
            }
            result += character.lowercased()
        }
        return result
    }
}

/// A JSON object's members, looked up by exact key, by key path, or without regard to case.
struct JSONRecordIndex {
    let members: [JSONMember]
    private let byKey: [String: JSONValue]
    private let byLowercasedKey: [String: JSONValue]

    init?(_ value: JSONValue) {
        guard let members = value.objectMembers else { return nil }
        self.members = members
        var byKey: [String: JSONValue] = [:], byLowercasedKey: [String: JSONValue] = [:]
        for member in members {
            byKey[member.key] = member.value
            // The exact spelling wins over another spelling of the same key.
            if byLowercasedKey[member.key.lowercased()] == nil || member.key == member.key.lowercased() {
                byLowercasedKey[member.key.lowercased()] = member.value
            }
        }
        self.byKey = byKey
        self.byLowercasedKey = byLowercasedKey
    }

    func value(atPath path: [String]) -> JSONValue? {
        guard let first = path.first, var value = byKey[first] else { return nil }
        for key in path.dropFirst() {
            guard let next = value[key] else { return nil }
            value = next
        }
        return value
    }

    func valueIgnoringCase(_ key: String) -> JSONValue? {
        byKey[key] ?? byLowercasedKey[key.lowercased()]
    }
}
