import Foundation

// CoreDataMonk's predicate DSL. It only builds the `ObjectPredicate` values the format parser gives
// for the equivalent format string, so evaluation, SQL and `description` need nothing new.

/// Marks a string as a key path, as `%K` does in a format string.
///
/// ```swift
/// let monks = %"name" == "Monk" && %"friend.age" > 30   // name == "Monk" AND friend.age > 30
/// ```
prefix operator %

/// Marks a string as a key path before a member. A prefix operator binds looser than `.`, so
/// `%"title".like("T*")` would call `like` on the string; the postfix form makes the key first.
///
/// ```swift
/// %"friends.age"%.any > 30    // ANY friends.age > 30, as CoreDataMonk writes it
/// "title"%.like("The H*")     // title LIKE "The H*"
/// ```
postfix operator %

/// The key path `name`, split at its dots: `%"friend.age"` is `friend.age`.
///
/// ```swift
/// %"friend.age" == 30
/// ```
public prefix func % (name: String) -> PredicateKey { PredicateKey(name) }

/// The key path `name`, for a member right after it.
///
/// ```swift
/// "title"%.beginsWith("The")   // title BEGINSWITH "The"
/// ```
public postfix func % (name: String) -> PredicateKey { PredicateKey(name) }

/// A key path to compare, made with `%"name"` or `"name"%`.
///
/// Not `Equatable` on purpose: `%"a" == %"b"` must build a predicate, and an `Equatable` key
/// would make it ambiguous with a `Bool` comparison.
///
/// ```swift
/// let age = %"friend.age"   // components ["friend", "age"]
/// let predicate = age >= 18 && age < %"friend.retirementAge"
/// ```
public struct PredicateKey: PredicateKeyExpression {
    /// The components, `["books", "@sum", "rating"]` for `%"books.@sum.rating"`.
    public var components: [String]

    /// Splits `path` at its dots and drops empty components, as `%K` does: `PredicateKey("author.name")`.
    public init(_ path: String) { components = path.split(separator: ".").map(String.init) }

    /// A key path from its components, for keys that would be misread when joined:
    /// `PredicateKey(components: ["author", "name"])`.
    public init(components: [String]) { self.components = components }

    /// The key path as an expression: `(%"author.name").expression` is `.keyPath(["author", "name"])`.
    public var expression: ObjectPredicate.Expression { .keyPath(components) }

    /// The key itself, for ``PredicateKeyExpression``: `(%"title").key`.
    public var key: PredicateKey { self }

    /// `nil`, since ``any``, ``all`` and ``none`` add the quantifier: `(%"title").quantifier`.
    public var quantifier: Quantifier? { nil }

    /// `ANY`: some member of the to-many matches. `%"friends.age"%.any > 30` is `ANY friends.age > 30`.
    public var any: Quantified { Quantified(key: self, quantifier: .any) }

    /// `ALL`: every member matches. `%"pages.number"%.all > 0` is `ALL pages.number > 0`.
    public var all: Quantified { Quantified(key: self, quantifier: .all) }

    /// `NONE`: no member matches. `%"tags.name"%.none == "x"` is `NONE tags.name == "x"`.
    public var none: Quantified { Quantified(key: self, quantifier: .none) }

    /// A key path with a quantifier. Its own type so that it can only start a comparison:
    /// the format syntax has no quantifier on the right side.
    ///
    /// ```swift
    /// let anyTag: PredicateKey.Quantified = (%"tags.name").any
    /// let predicate = anyTag.beginsWith("F")   // ANY tags.name BEGINSWITH "F"
    /// ```
    public struct Quantified: PredicateKeyExpression {
        /// The quantified key path: `(%"tags.name").any.key`.
        public var key: PredicateKey
        /// `.any`, `.all` or `.none`: `(%"tags.name").all.quantifier`.
        public var quantifier: Quantifier?

        init(key: PredicateKey, quantifier: Quantifier) {
            self.key = key
            self.quantifier = quantifier
        }
    }
}

/// What starts a DSL comparison, a ``PredicateKey`` plain or quantified, so that the operators
/// and string methods are written once for both.
///
/// ```swift
/// %"title" == "Dune"          // title == "Dune"
/// %"tags.name"%.any == "SF"   // ANY tags.name == "SF"
/// ```
public protocol PredicateKeyExpression: Sendable {
    /// The key path compared: `(%"tags").any.key`.
    var key: PredicateKey { get }
    /// `ANY`, `ALL` or `NONE` before the key path, or `nil`: `(%"tags").any.quantifier`.
    var quantifier: Quantifier? { get }
}

