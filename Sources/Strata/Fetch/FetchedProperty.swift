import Foundation

/// A value a dictionary fetch reads: a key path, or an aggregate over the fetched objects (or
/// over each group). Core Data's `propertiesToFetch` entries and `NSExpressionDescription`s.
///
/// ```swift
/// let select: [FetchedProperty] = [.keyPath("city"), .aggregate(.average, of: "age", as: "meanAge"), .count()]
/// let same = try FetchedProperty.list("city, avg(age) as meanAge, count(*)")
/// ```
public struct FetchedProperty: Sendable, Hashable, CustomStringConvertible {
    /// The aggregate applied to the key path's values, or `nil` for the values themselves.
    public var function: AggregateFunction?
    /// The key path read, along to-ones; `nil` only for `count(*)`.
    public var keyPath: String?
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

    /// The key of the value in a result: the alias; else the key path; else the function and
    /// the key path joined by `_` (`avg_age`, `max_author_born`), or `count` for `count(*)`.
    public var name: String {
        if let alias { return alias }
        guard let function else { return keyPath ?? "" }
        guard let keyPath else { return function.rawValue }
        return function.rawValue + "_" + keyPath.replacingOccurrences(of: ".", with: "_")
    }

    /// The property as ``list(_:)`` reads it.
    public var description: String {
        let value = function.map { "\($0.rawValue)(\(keyPath ?? "*"))" } ?? keyPath ?? ""
        return alias.map { "\(value) as \($0)" } ?? value
    }

    var components: [String]? { keyPath.map { $0.split(separator: ".", omittingEmptySubsequences: false).map(String.init) } }

    /// Reads a comma-separated list of key paths and aggregates, each with an optional
    /// `as ALIAS`: `"location, avg(age) as mean_age, count(*)"`. Function names are
    /// case-insensitive; `average` is also spelled `avg`.
    ///
    /// - Throws: ``FetchRequestError`` naming the column and the text at fault.
    public static func list(_ text: String) throws(FetchRequestError) -> [FetchedProperty] {
        var properties: [FetchedProperty] = []
        var column = 1
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            properties.append(try parse(String(item), column: column, in: text))
            column += item.count + 1
        }
        return properties
    }

    private static func parse(_ item: String, column: Int, in text: String) throws(FetchRequestError) -> FetchedProperty {
        func fail(_ reason: String) -> FetchRequestError {
            FetchRequestError("select list, column \(column) ('\(item.trimmingCharacters(in: .whitespaces))'): \(reason)")
        }
        var words = item.split(whereSeparator: \.isWhitespace).map(String.init)
        var alias: String?
        if words.count >= 2, words[words.count - 2].lowercased() == "as" {
            alias = words.removeLast()
            words.removeLast()
            guard alias!.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else { throw fail("the alias must be a plain name") }
        }
        // Spaces may stand inside an aggregate's parentheses, nowhere else.
        let expression = words.joined()
        guard !expression.isEmpty else { throw fail("expected a key path or an aggregate such as avg(age)") }
        if words.count > 1, !expression.contains("(") || words.contains(where: { $0.lowercased() == "as" }) {
            throw fail("expected one key path or aggregate, then optionally 'as NAME'")
        }
        guard let open = expression.firstIndex(of: "(") else {
            guard isKeyPath(expression) else { throw fail("'\(expression)' is not a key path") }
            return .keyPath(expression, as: alias)
        }
        let functionName = String(expression[..<open]).lowercased()
        guard let function = AggregateFunction(name: functionName) else {
            throw fail("unknown function '\(functionName)'; functions: \(AggregateFunction.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        guard expression.hasSuffix(")") else { throw fail("expected ')' after the argument of \(functionName)") }
        let argument = String(expression[expression.index(after: open)..<expression.index(before: expression.endIndex)])
        if argument == "*" {
            guard function == .count else { throw fail("only count takes '*'") }
            return .count(as: alias)
        }
        guard isKeyPath(argument) else { throw fail("'\(argument)' is not a key path") }
        return .aggregate(function, of: argument, as: alias)
    }

    private static func isKeyPath(_ text: String) -> Bool {
        text.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { part in
            !part.isEmpty && part.drop { $0 == "@" }.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" }
        }
    }
}

/// An aggregate function of a dictionary fetch, as `NSExpression` names them.
public enum AggregateFunction: String, Sendable, CaseIterable {
    case average = "avg"
    case sum
    /// The population standard deviation (divided by the number of values).
    case stddev
    case min
    case max
    /// The middle value; for an even number of values, the mean of the two middle ones.
    case median
    /// The number of non-nil values, or of objects for `count(*)`.
    case count

    init?(name: String) {
        if name == "average" {
            self = .average
        } else {
            self.init(rawValue: name)
        }
    }
}
