import Foundation

extension ObjectPredicate {
    /// Parses a predicate in Core Data's format-string syntax, with `arguments` for its `%@`,
    /// `%K`, `%d`, `%i`, `%ld` and `%f` placeholders in order. Keywords are case-insensitive.
    ///
    /// An argument is any Swift value of an attribute's type (`String`, the integers, `Double`,
    /// `Float`, `Decimal`, `Bool`, `Date`, `Data`, `UUID`, `URL`), an object or its ID, an
    /// array or set of those (for `IN`), an optional, or `nil`; for `%K`, a string naming a key
    /// path.
    ///
    /// ```swift
    /// let name = "le guin"
    /// let predicate = try ObjectPredicate(format: "author.name ==[c] %@ AND rating >= %@", name, 4.5)
    /// let mine = try ObjectPredicate(format: "author == %@ AND %K IN %@", author, "isbn", isbns)
    /// ```
    ///
    /// - Throws: ``PredicateSyntaxError`` with a caret under the token where parsing stopped.
    public init(format: String, _ arguments: (any PredicateValueConvertible)?...) throws(PredicateSyntaxError) {
        try self.init(format: format, arguments: arguments.map { PredicateArgument($0?.predicateValue ?? .null) })
    }

    /// ``init(format:_:)`` with the arguments in an array.
    public init(format: String, arguments: [PredicateArgument]) throws(PredicateSyntaxError) {
        var parser = PredicateParser(source: format, tokens: try PredicateTokenizer.tokens(of: format), arguments: arguments)
        self = try parser.parse()
    }
}

/// A value for a placeholder of a predicate format string: a constant, or for `%K` a key path.
public struct PredicateArgument: Sendable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral, ExpressibleByNilLiteral
{
    public var value: PredicateValue

    public init(_ value: PredicateValue) { self.value = value }
    public init(stringLiteral value: String) { self.value = .string(value) }
    public init(integerLiteral value: Int64) { self.value = .integer(value) }
    public init(floatLiteral value: Double) { self.value = .double(value) }
    public init(booleanLiteral value: Bool) { self.value = .bool(value) }
    public init(nilLiteral: ()) { self.value = .null }
    /// A date argument.
    public static func date(_ date: Date) -> PredicateArgument { PredicateArgument(.date(date)) }
    /// An array argument, for `IN %@`.
    public static func array(_ values: [PredicateValue]) -> PredicateArgument { PredicateArgument(.array(values)) }
    /// An object argument, compared by ID.
    public static func object(_ id: ObjectID) -> PredicateArgument { PredicateArgument(.objectID(id)) }
}

private struct PredicateParser {
    let source: String
    let tokens: [PredicateToken]
    var arguments: [PredicateArgument]
    var index = 0
    /// How deep the parser is in parentheses, NOTs and expressions: each level is a call on the
    /// stack, so a hostile predicate of 20,000 `(` must be an error, not a stack overflow.
    var depth = 0
    static let maximumDepth = 100

    init(source: String, tokens: [PredicateToken], arguments: [PredicateArgument]) {
        self.source = source
        self.tokens = tokens
        self.arguments = arguments
    }

    mutating func parse() throws(PredicateSyntaxError) -> ObjectPredicate {
        let predicate = try parseOr()
        guard current.kind == .end else { throw error("expected AND, OR or the end of the predicate, found '\(current.text)'") }
        return predicate
    }

    // MARK: - Logic

    private mutating func parseOr() throws(PredicateSyntaxError) -> ObjectPredicate {
        var terms = [try parseAnd()]
        while isKeyword("OR") || isSymbol("||") {
            advance()
            terms.append(try parseAnd())
        }
        return terms.count == 1 ? terms[0] : .or(terms)
    }

    private mutating func parseAnd() throws(PredicateSyntaxError) -> ObjectPredicate {
        var terms = [try parseNot()]
        while isKeyword("AND") || isSymbol("&&") {
            advance()
            terms.append(try parseNot())
        }
        return terms.count == 1 ? terms[0] : .and(terms)
    }

    private mutating func parseNot() throws(PredicateSyntaxError) -> ObjectPredicate {
        if isKeyword("NOT") || isSymbol("!") {
            try enterLevel()
            defer { depth -= 1 }
            advance()
            return .not(try parseNot())
        }
        return try parsePrimary()
    }

    private mutating func parsePrimary() throws(PredicateSyntaxError) -> ObjectPredicate {
        if isSymbol("(") {
            try enterLevel()
            defer { depth -= 1 }
            advance()
            let predicate = try parseOr()
            try expectSymbol(")", "to close '('")
            return predicate
        }
        if isKeyword("TRUEPREDICATE") { advance(); return .constant(true) }
        if isKeyword("FALSEPREDICATE") { advance(); return .constant(false) }
        return .comparison(try parseComparison())
    }

    // MARK: - Comparisons

    private static let keywordOperators: [String: ComparisonOperator] = [
        "BETWEEN": .between, "IN": .in, "CONTAINS": .contains, "BEGINSWITH": .beginsWith, "ENDSWITH": .endsWith,
        "LIKE": .like, "MATCHES": .matches,
    ]