extension PredicateKeyExpression {
    func compared(_ operator: ComparisonOperator, _ right: ObjectPredicate.Expression, options: ComparisonOptions = []) -> ObjectPredicate {
        .comparison(ObjectPredicate.Comparison(key.expression, `operator`, right, options: options, quantifier: quantifier))
    }

    /// The key unchanged, so that CoreDataMonk's key marked on both sides, `%"friend.age"%.any`, compiles.
    public static prefix func % (key: Self) -> Self { key }

    /// `key == value`; an unset optional gives `key == nil`: `%"name" == "Monk"`.
    public static func == (key: Self, value: some PredicateValueConvertible) -> ObjectPredicate { key.compared(.equal, .value(value.predicateValue)) }
    /// `key == value` for a literal `nil` or a ``PredicateValue`` member: `%"author" == nil`.
    public static func == (key: Self, value: PredicateValue) -> ObjectPredicate { key.compared(.equal, .value(value)) }
    /// Two key paths: `%"owner" == %"author"` is `owner == author`.
    public static func == (key: Self, other: PredicateKey) -> ObjectPredicate { key.compared(.equal, other.expression) }

    /// `key != value`; an unset optional gives `key != nil`: `%"name" != "Monk"`.
    public static func != (key: Self, value: some PredicateValueConvertible) -> ObjectPredicate { key.compared(.notEqual, .value(value.predicateValue)) }
    /// `key != value` for a literal `nil` or a ``PredicateValue`` member: `%"author" != nil`.
    public static func != (key: Self, value: PredicateValue) -> ObjectPredicate { key.compared(.notEqual, .value(value)) }
    /// Two key paths: `%"owner" != %"author"` is `owner != author`.
    public static func != (key: Self, other: PredicateKey) -> ObjectPredicate { key.compared(.notEqual, other.expression) }

    /// `key < value`: `%"age" < 18`.
    public static func < (key: Self, value: some PredicateValueConvertible) -> ObjectPredicate { key.compared(.lessThan, .value(value.predicateValue)) }
    /// Two key paths: `%"started" < %"finished"`.
    public static func < (key: Self, other: PredicateKey) -> ObjectPredicate { key.compared(.lessThan, other.expression) }

    /// `key <= value`: `%"age" <= 65`.
    public static func <= (key: Self, value: some PredicateValueConvertible) -> ObjectPredicate { key.compared(.lessThanOrEqual, .value(value.predicateValue)) }
    /// Two key paths: `%"spent" <= %"budget"`.
    public static func <= (key: Self, other: PredicateKey) -> ObjectPredicate { key.compared(.lessThanOrEqual, other.expression) }

    /// `key > value`: `%"rating" > 4.5`.
    public static func > (key: Self, value: some PredicateValueConvertible) -> ObjectPredicate { key.compared(.greaterThan, .value(value.predicateValue)) }
    /// Two key paths: `%"finished" > %"started"`.
    public static func > (key: Self, other: PredicateKey) -> ObjectPredicate { key.compared(.greaterThan, other.expression) }

    /// `key >= value`: `%"age" >= 18`.
    public static func >= (key: Self, value: some PredicateValueConvertible) -> ObjectPredicate { key.compared(.greaterThanOrEqual, .value(value.predicateValue)) }
    /// Two key paths: `%"budget" >= %"spent"`.
    public static func >= (key: Self, other: PredicateKey) -> ObjectPredicate { key.compared(.greaterThanOrEqual, other.expression) }

    // Methods rather than operators for the keyword comparisons: Swift has no `IN` or `LIKE`
    // operator to overload, and a named method carries `options:` naturally.

    /// `key IN {values}`: `(%"name").in(["Monk", "Knight"])` is `name IN {"Monk", "Knight"}`.
    public func `in`<Values: Sequence>(_ values: Values) -> ObjectPredicate where Values.Element: PredicateValueConvertible {
        compared(.in, .value(.array(values.map(\.predicateValue))))
    }

    /// `key BETWEEN {low, high}`, both ends included: `(%"rating").between(1...5)`.
    public func between<Bound: PredicateValueConvertible>(_ range: ClosedRange<Bound>) -> ObjectPredicate {
        compared(.between, .value(.array([range.lowerBound.predicateValue, range.upperBound.predicateValue])))
    }

