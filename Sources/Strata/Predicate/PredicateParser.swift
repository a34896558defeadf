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
    ///
    /// - Throws: ``PredicateSyntaxError`` with a caret under the token where parsing stopped.
    public init(format: String, arguments: [PredicateArgument]) throws(PredicateSyntaxError) {
        var parser = PredicateParser(source: format, tokens: try PredicateTokenizer.tokens(of: format), arguments: arguments)
        self = try parser.parse()
    }
}

extension ObjectPredicate.Expression {
    /// Parses one expression in Core Data's format-string syntax, as `NSExpression(format:)`
    /// does: `$source.title`, `"constant"`, `42`, `price * 2`, `FUNCTION($manager, "selector:", …)`.
    ///
    /// `receiverMethods` names selectors besides Foundation's (``ExpressionMethod``) that
    /// `FUNCTION` may call on a `$variable` receiver: a migration passes its manager's, whose
    /// meaning it gives itself. Their arity is the number of colons in the name.
    ///
    /// ```swift
    /// let title = try ObjectPredicate.Expression(format: "$source.title")
    /// let authors = try ObjectPredicate.Expression(
    ///     format: #"FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", "AuthorToAuthor", $source.authors)"#,
    ///     receiverMethods: ["destinationInstancesForEntityMappingNamed:sourceInstances:"])
    /// ```
    ///
    /// - Throws: ``PredicateSyntaxError`` with a caret under the token where parsing stopped.
    public init(format: String, receiverMethods: Set<String> = []) throws(PredicateSyntaxError) {
        var parser = PredicateParser(source: format, tokens: try PredicateTokenizer.tokens(of: format), arguments: [])
        parser.receiverMethods = receiverMethods
        self = try parser.parseStandaloneExpression()
    }
}

/// A value for a placeholder of a predicate format string: a constant, or for `%K` a key path.
public struct PredicateArgument: Sendable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral, ExpressibleByNilLiteral
{
    /// The value the placeholder takes.
    public var value: PredicateValue

    /// An argument holding `value`.
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

struct PredicateParser {
    let source: String
    let tokens: [PredicateToken]
    var arguments: [PredicateArgument]
    var index = 0
    /// How deep the parser is in parentheses, NOTs and expressions: each level is a call on the
    /// stack, so a hostile predicate of 20,000 `(` must be an error, not a stack overflow.
    var depth = 0
    static let maximumDepth = 100
    /// Selectors that `FUNCTION` may call on a `$variable` receiver besides Foundation's.
    var receiverMethods: Set<String> = []

    init(source: String, tokens: [PredicateToken], arguments: [PredicateArgument]) {
        self.source = source
        self.tokens = tokens
        self.arguments = arguments
    }

    /// One expression and nothing after it.
    mutating func parseStandaloneExpression() throws(PredicateSyntaxError) -> ObjectPredicate.Expression {
        let expression = try parseExpression()
        guard current.kind == .end else { throw error("expected the end of the expression, found '\(current.text)'") }
        return expression
    }

    mutating func parse() throws(PredicateSyntaxError) -> ObjectPredicate {
        let predicate = try parseOr()
        guard current.kind == .end else { throw error("expected AND, OR or the end of the predicate, found '\(current.text)'") }
        return predicate
    }

    // MARK: - Logic

