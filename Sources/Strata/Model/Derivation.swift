/// What a derived attribute computes: its ``AttributeDescription/derivationExpression`` read as
/// one of the forms Core Data keeps current in an SQLite store (its documentation of
/// `NSDerivedAttributeDescription`: a key path through at most one to-one, such a key path with
/// `canonical:`, `uppercase:` or `lowercase:`, an aggregate of a to-many, and `now()`).
///
/// Both ways of writing an expression are read: Xcode's key paths (`chapters.@count`,
/// `pages.@sum.number`) and NSExpression's function form, which model caches archive
/// (`count:(chapters)`, `sum:(pages.number)`, `uppercase:(name)`).
///
/// ```swift
/// try Derivation(parsing: "chapters.@count")      // .aggregate(relationship: "chapters", function: .count, attribute: nil)
/// try Derivation(parsing: "uppercase:(author.name)") // .value(relationship: "author", attribute: "name", function: .uppercase)
/// try Derivation(parsing: "now()")                // .now
/// ```
public enum Derivation: Sendable, Equatable, CustomStringConvertible {
    /// The time of the save that wrote the object (`now()`).
    case now
    /// An attribute of the object itself (`relationship` nil) or of the object a to-one leads
    /// to, as it is or through a string function.
    case value(relationship: String?, attribute: String, function: StringFunction?)
    /// An aggregate over the members of a to-many: their number, or the sum, least or greatest
    /// of one of their attributes.
    case aggregate(relationship: String, function: AggregateFunction, attribute: String?)

    /// The string functions a derivation may apply.
    public enum StringFunction: String, Sendable, CaseIterable {
        /// Lower case without diacritics, the form `[cd]` comparisons compare.
        case canonical
        case uppercase
        case lowercase
    }

    /// Reads `text`, or fails saying why it is not a form Core Data can derive in a store.
    public init(parsing text: String) throws(DerivationError) {
        let trimmed = text.filter { !$0.isWhitespace }
        guard !trimmed.isEmpty else { throw DerivationError(expression: text, reason: "it is empty") }
        if trimmed == "now()" {
            self = .now
            return
        }
        // The function form: `name:(argument)`.
        if let colon = trimmed.firstIndex(of: ":"), trimmed[trimmed.index(after: colon)...].hasPrefix("("), trimmed.hasSuffix(")") {
            let name = String(trimmed[..<colon])
            let argument = String(trimmed[trimmed.index(colon, offsetBy: 2)..<trimmed.index(before: trimmed.endIndex)])
            let path = try Self.keyPath(argument, in: text)
            if let function = StringFunction(rawValue: name) {
                guard path.count <= 2 else { throw DerivationError(expression: text, reason: "\(name): takes an attribute or a to-one's attribute") }
                self = .value(relationship: path.count == 2 ? path[0] : nil, attribute: path[path.count - 1], function: function)
            } else if let aggregate = AggregateFunction(coreDataName: name + ":"), aggregate.isDerivable {
                self = try Self.aggregate(aggregate, over: path, in: text)
            } else {
                let names = StringFunction.allCases.map { $0.rawValue + ":" } + Self.derivableAggregates.map(\.coreDataName)
                throw DerivationError(expression: text, reason: "'\(name):' is not a function Core Data derives (\(names.joined(separator: ", ")))")
            }
            return
        }
        let path = try Self.keyPath(trimmed, in: text)
        if let index = path.firstIndex(where: { $0.hasPrefix("@") }) {
            guard let aggregate = AggregateFunction(keyPathOperator: path[index]), aggregate.isDerivable else {
                let operators = Self.derivableAggregates.compactMap(\.keyPathOperator).joined(separator: ", ")
                throw DerivationError(expression: text, reason: "'\(path[index])' is not an aggregate Core Data derives (\(operators))")
            }
            // `pages.@count`, `pages.@sum.number`, and `pages.number.@sum` as NSExpression also reads it.
            self = try Self.aggregate(aggregate, over: path.enumerated().filter { $0.offset != index }.map(\.element), in: text)
            return
        }
        guard path.count <= 2 else {
            throw DerivationError(expression: text, reason: "a key path may go through one to-one relationship only")
        }
        self = .value(relationship: path.count == 2 ? path[0] : nil, attribute: path[path.count - 1], function: nil)
    }

    /// The aggregates a derivation may apply, in the order of ``AggregateFunction/keyPathAggregates``.
    private static let derivableAggregates = AggregateFunction.keyPathAggregates.filter(\.isDerivable)

    private static func aggregate(_ function: AggregateFunction, over path: [String], in text: String) throws(DerivationError) -> Derivation {
        let spelled = function.keyPathOperator ?? function.coreDataName
        switch (function, path.count) {
        case (.count, 1): return .aggregate(relationship: path[0], function: .count, attribute: nil)
        case (_, 2) where function != .count: return .aggregate(relationship: path[0], function: function, attribute: path[1])
        case (.count, _): throw DerivationError(expression: text, reason: "\(spelled) takes a to-many relationship, as in 'chapters.\(spelled)'")
        default: throw DerivationError(expression: text, reason: "\(spelled) takes a to-many and one of its attributes, as in 'pages.\(spelled).number'")
        }
    }

    /// The names of a key path, each a plain identifier or an `@` aggregate.
    private static func keyPath(_ text: String, in expression: String) throws(DerivationError) -> [String] {
        let names = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        for name in names {
            let body = name.hasPrefix("@") ? name.dropFirst() : Substring(name)
            guard let first = body.first, first.isLetter || first == "_", body.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else {
                throw DerivationError(expression: expression, reason: "'\(text)' is not a key path")
            }
        }
        return names
    }

    /// The derivation as Xcode's model editor writes it: `now()`, `uppercase:(name)`,
    /// `author.name`, `chapters.@count`, `pages.@sum.number`.
    public var description: String {
        switch self {
        case .now: return "now()"
        case .value(let relationship, let attribute, let function):
            let path = relationship.map { "\($0).\(attribute)" } ?? attribute
            return function.map { "\($0.rawValue):(\(path))" } ?? path
        case .aggregate(let relationship, let function, let attribute):
            let path = relationship + (attribute.map { ".\($0)" } ?? "")
            // Only an aggregate a derivation cannot apply lacks a key-path operator.
            guard let keyPathOperator = function.keyPathOperator else { return "\(function.coreDataName)(\(path))" }
            return "\(relationship).\(keyPathOperator)" + (attribute.map { ".\($0)" } ?? "")
        }
    }
}

/// Why a derivation expression is not one Core Data can keep current in a store.
public struct DerivationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The expression as the model writes it.
    public var expression: String
    /// What is wrong with it, in a user's words.
    public var reason: String

    public var description: String { "the derivation '\(expression)' cannot be derived in a store: \(reason)" }
}

extension AttributeDescription {
    /// The attribute's ``derivationExpression`` read as a ``Derivation``; `nil` when the
    /// attribute is not derived or has no expression.
    public var derivation: Derivation? {
        get throws(DerivationError) {
            guard isDerived, let derivationExpression else { return nil }
            return try Derivation(parsing: derivationExpression)
        }
    }
}