    /// `key CONTAINS value`: a substring, or an object of a to-many. `"title"%.contains("ring", options: .caseInsensitive)`.
    public func contains(_ value: some PredicateValueConvertible, options: ComparisonOptions = []) -> ObjectPredicate {
        compared(.contains, .value(value.predicateValue), options: options)
    }

    /// `key BEGINSWITH prefix`: `"title"%.beginsWith("the", options: .caseInsensitive)` is `title BEGINSWITH[c] "the"`.
    public func beginsWith(_ prefix: String, options: ComparisonOptions = []) -> ObjectPredicate {
        compared(.beginsWith, .value(.string(prefix)), options: options)
    }

    /// `key ENDSWITH suffix`: `"title"%.endsWith("bit")`.
    public func endsWith(_ suffix: String, options: ComparisonOptions = []) -> ObjectPredicate {
        compared(.endsWith, .value(.string(suffix)), options: options)
    }

    /// `key LIKE pattern`, `*` any run and `?` one character: `"title"%.like("The H?bb*")`.
    public func like(_ pattern: String, options: ComparisonOptions = []) -> ObjectPredicate {
        compared(.like, .value(.string(pattern)), options: options)
    }

    /// `key MATCHES regex`, an ICU regular expression for the whole value: `"isbn"%.matches("[0-9]{13}")`.
    public func matches(_ regularExpression: String, options: ComparisonOptions = []) -> ObjectPredicate {
        compared(.matches, .value(.string(regularExpression)), options: options)
    }
}

extension ObjectPredicate {
    /// `lhs AND rhs`. Swift groups `a && b && c` as `(a && b) && c`, so an AND on the left is
    /// extended: that gives the parser's flat `.and([a, b, c])`, while an AND on the right
    /// stays nested as the parser keeps `a AND (b AND c)`.
    ///
    /// ```swift
    /// %"a" == 1 && %"b" == 2 && %"c" == 3   // .and([a == 1, b == 2, c == 3])
    /// ```
    public static func && (lhs: ObjectPredicate, rhs: ObjectPredicate) -> ObjectPredicate {
        if case .and(let terms) = lhs { return .and(terms + [rhs]) }
        return .and([lhs, rhs])
    }

    /// `lhs OR rhs`, flattened on the left as `&&` is.
    ///
    /// ```swift
    /// %"a" == 1 || %"b" == 2 && %"c" == 3   // a == 1 OR b == 2 AND c == 3
    /// ```
    public static func || (lhs: ObjectPredicate, rhs: ObjectPredicate) -> ObjectPredicate {
        if case .or(let terms) = lhs { return .or(terms + [rhs]) }
        return .or([lhs, rhs])
    }

    /// `NOT predicate`; `!!p` stays two NOTs, as the parser reads `NOT NOT p`.
    ///
    /// ```swift
    /// !(%"name" == "Monk" && %"age" > 30)   // NOT (name == "Monk" AND age > 30)
    /// ```
    public static prefix func ! (predicate: ObjectPredicate) -> ObjectPredicate { .not(predicate) }

    /// CoreDataMonk's `.where`: ``init(format:_:)`` under the name its seed code uses.
    ///
    /// ```swift
    /// let predicate = try ObjectPredicate.where("name LIKE[c] %@ AND %K > %d", pattern, "age", 30)
    /// ```
    ///
    /// - Throws: ``PredicateSyntaxError`` when the format does not parse.
    public static func `where`(_ format: String, _ arguments: (any PredicateValueConvertible)?...) throws(PredicateSyntaxError) -> ObjectPredicate {
        try ObjectPredicate(format: format, arguments: arguments.map { PredicateArgument($0?.predicateValue ?? .null) })
    }
}

/// A Swift value that can be the constant of a comparison.
///
/// ```swift
/// extension Genre: PredicateValueConvertible {
///     public var predicateValue: PredicateValue { .string(rawValue) }
/// }
/// let scifi = %"genre" == Genre.scienceFiction
/// ```
public protocol PredicateValueConvertible {
    /// The value as a predicate constant: `30.predicateValue` is `.integer(30)`.
    var predicateValue: PredicateValue { get }
}

/// Itself, so a ``PredicateValue`` works wherever a Swift value does: `%"id" == PredicateValue.uuid(id)`.
extension PredicateValue: PredicateValueConvertible { public var predicateValue: PredicateValue { self } }

/// Its value: a ``PredicateArgument`` built for ``ObjectPredicate/init(format:arguments:)`` passes as it is.
extension PredicateArgument: PredicateValueConvertible { public var predicateValue: PredicateValue { value } }

