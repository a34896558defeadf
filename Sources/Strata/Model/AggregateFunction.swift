/// An aggregate: a function that reduces many values (the members of a to-many, the objects of
/// a group) to one. This type owns the aggregates' vocabulary: every name by which a predicate,
/// a select list, a derived attribute or a model cache spells one, and what each gives back.
/// The parsers, the SQL compiler, the evaluator and the derivations ask it rather than list the
/// names themselves.
///
/// Each has up to three spellings:
///
/// | case | ``rawValue`` (select lists) | ``coreDataName`` (`NSExpression`) | ``keyPathOperator`` |
/// |---|---|---|---|
/// | ``average`` | `avg` (also `average`) | `average:` | `@avg` |
/// | ``sum`` | `sum` | `sum:` | `@sum` |
/// | ``stddev`` | `stddev` | `stddev:` | — |
/// | ``min`` | `min` | `min:` | `@min` |
/// | ``max`` | `max` | `max:` | `@max` |
/// | ``median`` | `median` | `median:` | — |
/// | ``count`` | `count` | `count:` | `@count` |
/// | ``mode`` | `mode` | `mode:` | — |
///
/// ```swift
/// try AggregateFunction(named: "average")            // .average
/// AggregateFunction(coreDataName: "stddev:")         // .stddev
/// AggregateFunction(keyPathOperator: "@sum")         // .sum
/// AggregateFunction.average.keyPathOperator          // "@avg"
/// try AggregateFunction(named: "total")              // throws UnknownAggregateError naming "total"
/// ```
public enum AggregateFunction: String, Sendable, CaseIterable {
    /// The mean of the numbers; nil when there are none.
    case average = "avg"
    /// The total of the numbers; 0 when there are none.
    case sum
    /// The population standard deviation (divided by the number of values).
    case stddev
    /// The least value; nil when there are none.
    case min
    /// The greatest value; nil when there are none.
    case max
    /// The middle value; for an even number of values, the mean of the two middle ones.
    case median
    /// The number of non-nil values, or of objects for `count(*)` and `@count`.
    case count
    /// The most frequent numbers, as a list: a predicate asks whether a value is one of them
    /// (`x IN mode(…)`). A dictionary fetch does not select it (see ``isSelectable``).
    case mode

    /// What an aggregate gives back.
    public enum Result: Sendable {
        /// An integer whatever the values are: ``count``.
        case integer
        /// A real number whatever the values are: ``average``, ``stddev``, ``median``.
        case real
        /// A number of the values' kind: integers sum to an integer, anything else to a real
        /// (``sum``).
        case numberLikeValues
        /// One of the values, of their type: ``min``, ``max``.
        case oneOfValues
        /// A list of some of the values: ``mode``.
        case list
    }

    // MARK: - Spellings

    /// The name of Core Data's `NSExpression` function, with its colon, as a predicate's
    /// function form and a model cache write it: `average:`, `sum:`, `count:`.
    public var coreDataName: String {
        self == .average ? "average:" : rawValue + ":"
    }

    /// The operator that applies it to a to-many in a key path (`books.@avg.rating`,
    /// `chapters.@count`), or `nil` for the aggregates a key path does not offer.
    public var keyPathOperator: String? {
        Self.keyPathAggregates.contains(self) ? "@" + rawValue : nil
    }

    /// The aggregates a key path may apply after a to-many, in the order Core Data's
    /// documentation of collection operators lists them: `@count`, `@sum`, `@avg`, `@min`, `@max`.
    public static let keyPathAggregates: [AggregateFunction] = [.count, .sum, .average, .min, .max]

    // MARK: - Looking one up

    /// The aggregate spelt `name` in any of the ways Core Data and Strata spell it: the short
    /// name (`avg`), the Core Data name with or without its colon (`average:`, `average`), or
    /// the key-path operator (`@avg`). Names are compared without regard to case.
    ///
    /// ```swift
    /// let function = try AggregateFunction(named: "AVG")   // .average
    /// ```
    ///
    /// - Throws: ``UnknownAggregateError`` naming `name` and listing the short names.
    public init(named name: String) throws(UnknownAggregateError) {
        let lowercased = name.lowercased()
        let found = Self.allCases.first { function in
            [function.rawValue, function.coreDataName, String(function.coreDataName.dropLast())].contains(lowercased)
                || function.keyPathOperator == lowercased
        }
        guard let found else { throw UnknownAggregateError(name: name) }
        self = found
    }

    /// The aggregate whose Core Data function name is `coreDataName` (`average:`), exactly as
    /// an archived expression or a predicate's function form writes it; `nil` for any other.
    public init?(coreDataName: String) {
        guard let found = Self.allCases.first(where: { $0.coreDataName == coreDataName }) else { return nil }
        self = found
    }

    /// The aggregate a key path's `keyPathOperator` applies (`@avg`), exactly as the key path
    /// writes it; `nil` for any other component.
    public init?(keyPathOperator: String) {
        guard let found = Self.keyPathAggregates.first(where: { $0.keyPathOperator == keyPathOperator }) else { return nil }
        self = found
    }

    // MARK: - Meaning

    /// What it gives back.
    public var result: Result {
        switch self {
        case .count: .integer
        case .average, .stddev, .median: .real
        case .sum: .numberLikeValues
        case .min, .max: .oneOfValues
        case .mode: .list
        }
    }

    /// Whether it reads its values as numbers, so that a string or an object gives it nothing
    /// to work on; ``count`` counts anything, ``min`` and ``max`` also order dates.
    public var takesNumbers: Bool {
        switch self {
        case .average, .sum, .stddev, .median, .mode: true
        case .count, .min, .max: false
        }
    }

    /// Whether a dictionary fetch's select list offers it (``FetchedProperty``): all but
    /// ``mode``, whose list is no value of a column.
    public var isSelectable: Bool { result != .list }

    /// Whether Core Data keeps a derived attribute of it current in an SQLite store (see
    /// ``Derivation``): its documentation of `NSDerivedAttributeDescription` names `@count` and
    /// `@sum`; its SQLite store also takes `@min` and `@max` of a one-to-many.
    public var isDerivable: Bool {
        switch self {
        case .count, .sum, .min, .max: true
        case .average, .stddev, .median, .mode: false
        }
    }
}

/// A name that is no aggregate's spelling (see ``AggregateFunction/init(named:)``).
public struct UnknownAggregateError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The name as it was given.
    public var name: String

    /// An error naming `name`.
    init(name: String) {
        self.name = name
    }

    /// `unknown aggregate 'total'; aggregates: avg, sum, …`.
    public var description: String {
        "unknown aggregate '\(name)'; aggregates: \(AggregateFunction.allCases.map(\.rawValue).joined(separator: ", "))"
    }
}
