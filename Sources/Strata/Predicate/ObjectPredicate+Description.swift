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
        case .aggregate(let members): "{" + members.map(\.description).joined(separator: ", ") + "}"
        case .function(let name, let arguments): Self.functionText(name, arguments)
        }
    }

    /// The arithmetic functions' operators, with their precedence: `**` binds tighter than `*`
    /// and `/`, which bind tighter than `+` and `-`.
    static let arithmeticOperators: [String: (symbol: String, precedence: Int)] = [
        "add:to:": ("+", 1), "from:subtract:": ("-", 1), "multiply:by:": ("*", 2), "divide:by:": ("/", 2), "raise:toPower:": ("**", 3),
    ]

    /// `a + b` for arithmetic, parenthesized where precedence needs it; `name(arguments)` for
    /// the other functions, by the name the parser reads.
    private static func functionText(_ name: String, _ arguments: [Self]) -> String {
        if name == ExpressionFunction.index.rawValue, arguments.count == 2 {
            // An operator, or a negative number's sign, would take the index as its operand's.
            let isNegative = if case .value(let value) = arguments[0] { (value.number ?? 0) < 0 } else { false }
            let bare = arithmeticOperators[arguments[0].functionName ?? ""] == nil && !isNegative
            let collection = bare ? "\(arguments[0])" : "(\(arguments[0]))"
            if case .value(.string(let end)) = arguments[1], end == "FIRST" || end == "LAST" { return "\(collection)[\(end)]" }
            return "\(collection)[\(arguments[1])]"
        }
        guard let (symbol, precedence) = arithmeticOperators[name], arguments.count == 2 else {
            let called = ExpressionFunction(rawValue: name)?.shortName ?? name
            return "\(called)(" + arguments.map(\.description).joined(separator: ", ") + ")"
        }
        // 0 - x is how the parser reads -x, and how it is written back (but for a number,
        // which `-` would make a negative number).
        if name == "from:subtract:", arguments[0] == .value(.integer(0)), !arguments[1].isValue {
            guard case .function(let inner, let innerArguments) = arguments[1], innerArguments.count == 2,
                let innerPrecedence = arithmeticOperators[inner]?.precedence, innerPrecedence < 3
            else { return "-" + arguments[1].description }
            return "-(\(arguments[1]))"
        }
        // `**` groups to the right, the others to the left: the side that would regroup needs
        // parentheses at the same precedence.
        let rightAssociative = symbol == "**"
        func operand(_ expression: Self, isLeft: Bool) -> String {
            // `-2 ** 2` reads as -(2 ** 2): a negative base keeps its parentheses.
            if rightAssociative, isLeft, case .value(let value) = expression, (value.number ?? 0) < 0 { return "(\(expression))" }
            guard case .function(let inner, let innerArguments) = expression, innerArguments.count == 2,
                let innerPrecedence = arithmeticOperators[inner]?.precedence
            else { return expression.description }
            let needsParentheses = innerPrecedence < precedence || (innerPrecedence == precedence && isLeft == rightAssociative)
            return needsParentheses ? "(\(expression))" : expression.description
        }
        return "\(operand(arguments[0], isLeft: true)) \(symbol) \(operand(arguments[1], isLeft: false))"
    }

    private var functionName: String? {
        if case .function(let name, _) = self { return name }
        return nil
    }

    private var isValue: Bool {
        if case .value = self { return true }
        return false
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
        "FUNCTION", "FIRST", "LAST", "SIZE",
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