/// `.string`: `%"name" == "Monk"`.
extension String: PredicateValueConvertible { public var predicateValue: PredicateValue { .string(self) } }

/// `.bool`, written `YES`/`NO`: `%"isRead" == true`.
extension Bool: PredicateValueConvertible { public var predicateValue: PredicateValue { .bool(self) } }

/// `.integer`: `%"age" > 30`.
extension Int: PredicateValueConvertible { public var predicateValue: PredicateValue { .integer(Int64(self)) } }

/// `.integer`, Core Data's Integer 64: `%"remoteID" == Int64(7)`.
extension Int64: PredicateValueConvertible { public var predicateValue: PredicateValue { .integer(self) } }

/// `.integer`, Core Data's Integer 32: `%"count" == Int32(7)`.
extension Int32: PredicateValueConvertible { public var predicateValue: PredicateValue { .integer(Int64(self)) } }

/// `.integer`, Core Data's Integer 16: `%"count" == Int16(7)`.
extension Int16: PredicateValueConvertible { public var predicateValue: PredicateValue { .integer(Int64(self)) } }

/// `.double`: `%"rating" >= 4.5`.
extension Double: PredicateValueConvertible { public var predicateValue: PredicateValue { .double(self) } }

/// `.double`, widened from Core Data's Float: `%"weight" < Float(2.5)`.
extension Float: PredicateValueConvertible { public var predicateValue: PredicateValue { .double(Double(self)) } }

/// `.date`: `%"published" < Date()`.
extension Date: PredicateValueConvertible { public var predicateValue: PredicateValue { .date(self) } }

/// `.data`: `%"thumbnail" == Data()`.
extension Data: PredicateValueConvertible { public var predicateValue: PredicateValue { .data(self) } }

/// `.uuid`: `%"uuid" == UUID()`.
extension UUID: PredicateValueConvertible { public var predicateValue: PredicateValue { .uuid(self) } }

/// `.objectID`, an object compared by identity: `%"author" == tolkien.objectID`.
extension ObjectID: PredicateValueConvertible { public var predicateValue: PredicateValue { .objectID(self) } }

/// `.string`, its absolute string, as a URI attribute compares: `%"homepage" == URL(string: "https://example.org")!`.
extension URL: PredicateValueConvertible { public var predicateValue: PredicateValue { .string(absoluteString) } }

/// `.double`, as a Decimal attribute compares (15 significant digits): `%"price" < Decimal(string: "9.99")!`.
extension Decimal: PredicateValueConvertible { public var predicateValue: PredicateValue { .double(NSDecimalNumber(decimal: self).doubleValue) } }

/// `.integer`: `%"flags" == Int8(1)`.
extension Int8: PredicateValueConvertible { public var predicateValue: PredicateValue { .integer(Int64(self)) } }

/// `.integer`: `%"count" == UInt8(7)`.
extension UInt8: PredicateValueConvertible { public var predicateValue: PredicateValue { .integer(Int64(self)) } }

/// `.integer`: `%"count" == UInt16(7)`.
extension UInt16: PredicateValueConvertible { public var predicateValue: PredicateValue { .integer(Int64(self)) } }

/// `.integer`: `%"count" == UInt32(7)`.
extension UInt32: PredicateValueConvertible { public var predicateValue: PredicateValue { .integer(Int64(self)) } }

/// An attribute's value as it compares: `ObjectPredicate(format: "rating == %@", book.attributeValue(forKey: "rating"))`.
extension AttributeValue: PredicateValueConvertible { public var predicateValue: PredicateValue { PredicateValue(self) } }

/// The wrapped value, or `.null` when unset, so an optional compares as `== nil`: `%"published" == book.published`.
extension Optional: PredicateValueConvertible where Wrapped: PredicateValueConvertible {
    public var predicateValue: PredicateValue { self?.predicateValue ?? .null }
}

/// `.array`, for `IN`: `ObjectPredicate(format: "name IN %@", ["a", "b"])`.
extension Array: PredicateValueConvertible where Element: PredicateValueConvertible {
    public var predicateValue: PredicateValue { .array(map(\.predicateValue)) }
}

/// `.array` of its members, for `IN`: `ObjectPredicate(format: "self IN %@", selectedBooks)`.
extension Set: PredicateValueConvertible where Element: PredicateValueConvertible {
    public var predicateValue: PredicateValue { .array(map(\.predicateValue)) }
}
