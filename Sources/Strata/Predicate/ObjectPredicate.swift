import Foundation

/// A condition on objects, as Core Data's `NSPredicate`: comparisons of expressions, joined
/// by AND, OR and NOT. (Not named `Predicate`: Foundation has a type of that name, and a file
/// that imports both modules must be able to name either.)
///
/// Parse one from Core Data's format-string syntax with ``init(format:_:)``:
///
/// ```swift
/// let predicate = try ObjectPredicate(format: "rating >= %@ AND title BEGINSWITH[c] %@", 4.0, "the")
/// predicate.description   // rating >= 4.0 AND title BEGINSWITH[c] "the"
/// ```
///
/// Operator precedence, from the loosest binding to the tightest: `OR` (`||`), then `AND`
/// (`&&`), then `NOT` (`!`), then the comparisons. `a OR b AND NOT c` reads as
/// `a OR (b AND (NOT c))`; parentheses group otherwise.
public indirect enum ObjectPredicate: Sendable, Hashable {
    /// `TRUEPREDICATE` or `FALSEPREDICATE`.
    case constant(Bool)
    case not(ObjectPredicate)
    case and([ObjectPredicate])
    case or([ObjectPredicate])
    /// `left operator right`, with string options and, for a to-many left side, a quantifier.
    case comparison(Comparison)

    /// One comparison of a predicate.
    public struct Comparison: Sendable, Hashable {
        /// What is compared: usually a key path.
        public var left: ObjectPredicate.Expression
        /// How the two sides are compared.
        public var `operator`: ComparisonOperator
        /// What it is compared with: usually a constant.
        public var right: ObjectPredicate.Expression
        /// How strings are compared (`[c]`, `[d]`).
        public var options: ComparisonOptions
        /// `ANY`/`SOME`, `ALL` or `NONE` before a to-many key path; `nil` otherwise.
        public var quantifier: Quantifier?

        /// Compares `left` with `right` by `operator`.
        public init(
            _ left: ObjectPredicate.Expression, _ operator: ComparisonOperator, _ right: ObjectPredicate.Expression,
            options: ComparisonOptions = [], quantifier: Quantifier? = nil
        ) {
            self.left = left
            self.operator = `operator`
            self.right = right
            self.options = options
            self.quantifier = quantifier
        }
    }
}

/// A comparison's operator.
public enum ComparisonOperator: String, Sendable, CaseIterable {
    case lessThan = "<"
    case lessThanOrEqual = "<="
    case greaterThan = ">"
    case greaterThanOrEqual = ">="
    case equal = "=="
    case notEqual = "!="
    /// `BETWEEN {low, high}`, both ends included.
    case between = "BETWEEN"
    /// `IN {…}` or `IN` a to-many key path.
    case `in` = "IN"
    /// Substring of a string, or member of a collection.
    case contains = "CONTAINS"
    case beginsWith = "BEGINSWITH"
    case endsWith = "ENDSWITH"
    /// `*` any run of characters, `?` one character.
    case like = "LIKE"
    /// An ICU regular expression matching the whole value.
    case matches = "MATCHES"
}

/// The string options of a comparison: `[c]` case-insensitive, `[d]` diacritic-insensitive.
public struct ComparisonOptions: OptionSet, Sendable, Hashable {
    /// The options as bits.
    public let rawValue: Int
    /// The options whose bits are `rawValue`.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// `[c]`: letters compare without regard to case.
    public static let caseInsensitive = ComparisonOptions(rawValue: 1)
    /// `[d]`: letters compare without regard to accents.
    public static let diacriticInsensitive = ComparisonOptions(rawValue: 2)
}

/// How a comparison on a to-many key path counts its members.
public enum Quantifier: String, Sendable {
    /// At least one member satisfies it (`ANY`, `SOME`).
    case any = "ANY"
    /// Every member satisfies it.
    case all = "ALL"
    /// No member satisfies it.
    case none = "NONE"
}

extension ObjectPredicate {
    /// One side of a comparison: Core Data's `NSExpression`.
    public indirect enum Expression: Sendable, Hashable {
        /// A key path from the evaluated object: `author.name`, `books.@count`, `books.@sum.rating`.
        case keyPath([String])
        case value(PredicateValue)
        /// `$NAME`, replaced by ``ObjectPredicate/substituting(_:)``.
        case variable(String)
        /// The evaluated object itself.
        case evaluatedObject
        /// `SUBQUERY(collection, $x, predicate)`; `.@count` after it is a key path component.
        case subquery(collection: Expression, variable: String, predicate: ObjectPredicate, then: [String])
        /// `CAST(value, "NSDate")`: a number of seconds since 2001-01-01 as a date.
        case castToDate(Expression)
        /// `{low, $HIGH}`: a list whose members are not all constants (a list of constants is
        /// a ``PredicateValue/array(_:)`` value).
        case aggregate([Expression])
        /// One of Core Data's built-in functions, by its selector name, applied to `arguments`:
        /// the arithmetic operators (`age + 1` is `add:to:`, `-x` is `from:subtract:` of 0),
        /// `sqrt:`, `now`, `sum:` and the others `NSExpression` documents.
        case function(String, arguments: [Expression])
    }
}

extension ObjectPredicate.Expression {
    /// The expressions this one is made of, for walks that treat each of them alike.
    var operands: [ObjectPredicate.Expression] {
        switch self {
        case .castToDate(let value): [value]
        case .aggregate(let members): members
        case .function(_, let arguments): arguments
        case .subquery(let collection, _, _, _): [collection]
        case .keyPath, .value, .variable, .evaluatedObject: []
        }
    }

    /// The expression with each of its ``operands`` replaced by `transform`'s result.
    func mappingOperands(_ transform: (ObjectPredicate.Expression) throws -> ObjectPredicate.Expression) rethrows -> ObjectPredicate.Expression {
        switch self {
        case .castToDate(let value): .castToDate(try transform(value))
        case .aggregate(let members): .aggregate(try members.map(transform))
        case .function(let name, let arguments): .function(name, arguments: try arguments.map(transform))
        case .subquery(let collection, let variable, let predicate, let then):
            .subquery(collection: try transform(collection), variable: variable, predicate: predicate, then: then)
        case .keyPath, .value, .variable, .evaluatedObject: self
        }
    }
}

/// A constant in a predicate.
public enum PredicateValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    case string(String)
    case date(Date)
    case data(Data)
    case uuid(UUID)
    case objectID(ObjectID)
    case array([PredicateValue])
}

// MARK: - Building values in code

extension PredicateValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: PredicateValue...) { self = .array(elements) }
}
