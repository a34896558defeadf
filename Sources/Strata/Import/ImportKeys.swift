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
    /// `names` lower-cased, made once rather than at each record's look-up.
    private let lowercasedNames: [String]

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
        lowercasedNames = self.names.map { $0.lowercased() }
    }

    /// The key a property is written under on export: the first mapped key path, else the name.
    var exportKey: [String] { mapped.first ?? [names.first { !$0.isEmpty } ?? ""] }

    /// The value for these keys in `record`: `.some(nil)` for JSON `null`, `nil` when no key is
    /// present (a missing key leaves the property as it is).
    func value(in record: JSONRecordIndex) -> JSONValue?? {
        for path in mapped {
            if let value = record.value(atPath: path) { return value.isNull ? .some(nil) : value }
        }
        for (name, lowercased) in zip(names, lowercasedNames) {
            if let value = record.valueIgnoringCase(name, lowercased: lowercased) { return value.isNull ? .some(nil) : value }
        }
        return nil
    }

    /// Where ``value(in:)`` finds its value in the records keyed as `layout` is: what the
    /// records of one layout share, found once for all of them.
    enum Placement {
        /// The member at this position.
        case member(Int)
        /// No key is present.
        case missing
        /// A key path reaches into nested objects: each record answers for itself.
        case nested
    }

    /// Where these keys find their value in records keyed as `layout` is.
    func placement(in layout: JSONRecordIndex.KeyLayout) -> Placement {
        for path in mapped {
            guard path.count == 1 else { return .nested }
            if let position = layout.byKey[path[0]] { return .member(position) }
        }
        for (name, lowercased) in zip(names, lowercasedNames) {
            if let position = layout.byKey[name] ?? layout.byLowercasedKey[lowercased] { return .member(position) }
        }
        return .missing
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
///
/// The tables that find a key are made once per run of records written with the same keys in
/// the same order (see ``KeyLayout``), not once per record: the records of an import are
/// nearly always written alike.
struct JSONRecordIndex {
    let members: [JSONMember]
    /// Where each key is among `members`; the same object for records keyed alike.
    let layout: KeyLayout

    /// The index of `value` if it is an object, reusing `previous`'s tables when the object's
    /// keys are `previous`'s, in the same order.
    init?(_ value: JSONValue, sharingLayoutOf previous: JSONRecordIndex? = nil) {
        guard let members = value.objectMembers else { return nil }
        self.members = members
        if let previous, previous.layout.matches(members) {
            layout = previous.layout
        } else {
            layout = KeyLayout(members)
        }
    }

    func value(atPath path: [String]) -> JSONValue? {
        guard let first = path.first, let position = layout.byKey[first] else { return nil }
        var value = members[position].value
        for key in path.dropFirst() {
            guard let next = value[key] else { return nil }
            value = next
        }
        return value
    }

    /// The value of `key`, else of a key that differs from it only in case.
    func valueIgnoringCase(_ key: String) -> JSONValue? {
        valueIgnoringCase(key, lowercased: key.lowercased())
    }

    /// ``valueIgnoringCase(_:)`` for a caller that has `key.lowercased()` at hand.
    func valueIgnoringCase(_ key: String, lowercased: String) -> JSONValue? {
        guard let position = layout.byKey[key] ?? layout.byLowercasedKey[lowercased] else { return nil }
        return members[position].value
    }

    /// The keys of an object in order, and where each is found: what records keyed alike share.
    final class KeyLayout {
        let keys: [String]
        /// The position of each key's last member: of a key written twice, the last one counts.
        let byKey: [String: Int]
        /// The position by lower-cased key: the exactly lower-case spelling wins, else the first.
        let byLowercasedKey: [String: Int]

        init(_ members: [JSONMember]) {
            keys = members.map(\.key)
            var byKey: [String: Int] = [:], byLowercasedKey: [String: Int] = [:]
            for (position, key) in keys.enumerated() {
                byKey[key] = position
                let lowercased = key.lowercased()
                if byLowercasedKey[lowercased] == nil || key == lowercased { byLowercasedKey[lowercased] = position }
            }
            self.byKey = byKey
            self.byLowercasedKey = byLowercasedKey
        }

        /// Whether `members` has exactly these keys, in this order.
        func matches(_ members: [JSONMember]) -> Bool {
            guard members.count == keys.count else { return false }
            for (member, key) in zip(members, keys) where member.key != key { return false }
            return true
        }
    }
}
