import Foundation

/// A value a dictionary fetch reads: a key path, a computed value (a date's year, a sum of
/// attributes), or an aggregate over the fetched objects (or over each group). Core Data's
/// `propertiesToFetch` entries and `NSExpressionDescription`s.
///
/// ```swift
/// let select: [FetchedProperty] = [.keyPath("city"), .aggregate(.average, of: "age", as: "meanAge"), .count()]
/// let same = try FetchedProperty.list("city, avg(age) as meanAge, count(*)")
/// let byYear = try FetchedProperty.list("FUNCTION(published, 'year') as year, count(*)")
/// ```
public struct FetchedProperty: Sendable, Hashable, CustomStringConvertible {
    /// The aggregate applied to the values, or `nil` for the values themselves.
    public var function: AggregateFunction?
    /// The key path read, along to-ones; `nil` for `count(*)` and for a computed value.
    public var keyPath: String?
    /// The computed value read instead of a key path (`FUNCTION(published, 'year')`,
    /// `price * quantity`), in the predicate syntax's expressions; `nil` for a key path.
    public var expression: ObjectPredicate.Expression?
    /// The name of the value in each result; see ``name``.
    public var alias: String?

    /// The value of `keyPath`: an attribute, or a to-one relationship (its object's ID).
    public static func keyPath(_ keyPath: String, as alias: String? = nil) -> FetchedProperty {
        FetchedProperty(function: nil, keyPath: keyPath, alias: alias)
    }

    /// `function` over the values of `keyPath`.
    public static func aggregate(_ function: AggregateFunction, of keyPath: String, as alias: String? = nil) -> FetchedProperty {
        FetchedProperty(function: function, keyPath: keyPath, alias: alias)
    }

    /// The number of objects (of the group), `count(*)`.
    public static func count(as alias: String? = nil) -> FetchedProperty {
        FetchedProperty(function: .count, keyPath: nil, alias: alias)
    }

    /// The value of `expression` for each object, or with `function`, that aggregate of its
    /// values. A plain key path expression is kept as ``keyPath``.
    ///
    /// ```swift
    /// let year = FetchedProperty.value(try ObjectPredicate.Expression(format: "FUNCTION(published, 'year')"), as: "year")
    /// ```
    public static func value(_ expression: ObjectPredicate.Expression, function: AggregateFunction? = nil, as alias: String? = nil) -> FetchedProperty {
        switch expression {
        case .keyPath(let components): FetchedProperty(function: function, keyPath: components.joined(separator: "."), alias: alias)
        case .evaluatedObject: FetchedProperty(function: function, keyPath: "self", alias: alias)
        default: FetchedProperty(function: function, keyPath: nil, expression: expression, alias: alias)
        }
    }

    /// The key of the value in a result: the alias; else the key path, or for a date part
    /// the part and the key path (`year_published`), or the expression as written; for an
    /// aggregate, the function and that joined by `_` (`avg_age`, `max_author_born`), or
    /// `count` for `count(*)`.
    public var name: String {
        if let alias { return alias }
        let value = keyPath ?? expression.map(Self.name(of:))
        guard let function else { return value ?? "" }
        guard let value else { return function.rawValue }
        return function.rawValue + "_" + value.replacingOccurrences(of: ".", with: "_")
    }

    /// `year_published` for `FUNCTION(published, 'year')`; the expression's text otherwise.
    private static func name(of expression: ObjectPredicate.Expression) -> String {
        if case .function("FUNCTION", let arguments) = expression, arguments.count >= 2, case .keyPath(let path) = arguments[0],
            case .value(.string(let selector)) = arguments[1]
        {
            return selector.replacingOccurrences(of: ":", with: "") + "_" + path.joined(separator: "_")
        }
        return expression.description
    }

    /// The property as ``list(_:)`` reads it.
    public var description: String {
        let operand = keyPath ?? expression?.description
        let value = function.map { "\($0.rawValue)(\(operand ?? "*"))" } ?? operand ?? ""
        return alias.map { "\(value) as \($0)" } ?? value
    }

    /// What is fetched, or aggregated, as an expression: the key path's or the computed value's.
    var valueExpression: ObjectPredicate.Expression? {
        if let expression { return expression }
        guard let components else { return nil }
        return components == ["self"] ? .evaluatedObject : .keyPath(components)
    }

    var components: [String]? { keyPath.map { $0.split(separator: ".", omittingEmptySubsequences: false).map(String.init) } }

