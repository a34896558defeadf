import Foundation

/// The calls a predicate can make: built-in functions (`sqrt(x)`, `sum(books.rating)`),
/// Foundation methods through `FUNCTION`, `SUBQUERY` and `CAST`.
extension PredicateParser {
    /// `sqrt(x)`, `now()`, `sum(books.rating)`, `modulus:by:(a, b)`: a built-in function, by
    /// its selector or the selector's first word.
    mutating func parseFunction() throws(PredicateSyntaxError) -> ObjectPredicate.Expression {
        let start = current
        var name = current.text
        advance()
        while isSymbol(":") {
            name += ":"
            advance()
            if case .identifier(let part) = current.kind, tokens[index + 1].kind == .symbol(":") {
                name += part
                advance()
            }
        }
        guard let function = ExpressionFunction(named: name) else {
            throw PredicateSyntaxError(
                message: "unknown function '\(name)'; known: \(ExpressionFunction.callable.map(\.shortName).joined(separator: ", "))",
                predicate: source, offset: start.offset)
        }
        try expectSymbol("(", "after the function name")
        var arguments: [ObjectPredicate.Expression] = []
        if !isSymbol(")") {
            repeat {
                if !arguments.isEmpty { advance() }
                arguments.append(try parseExpression())
            } while isSymbol(",")
        }
        try expectSymbol(")", "to close the arguments of \(name)")
        if let arity = function.arity, arguments.count != arity {
            throw PredicateSyntaxError(
                message: "\(function.shortName) takes \(arity) argument\(arity == 1 ? "" : "s"), found \(arguments.count)", predicate: source,
                offset: start.offset)
        }
        if function.isAggregate, arguments.isEmpty {
            throw PredicateSyntaxError(message: "\(function.shortName) needs a collection or values", predicate: source, offset: start.offset)
        }
        return .function(function.rawValue, arguments: arguments)
    }

    /// `FUNCTION(receiver, 'selector', arguments…)`: one of the Foundation methods Strata knows
    /// (``ExpressionMethod``), named by a string or a `%@` argument.
    mutating func parseMethodCall() throws(PredicateSyntaxError) -> ObjectPredicate.Expression {
        let start = current
        advance()  // FUNCTION
        try expectSymbol("(", "after FUNCTION")
        let receiver = try parseExpression()
        try expectSymbol(",", "after FUNCTION's receiver")
        let selectorToken = current
        var selector: String?
        switch selectorToken.kind {
        case .string(let text): selector = text
        case .argument("@"):
            if case .string(let text)? = arguments.first?.value { selector = text; arguments.removeFirst() }
        default: break
        }
        guard let selector else { throw error("expected the method's name as a string, found '\(selectorToken.text)'") }
        let arity: Int
        if case .variable = receiver, receiverMethods.contains(selector) {
            arity = selector.count { $0 == ":" }
        } else if let method = ExpressionMethod(rawValue: selector) {
            arity = method.arity
        } else {
            throw PredicateSyntaxError(
                message: "FUNCTION cannot call '\(selector)': Strata calls Foundation's methods by name, and knows "
                    + ExpressionMethod.allCases.map(\.rawValue).joined(separator: ", "),
                predicate: source, offset: selectorToken.offset)
        }
        advance()
        var methodArguments: [ObjectPredicate.Expression] = []
        while isSymbol(",") {
            advance()
            methodArguments.append(try parseExpression())
        }
        try expectSymbol(")", "to close FUNCTION(…)")
        guard methodArguments.count == arity else {
            throw PredicateSyntaxError(
                message: "\(selector) takes \(arity) argument\(arity == 1 ? "" : "s"), found \(methodArguments.count)",
                predicate: source, offset: start.offset)
        }
        return .function(ExpressionFunction.method.rawValue, arguments: [receiver, .value(.string(selector))] + methodArguments)
    }

    mutating func parseSubquery() throws(PredicateSyntaxError) -> ObjectPredicate.Expression {
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

    mutating func parseCast() throws(PredicateSyntaxError) -> ObjectPredicate.Expression {
        advance()  // CAST
        try expectSymbol("(", "after CAST")
        let valueToken = current
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
        case .value(.string(let text)):
            guard let date = ISO8601Text.date(from: text) else {
                throw PredicateSyntaxError(
                    message: "CAST(…, \"NSDate\") reads seconds since 2001-01-01 or an ISO 8601 date (2000-01-31, 2000-01-31T12:00:00Z), found \(valueToken.text)",
                    predicate: source, offset: valueToken.offset)
            }
            return .value(.date(date))
        default: return .castToDate(value)
        }
    }
}