    private static let symbolOperators: [String: ComparisonOperator] = [
        "=": .equal, "==": .equal, "!=": .notEqual, "<>": .notEqual, "<": .lessThan, "<=": .lessThanOrEqual,
        "=<": .lessThanOrEqual, ">": .greaterThan, ">=": .greaterThanOrEqual, "=>": .greaterThanOrEqual,
    ]

    private mutating func parseComparison() throws(PredicateSyntaxError) -> ObjectPredicate.Comparison {
        var quantifier: Quantifier?
        for (keyword, value) in [("ANY", Quantifier.any), ("SOME", .any), ("ALL", .all), ("NONE", .none)] where isKeyword(keyword) {
            advance()
            quantifier = value
            break
        }
        let left = try parseExpression()
        let operatorToken = current
        let comparison: ComparisonOperator
        if case .symbol(let symbol) = current.kind, let found = Self.symbolOperators[symbol] {
            comparison = found
        } else if case .identifier(let word) = current.kind, let found = Self.keywordOperators[word.uppercased()] {
            comparison = found
        } else {
            throw error("expected a comparison operator (==, !=, <, <=, >, >=, BETWEEN, IN, CONTAINS, BEGINSWITH, ENDSWITH, LIKE, MATCHES), found '\(current.text)'")
        }
        advance()
        let options = try parseOptions()
        guard current.kind != .end else { throw error("expected a value after '\(operatorToken.text)', found '\(current.text)'") }
        let right = try parseExpression(after: operatorToken)
        if comparison == .between {
            guard case .value(.array(let bounds)) = right, bounds.count == 2 else {
                throw PredicateSyntaxError(message: "BETWEEN needs {low, high}", predicate: source, offset: operatorToken.offset)
            }
        }
        return ObjectPredicate.Comparison(left, comparison, right, options: options, quantifier: quantifier)
    }

    /// `[c]`, `[d]`, `[cd]` after an operator.
    private mutating func parseOptions() throws(PredicateSyntaxError) -> ComparisonOptions {
        guard isSymbol("[") else { return [] }
        advance()
        guard case .identifier(let letters) = current.kind, !letters.isEmpty, letters.lowercased().allSatisfy({ "cdn".contains($0) }) else {
            throw error("expected c, d or cd between '[' and ']', found '\(current.text)'")
        }
        advance()
        try expectSymbol("]", "to close the options")
        var options: ComparisonOptions = []
        if letters.lowercased().contains("c") { options.insert(.caseInsensitive) }
        if letters.lowercased().contains("d") { options.insert(.diacriticInsensitive) }
        return options
    }

    // MARK: - Expressions

    private mutating func parseExpression(after previous: PredicateToken? = nil) throws(PredicateSyntaxError) -> ObjectPredicate.Expression {
        try enterLevel()
        defer { depth -= 1 }
        let token = current
        switch token.kind {
        case .string(let value):
            advance()
            return .value(.string(value))
        case .number(let literal):
            advance()
            return .value(Self.number(literal))
        case .symbol("-"):
            advance()
            guard case .number(let literal) = current.kind else { throw error("expected a number after '-'") }
            advance()
            return .value(Self.number("-" + literal))
        case .symbol("{"):
            return try parseArray()
        case .variable(let name):
            advance()
            let path = try parseKeyPathTail()
            return path.isEmpty ? .variable(name) : .keyPath(["$" + name] + path)
        case .argument(let letters):
            advance()
            guard !arguments.isEmpty else {
                throw PredicateSyntaxError(message: "no argument left for '%\(letters)'", predicate: source, offset: token.offset)
            }
            let argument = arguments.removeFirst().value
            if letters == "K" {
                guard case .string(let key) = argument else {
                    throw PredicateSyntaxError(message: "%K needs a key path string", predicate: source, offset: token.offset)
                }
                return .keyPath(key.split(separator: ".").map(String.init) + (try parseKeyPathTail()))
            }
            return .value(argument)
        case .identifier(let word) where word.unicodeScalars.first == "#":
            advance()
            return .keyPath([Self.unescaped(word)] + (try parseKeyPathTail()))
        case .identifier(let word):
            switch word.uppercased() {
            case "TRUE", "YES": advance(); return .value(.bool(true))
            case "FALSE", "NO": advance(); return .value(.bool(false))
            case "NIL", "NULL": advance(); return .value(.null)
            case "SELF":
                advance()
                let path = try parseKeyPathTail()
                return path.isEmpty ? .evaluatedObject : .keyPath(path)
            case "SUBQUERY": return try parseSubquery()
            case "CAST": return try parseCast()
            case "AND", "OR", "NOT", "ANY", "SOME", "ALL", "NONE", "BETWEEN", "IN", "CONTAINS", "BEGINSWITH", "ENDSWITH", "LIKE",
                "MATCHES", "TRUEPREDICATE", "FALSEPREDICATE":
                throw error(previous.map { "expected a value after '\($0.text)', found '\(token.text)'" } ?? "expected a key path or value, found '\(token.text)'")
            default:
                advance()
                return .keyPath([word] + (try parseKeyPathTail()))
            }
        case .symbol("@"):
            return .keyPath(try parseKeyPathTail(leadingAt: true))
        default:
            throw error(previous.map { "expected a value after '\($0.text)', found '\(token.text)'" } ?? "expected a key path or value, found '\(token.text)'")
        }
    }