    /// Reads a comma-separated list of values and aggregates, each with an optional
    /// `as ALIAS`: `"location, avg(age) as mean_age, count(*)"`. A value is a key path or any
    /// expression of the predicate syntax (`FUNCTION(published, 'year')`, `price * 2`); an
    /// aggregate is `avg`, `sum`, `stddev`, `min`, `max`, `median` or `count` of a value, or
    /// `count(*)`. Function names are case-insensitive; `average` is also spelled `avg`. The
    /// list is split at the commas outside parentheses, braces and quotes.
    ///
    /// - Throws: ``FetchRequestError`` naming the column and the text at fault.
    public static func list(_ text: String) throws(FetchRequestError) -> [FetchedProperty] {
        let tokens: [PredicateToken]
        do {
            tokens = try PredicateTokenizer.tokens(of: text)
        } catch {
            throw FetchRequestError("select list: \(error)")
        }
        let characters = Array(text)
        var properties: [FetchedProperty] = []
        var itemStart = 0, tokenStart = 0, depth = 0
        for (index, token) in tokens.enumerated() {
            switch token.kind {
            case .symbol("("), .symbol("{"), .symbol("["): depth += 1
            case .symbol(")"), .symbol("}"), .symbol("]"): depth = max(depth - 1, 0)
            case .symbol(","), .end:
                guard depth == 0 || token.kind == .end else { continue }
                let item = Item(tokens: Array(tokens[tokenStart..<index]), text: String(characters[itemStart..<token.offset]), column: itemStart + 1)
                properties.append(try item.property())
                itemStart = token.offset + 1
                tokenStart = index + 1
            default: break
            }
        }
        return properties
    }

    /// One entry of a select list: its tokens, its text, and the column it starts at.
    private struct Item {
        let tokens: [PredicateToken]
        let text: String
        let column: Int

        func fail(_ reason: String) -> FetchRequestError {
            FetchRequestError("select list, column \(column) ('\(text.trimmingCharacters(in: .whitespaces))'): \(reason)")
        }

        func property() throws(FetchRequestError) -> FetchedProperty {
            var value = tokens[...]
            var alias: String?
            if value.count >= 3, case .identifier(let word) = value[value.endIndex - 2].kind, word.lowercased() == "as" {
                guard case .identifier(let name) = value.last!.kind, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else {
                    throw fail("the alias must be a plain name")
                }
                alias = name
                value = value.dropLast(2)
            }
            guard let first = value.first else { throw fail("expected a key path or an aggregate such as avg(age)") }
            if case .identifier(let word) = first.kind, value.count >= 3, value[value.startIndex + 1].kind == .symbol("("),
                Self.closingParenthesis(in: value, openingAt: value.startIndex + 1) == value.endIndex - 1
            {
                guard let function = try? AggregateFunction(named: word), function.isSelectable else {
                    // Not an aggregate: a function of the predicate syntax (now(), sqrt(x)), or a misspelt aggregate.
                    if ExpressionFunction(named: word) == nil, !["FUNCTION", "CAST", "SUBQUERY"].contains(word.uppercased()) {
                        throw fail("unknown function '\(word.lowercased())'; functions: \(AggregateFunction.allCases.filter(\.isSelectable).map(\.rawValue).joined(separator: ", "))")
                    }
                    return .value(try expression(value), as: alias)
                }
                let argument = value[(value.startIndex + 2)..<(value.endIndex - 1)]
                if argument.count == 1, argument.first!.kind == .symbol("*") {
                    guard function == .count else { throw fail("only count takes '*'") }
                    return .count(as: alias)
                }
                guard !argument.isEmpty else { throw fail("expected a key path or value inside \(word.lowercased())()") }
                return .value(try expression(argument), function: function, as: alias)
            }
            return .value(try expression(value), as: alias)
        }

        /// The expression of `tokens`, parsed from the text they cover.
        private func expression(_ part: ArraySlice<PredicateToken>) throws(FetchRequestError) -> ObjectPredicate.Expression {
            let characters = Array(text)
            let start = part.first!.offset - (column - 1)
            let end = part.endIndex < tokens.endIndex ? tokens[part.endIndex].offset - (column - 1) : characters.count
            let source = String(characters[start..<end])
            do {
                return try ObjectPredicate.Expression(format: source)
            } catch {
                if error.message.hasPrefix("expected the end of the expression") {
                    throw fail("expected one key path or aggregate, then optionally 'as NAME'")
                }
                throw fail("\(error.message), at column \(column + start + error.offset)")
            }
        }

        /// The index of the `)` that closes the `(` at `open`, if any.
        static func closingParenthesis(in tokens: ArraySlice<PredicateToken>, openingAt open: Int) -> Int? {
            var depth = 0
            for index in open..<tokens.endIndex {
                if tokens[index].kind == .symbol("(") { depth += 1 }
                if tokens[index].kind == .symbol(")") {
                    depth -= 1
                    if depth == 0 { return index }
                }
            }
            return nil
        }
    }
}
