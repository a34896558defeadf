import Foundation

extension ObjectPredicate: CustomStringConvertible {
    /// The predicate in format-string syntax, parenthesized where precedence needs it; parsing
    /// it gives an equal predicate.
    public var description: String { text(inside: nil) }

    private func text(inside parent: Precedence?) -> String {
        let own: Precedence
        let body: String
        switch self {
        case .constant(let value):
            return value ? "TRUEPREDICATE" : "FALSEPREDICATE"
        case .not(let predicate):
            own = .not
            body = "NOT " + predicate.text(inside: .not)
        case .and(let terms):
            own = .and
            body = terms.map { $0.text(inside: .and) }.joined(separator: " AND ")
        case .or(let terms):
            own = .or
            body = terms.map { $0.text(inside: .or) }.joined(separator: " OR ")
        case .comparison(let comparison):
            return comparison.description
        }
        // NOT chains without parentheses (`NOT NOT x`): each pair would count against the
        // parser's depth limit twice, so that a predicate it read would not read back.
        guard let parent, parent.rawValue >= own.rawValue, own != .not else { return body }
        return "(\(body))"
    }

    private enum Precedence: Int {
        case or = 1, and = 2, not = 3
    }
}

extension ObjectPredicate.Comparison: CustomStringConvertible {
    /// `ANY books.rating >= 4`, `title BEGINSWITH[cd] "the"`.
    public var description: String {
        var options = ""
        if self.options.contains(.caseInsensitive) { options += "c" }
        if self.options.contains(.diacriticInsensitive) { options += "d" }
        let quantifier = self.quantifier.map { $0.rawValue + " " } ?? ""
        return "\(quantifier)\(left) \(self.operator.rawValue)\(options.isEmpty ? "" : "[\(options)]") \(right)"
    }
}

extension ObjectPredicate.Expression: CustomStringConvertible {
    public var description: String {
        switch self {
        case .keyPath(let components): Self.keyPathText(components)
        case .value(let value): value.description
        case .variable(let name): "$" + name
        case .evaluatedObject: "SELF"
        case .subquery(let collection, let variable, let predicate, let then):
            "SUBQUERY(\(collection), $\(variable), \(predicate))" + (then.isEmpty ? "" : "." + Self.keyPathText(then))
        case .castToDate(let value): "CAST(\(value), \"NSDate\")"
        }
    }

    /// `components` joined by dots, each written `#name` where it must be to read back as a key.
    private static func keyPathText(_ components: [String]) -> String {
        components.map { needsEscape($0) ? "#" + $0 : $0 }.joined(separator: ".")
    }

    /// Whether a key path component must be written `#name` to be read back as a key: a
    /// keyword, or a name that does not start as a name does (`#2` would read as a number);
    /// not a collection operator (`@count`) or a variable (`$t.name`).
    private static func needsEscape(_ component: String) -> Bool {
        guard let first = component.unicodeScalars.first, first != "@", first != "$" else { return false }
        guard PredicateTokenizer.startsName(first) else { return true }
        return keywords.contains(component.uppercased())
    }

    /// Words that a key path component must escape with `#` to be read as a key.
    static let keywords: Set = [
        "AND", "OR", "NOT", "ANY", "SOME", "ALL", "NONE", "BETWEEN", "IN", "CONTAINS", "BEGINSWITH", "ENDSWITH", "LIKE",
        "MATCHES", "TRUE", "FALSE", "YES", "NO", "NIL", "NULL", "SELF", "SUBQUERY", "CAST", "TRUEPREDICATE", "FALSEPREDICATE",
    ]
}

extension PredicateValue: CustomStringConvertible {
    public var description: String {
        switch self {
        case .null: "nil"
        case .bool(let value): value ? "YES" : "NO"
        case .integer(let value): String(value)
        case .double(let value): String(value)
        // JSON's string syntax is a subset of the format's, escaped scalar by scalar: a backslash
        // followed by a combining mark is one character, but two scalars to the tokenizer.
        case .string(let value): JSONWriter.string(from: .string(value), pretty: false)
        case .date(let value): "CAST(\(value.timeIntervalSinceReferenceDate), \"NSDate\")"
        case .data(let value): "<\(value.count) bytes>"
        case .uuid(let value): "\"\(value.uuidString)\""
        case .objectID(let id): "\"\(id.uriString)\""
        case .array(let values): "{" + values.map(\.description).joined(separator: ", ") + "}"
        }
    }
}