    /// `.name`, `.@count`, `.@sum.rating` … after a key path's first component.
    private mutating func parseKeyPathTail(leadingAt: Bool = false) throws(PredicateSyntaxError) -> [String] {
        var components: [String] = []
        var expectsComponent = leadingAt
        while expectsComponent || isSymbol(".") {
            if !expectsComponent { advance() }
            expectsComponent = false
            if isSymbol("@") {
                advance()
                guard case .identifier(let name) = current.kind, ["count", "sum", "avg", "min", "max"].contains(name.lowercased()) else {
                    throw error("expected count, sum, avg, min or max after '@', found '\(current.text)'")
                }
                advance()
                components.append("@" + name.lowercased())
            } else if case .identifier(let name) = current.kind {
                advance()
                components.append(Self.unescaped(name))
            } else {
                throw error("expected a key after '.', found '\(current.text)'")
            }
        }
        return components
    }

    private mutating func parseArray() throws(PredicateSyntaxError) -> ObjectPredicate.Expression {
        advance()  // {
        var values: [PredicateValue] = []
        if isSymbol("}") {
            advance()
            return .value(.array([]))
        }
        while true {
            let token = current
            guard case .value(let value) = try parseExpression() else {
                throw PredicateSyntaxError(message: "an array holds only constants", predicate: source, offset: token.offset)
            }
            values.append(value)
            if isSymbol(",") { advance(); continue }
            try expectSymbol("}", "to close the array")
            return .value(.array(values))
        }
    }

    private mutating func parseSubquery() throws(PredicateSyntaxError) -> ObjectPredicate.Expression {
        advance()  // SUBQUERY
        try expectSymbol("(", "after SUBQUERY")
        let collection = try parseExpression()
        try expectSymbol(",", "after the SUBQUERY collection")
        guard case .variable(let variable) = current.kind else { throw error("expected a $variable in SUBQUERY, found '\(current.text)'") }
        advance()
        try expectSymbol(",", "after the SUBQUERY variable")
        let predicate = try parseOr()
        try expectSymbol(")", "to close SUBQUERY")
        return .subquery(collection: collection, variable: variable, predicate: predicate, then: try parseKeyPathTail())
    }

    /// `name` without the `#` that escapes it, when it has one: a scalar, since `#` and a
    /// combining mark after it are one character.
    private static func unescaped(_ name: String) -> String {
        name.unicodeScalars.first == "#" ? String(name.unicodeScalars.dropFirst()) : name
    }

    private mutating func parseCast() throws(PredicateSyntaxError) -> ObjectPredicate.Expression {
        advance()  // CAST
        try expectSymbol("(", "after CAST")
        let value = try parseExpression()
        try expectSymbol(",", "after the CAST value")
        guard case .string(let type) = current.kind, type == "NSDate" else {
            throw error("CAST supports \"NSDate\", found '\(current.text)'")
        }
        advance()
        try expectSymbol(")", "to close CAST")
        // A constant is a date, as a date argument is (and as Core Data reads it), so that
        // both print and read back alike.
        switch value {
        case .value(.integer(let seconds)): return .value(.date(Date(timeIntervalSinceReferenceDate: Double(seconds))))
        case .value(.double(let seconds)): return .value(.date(Date(timeIntervalSinceReferenceDate: seconds)))
        default: return .castToDate(value)
        }
    }

    private static func number(_ literal: String) -> PredicateValue {
        if let integer = Int64(literal) { return .integer(integer) }
        return .double(Double(literal) ?? 0)
    }

    // MARK: - Tokens

    private var current: PredicateToken { tokens[index] }

    private mutating func advance() {
        if index < tokens.count - 1 { index += 1 }
    }

    private func isKeyword(_ keyword: String) -> Bool {
        if case .identifier(let word) = current.kind { return word.uppercased() == keyword }
        return false
    }

    private func isSymbol(_ symbol: String) -> Bool {
        current.kind == .symbol(symbol)
    }

    private mutating func expectSymbol(_ symbol: String, _ purpose: String) throws(PredicateSyntaxError) {
        guard isSymbol(symbol) else { throw error("expected '\(symbol)' \(purpose), found '\(current.text)'") }
        advance()
    }

    /// Goes one level deeper, or fails at the token that would go past ``maximumDepth``.
    private mutating func enterLevel() throws(PredicateSyntaxError) {
        guard depth < Self.maximumDepth else {
            throw error("the predicate nests deeper than \(Self.maximumDepth) levels (parentheses, NOT, arrays, functions and subqueries)")
        }
        depth += 1
    }

    private func error(_ message: String) -> PredicateSyntaxError {
        PredicateSyntaxError(message: message, predicate: source, offset: current.offset)
    }
}