    mutating func parseOr() throws(PredicateSyntaxError) -> ObjectPredicate {
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
            // `(` opens a predicate, `(a OR b)`, or an expression, `(age + 1) > 41`: the
            // predicate is tried first, and the expression when it fails or a comparison or an
            // operator follows its `)`.
            let start = (index: index, arguments: arguments)
            let predicateError: PredicateSyntaxError
            do throws(PredicateSyntaxError) {
                try enterLevel()
                defer { depth -= 1 }
                advance()
                let predicate = try parseOr()
                try expectSymbol(")", "to close '('")
                if !continuesExpression { return predicate }
                predicateError = error("expected AND, OR or the end of the predicate, found '\(current.text)'")
            } catch {
                predicateError = error
            }
            (index, arguments) = start
            do throws(PredicateSyntaxError) {
                return .comparison(try parseComparison())
            } catch {
                // The reading that got further names the better token.
                throw error.offset >= predicateError.offset ? error : predicateError
            }
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
            let bounds: Int? = switch right {
            case .value(.array(let values)): values.count
            case .aggregate(let members): members.count
            default: nil
            }
            guard bounds == 2 else {
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

    /// Whether the current token goes on with an expression or a comparison: what may follow
    /// an expression's `)` but not a predicate's.
    private var continuesExpression: Bool {
        if case .symbol(let symbol) = current.kind { return Self.symbolOperators[symbol] != nil || Self.arithmetic[symbol] != nil }
        if case .identifier(let word) = current.kind { return Self.keywordOperators[word.uppercased()] != nil }
        return false
    }

    /// The arithmetic operators, by symbol, as the functions they stand for.
    private static let arithmetic: [String: ExpressionFunction] = [
        "+": .add, "-": .subtract, "*": .multiply, "/": .divide, "**": .power,
    ]

    /// `a + b - c`: the loosest arithmetic, grouping to the left.
    mutating func parseExpression(after previous: PredicateToken? = nil) throws(PredicateSyntaxError) -> ObjectPredicate.Expression {
        try parseOperations(["+", "-"], after: previous) { parser, token throws(PredicateSyntaxError) in try parser.parseProduct(after: token) }
    }

    /// `a * b / c`.
    private mutating func parseProduct(after previous: PredicateToken?) throws(PredicateSyntaxError) -> ObjectPredicate.Expression {
        try parseOperations(["*", "/"], after: previous) { parser, token throws(PredicateSyntaxError) in try parser.parseNegation(after: token) }
    }

    /// Operands that `operand` reads, joined by the operators `symbols`, grouping to the left.
    private mutating func parseOperations(
        _ symbols: Set<String>, after previous: PredicateToken?,
        operand: (inout PredicateParser, PredicateToken?) throws(PredicateSyntaxError) -> ObjectPredicate.Expression
    ) throws(PredicateSyntaxError) -> ObjectPredicate.Expression {
        var expression = try operand(&self, previous)
        while case .symbol(let symbol) = current.kind, symbols.contains(symbol) {
            let token = current
            advance()
            expression = .function(Self.arithmetic[symbol]!.rawValue, arguments: [expression, try operand(&self, token)])
        }
        return expression
    }

    /// `-a`: a negative number, or 0 minus anything else; binds looser than `**`, so that
    /// `-2 ** 2` is -4.
    private mutating func parseNegation(after previous: PredicateToken?) throws(PredicateSyntaxError) -> ObjectPredicate.Expression {
        guard isSymbol("-") else { return try parsePower(after: previous) }
        try enterLevel()
        defer { depth -= 1 }
        let token = current
        advance()
        let operand = try parseNegation(after: token)
        switch operand {
        case .value(.integer(let value)) where value != .min: return .value(.integer(-value))
        case .value(.double(let value)): return .value(.double(-value))
        default: return .function(ExpressionFunction.subtract.rawValue, arguments: [.value(.integer(0)), operand])
        }
    }

    /// `a ** b`, grouping to the right.
    private mutating func parsePower(after previous: PredicateToken?) throws(PredicateSyntaxError) -> ObjectPredicate.Expression {
        let base = try parseIndexedTerm(after: previous)
        guard isSymbol("**") else { return base }
        let token = current
        advance()
        return .function(ExpressionFunction.power.rawValue, arguments: [base, try parseNegation(after: token)])
    }

    /// A term, then any indexes: `list[0]`, `list[FIRST]`, `list[LAST]`, and `list[SIZE]`, its
    /// number of members; and any aggregates of a list (`{1, 2}.@count`, `mode(x).@max`), or
    /// keys after a parenthesized key path (`(author).name`).
    private mutating func parseIndexedTerm(after previous: PredicateToken?) throws(PredicateSyntaxError) -> ObjectPredicate.Expression {
        var expression = try parseTerm(after: previous)
        while isSymbol("[") || isSymbol(".") {
            if isSymbol(".") {
                expression = try parseKeyAfter(expression)
                continue
            }
            let bracket = current
            advance()
            if case .identifier(let word) = current.kind, ["FIRST", "LAST", "SIZE"].contains(word.uppercased()) {
                advance()
                expression = word.uppercased() == "SIZE"
                    ? .function(AggregateFunction.count.coreDataName, arguments: [expression])
                    : .function(ExpressionFunction.index.rawValue, arguments: [expression, .value(.string(word.uppercased()))])
            } else {
                expression = .function(ExpressionFunction.index.rawValue, arguments: [expression, try parseExpression(after: bracket)])
            }
            try expectSymbol("]", "to close the index")
        }
        return expression
    }

    /// `.key` or `.@aggregate` after `expression`: a longer key path, or the aggregate of a list
    /// as its function (`.@count` is `count:`).
    private mutating func parseKeyAfter(_ expression: ObjectPredicate.Expression) throws(PredicateSyntaxError) -> ObjectPredicate.Expression {
        let dot = current
        let tail = try parseKeyPathTail()
        if case .keyPath(let path) = expression { return .keyPath(path + tail) }
        guard let first = tail.first, let function = AggregateFunction(keyPathOperator: first) else {
            let operators = AggregateFunction.keyPathAggregates.compactMap(\.keyPathOperator).joined(separator: ", ")
            throw PredicateSyntaxError(
                message: "only an aggregate (\(operators)) may follow a list or a function's value, found '\(tail.first ?? "")'",
                predicate: source, offset: dot.offset + 1)
        }
        guard tail.count == 1 else {
            throw PredicateSyntaxError(message: "nothing may follow '\(first)' of a list", predicate: source, offset: dot.offset + 1)
        }
        return .function(function.coreDataName, arguments: [expression])
    }

    /// A value, key path, variable, list, function call or parenthesized expression.
    private mutating func parseTerm(after previous: PredicateToken? = nil) throws(PredicateSyntaxError) -> ObjectPredicate.Expression {
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
        case .symbol("("):
            advance()
            let expression = try parseExpression()
            try expectSymbol(")", "to close '('")
            return expression
        case .symbol("{"):
            return try parseArray()
        case .variable(let name):
            advance()
            if isSymbol(":"), tokens[index + 1].kind == .symbol("=") {
                throw error("'$\(name) :=' assigns a variable, which only NSExpression's evaluation in a context does; "
                    + "a fetch takes its variables as substitution variables (--var \(name)=VALUE)")
            }
            let path = try parseKeyPathTail()
            return path.isEmpty ? .variable(name) : .keyPath(["$" + name] + path)
        case .argument(let letters):
            advance()
            guard !arguments.isEmpty else {
                throw PredicateSyntaxError(message: "no argument left for '%\(letters)'", predicate: source, offset: token.offset)
            }
            let argument = arguments.removeFirst().value
            if letters == "K" {
                return .keyPath(try Self.keyPath(from: argument, at: token, in: source) + (try parseKeyPathTail()))
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
            case "FUNCTION": return try parseMethodCall()
            case _ where tokens[index + 1].kind == .symbol("(") || tokens[index + 1].kind == .symbol(":"):
                return try parseFunction()
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
    mutating func parseKeyPathTail(leadingAt: Bool = false) throws(PredicateSyntaxError) -> [String] {
        var components: [String] = []
        var expectsComponent = leadingAt
        while expectsComponent || isSymbol(".") {
            if !expectsComponent { advance() }
            expectsComponent = false
            if isSymbol("@") {
                advance()
                guard case .identifier(let name) = current.kind, AggregateFunction(keyPathOperator: "@" + name.lowercased()) != nil else {
                    let names = AggregateFunction.keyPathAggregates.map(\.rawValue)
                    throw error("expected \(names.dropLast().joined(separator: ", ")) or \(names.last!) after '@', found '\(current.text)'")
                }
                advance()
                components.append("@" + name.lowercased())
            } else if case .identifier(let name) = current.kind {
                advance()
                components.append(Self.unescaped(name))
            } else if case .argument("K") = current.kind {
                let token = current
                advance()
                guard !arguments.isEmpty else {
                    throw PredicateSyntaxError(message: "no argument left for '%K'", predicate: source, offset: token.offset)
                }
                components += try Self.keyPath(from: arguments.removeFirst().value, at: token, in: source)
            } else {
                throw error("expected a key after '.', found '\(current.text)'")
            }
        }
        return components
    }

    /// The components of the key path a `%K` argument names.
    private static func keyPath(from argument: PredicateValue, at token: PredicateToken, in source: String) throws(PredicateSyntaxError) -> [String] {
        guard case .string(let key) = argument, !key.isEmpty else {
            throw PredicateSyntaxError(message: "%K needs a key path string, found \(argument)", predicate: source, offset: token.offset)
        }
        return key.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    }

    /// `{a, b, …}`: a constant array when every member is a constant.
    private mutating func parseArray() throws(PredicateSyntaxError) -> ObjectPredicate.Expression {
        advance()  // {
        var members: [ObjectPredicate.Expression] = []
        if isSymbol("}") {
            advance()
            return .value(.array([]))
        }
        while true {
            members.append(try parseExpression())
            if isSymbol(",") { advance(); continue }
            try expectSymbol("}", "to close the array")
            return .list(members)
        }
    }

    /// `name` without the `#` that escapes it, when it has one: a scalar, since `#` and a
    /// combining mark after it are one character.
    private static func unescaped(_ name: String) -> String {
        name.unicodeScalars.first == "#" ? String(name.unicodeScalars.dropFirst()) : name
    }

    private static func number(_ literal: String) -> PredicateValue {
        if let integer = Int64(literal) { return .integer(integer) }
        let radix = ["0x": 16, "0X": 16, "0o": 8, "0O": 8, "0b": 2, "0B": 2][String(literal.prefix(2))]
        if let radix, let integer = Int64(literal.dropFirst(2).filter { $0 != "_" }, radix: radix) { return .integer(integer) }
        return .double(Double(literal) ?? 0)
    }

    // MARK: - Tokens

    var current: PredicateToken { tokens[index] }

    mutating func advance() {
        if index < tokens.count - 1 { index += 1 }
    }

    private func isKeyword(_ keyword: String) -> Bool {
        if case .identifier(let word) = current.kind { return word.uppercased() == keyword }
        return false
    }

    func isSymbol(_ symbol: String) -> Bool {
        current.kind == .symbol(symbol)
    }

    mutating func expectSymbol(_ symbol: String, _ purpose: String) throws(PredicateSyntaxError) {
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

    func error(_ message: String) -> PredicateSyntaxError {
        PredicateSyntaxError(message: message, predicate: source, offset: current.offset)
    }
}
