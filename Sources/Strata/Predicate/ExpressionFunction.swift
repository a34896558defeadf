import Foundation

/// The built-in functions of Core Data's expressions (`NSExpression`'s), by the names Core Data
/// gives them (`add:to:`, `sqrt:`, `now`), on stored values.
///
/// This is the one implementation: a predicate evaluated in memory applies it to its values,
/// and SQL calls it through the function `strata_function(name, arguments…)` every connection
/// registers, so that a fetch answers the same in SQL as in memory. Dates are their stored
/// form, seconds since 2001-01-01.
///
/// Nil, and any value of the wrong kind (a string to `sqrt:`, a number to `uppercase:`), gives
/// nil, as SQL's NULL propagates. So do results that are not numbers: a division or modulus by
/// zero, the square root or logarithm of a negative number. Integer arithmetic stays integer
/// until it would overflow, and then is carried out in floating point, as SQLite does.
/// `random` gives an integer from 0 to 2³¹ − 1 and `randomn:` one from 0 to below its
/// argument, as Foundation's do; `length:` counts a string's UTF-16 code units, as `NSString`
/// does; `noindex:` gives its argument, and in SQL keeps SQLite from using an index for it.
enum ExpressionFunction: Hashable, Sendable, CaseIterable, RawRepresentable {
    case add
    case subtract
    case multiply
    case divide
    case modulus
    case power
    case squareRoot
    case logarithm
    case naturalLogarithm
    case exponential
    case floor
    case ceiling
    case absolute
    case truncate
    case uppercase
    case lowercase
    case bitwiseAnd
    case bitwiseOr
    case bitwiseXor
    case leftShift
    case rightShift
    case onesComplement
    case now
    case random
    case randomBelow
    case length
    case noIndex
    /// `list[0]`, `list[FIRST]`, `list[LAST]`: a member of a collection, by its index from 0
    /// or the text FIRST or LAST.
    case index
    /// `FUNCTION(receiver, 'selector', arguments…)`: one of the ``ExpressionMethod``s.
    case method
    /// `sum:`, `count:`, `average:`…: an aggregate of a collection, named by its
    /// ``AggregateFunction/coreDataName``. The most frequent numbers, `mode:`'s result, are a
    /// list: a list is no SQL value, so SQL gets it as a JSON array.
    case aggregate(AggregateFunction)

    static let allCases: [ExpressionFunction] = [
        .add, .subtract, .multiply, .divide, .modulus, .power, .squareRoot, .logarithm, .naturalLogarithm, .exponential, .floor,
        .ceiling, .absolute, .truncate, .uppercase, .lowercase, .bitwiseAnd, .bitwiseOr, .bitwiseXor, .leftShift, .rightShift,
        .onesComplement, .now, .random, .randomBelow, .length, .noIndex, .index, .method,
    ] + AggregateFunction.allCases.map(Self.aggregate)

    /// The name Core Data gives it: its selector (`add:to:`, `sqrt:`, `now`); an aggregate's
    /// is its ``AggregateFunction/coreDataName``.
    var rawValue: String {
        switch self {
        case .add: "add:to:"
        case .subtract: "from:subtract:"
        case .multiply: "multiply:by:"
        case .divide: "divide:by:"
        case .modulus: "modulus:by:"
        case .power: "raise:toPower:"
        case .squareRoot: "sqrt:"
        case .logarithm: "log:"
        case .naturalLogarithm: "ln:"
        case .exponential: "exp:"
        case .floor: "floor:"
        case .ceiling: "ceiling:"
        case .absolute: "abs:"
        case .truncate: "trunc:"
        case .uppercase: "uppercase:"
        case .lowercase: "lowercase:"
        case .bitwiseAnd: "bitwiseAnd:with:"
        case .bitwiseOr: "bitwiseOr:with:"
        case .bitwiseXor: "bitwiseXor:with:"
        case .leftShift: "leftshift:by:"
        case .rightShift: "rightshift:by:"
        case .onesComplement: "onesComplement:"
        case .now: "now"
        case .random: "random"
        case .randomBelow: "randomn:"
        case .length: "length:"
        case .noIndex: "noindex:"
        case .index: "objectFrom:withIndex:"
        case .method: "FUNCTION"
        case .aggregate(let function): function.coreDataName
        }
    }

    /// The function Core Data names `rawValue`, exactly as an archived or parsed expression
    /// writes it.
    init?(rawValue: String) {
        guard let found = Self.byName[rawValue] else { return nil }
        self = found
    }

    private static let byName = Dictionary(uniqueKeysWithValues: allCases.map { ($0.rawValue, $0) })

    /// How many arguments it takes; `nil` for the aggregates, which take a collection or any
    /// number of values.
    var arity: Int? {
        if isAggregate || self == .method { return nil }
        return rawValue.count { $0 == ":" }
    }

    /// Whether its first argument is a collection whose members it takes: the aggregates, and
    /// ``index``, whose last argument is the index.
    var takesCollection: Bool { isAggregate || self == .index }

    /// Whether it reduces a collection (`sum:`, `count:`, …) to one value.
    var isAggregate: Bool { aggregateFunction != nil }

    /// The aggregate it applies, or `nil` for a function of single values.
    var aggregateFunction: AggregateFunction? {
        if case .aggregate(let function) = self { function } else { nil }
    }

    /// Whether its result is a string.
    var returnsString: Bool { self == .uppercase || self == .lowercase }

    /// The functions a format string calls by name (``method`` is `FUNCTION(…)`'s).
    static let callable = allCases.filter { $0 != .method }

    /// The function named `name` in a format string: its selector (`modulus:by:`) or the
    /// selector's first word (`modulus`, `sqrt`, `now`); an aggregate by any name
    /// ``AggregateFunction/init(named:)`` knows (`avg` is `average:`).
    init?(named name: String) {
        if let exact = Self.callable.first(where: { $0.rawValue == name }) {
            self = exact
        } else if let found = Self.callable.first(where: { $0.shortName.caseInsensitiveCompare(name) == .orderedSame }) {
            self = found
        } else if let aggregate = try? AggregateFunction(named: name) {
            self = .aggregate(aggregate)
        } else {
            return nil
        }
    }

    /// The selector's first word: what a format string may call it by.
    var shortName: String { String(rawValue.prefix { $0 != ":" }) }

    // MARK: - Applying

    /// The function's value for `arguments` (for an aggregate, the members of its collection).
    func apply(_ arguments: [DatabaseValue]) -> DatabaseValue {
        if let aggregate = aggregateFunction { return Self.apply(aggregate, to: arguments) }
        if self == .index { return arguments.last.map { Self.member(of: arguments.dropLast(), at: $0) } ?? .null }
        if self == .method {
            guard arguments.count >= 2, let method = arguments[1].stringValue.flatMap(ExpressionMethod.init) else { return .null }
            return method.apply(to: arguments[0], Array(arguments.dropFirst(2)))
        }
        guard arguments.count == arity ?? 0 else { return .null }
        switch self {
        case .add: return arithmetic(arguments[0], arguments[1], { $0.addingReportingOverflow($1) }, +)
        case .subtract: return arithmetic(arguments[0], arguments[1], { $0.subtractingReportingOverflow($1) }, -)
        case .multiply: return arithmetic(arguments[0], arguments[1], { $0.multipliedReportingOverflow(by: $1) }, *)
        case .divide:
            guard let a = arguments[0].doubleValue, let b = arguments[1].doubleValue, b != 0 else { return .null }
            return .real(a / b)
        case .modulus:
            if case .integer(let a) = arguments[0], case .integer(let b) = arguments[1] {
                guard b != 0 else { return .null }
                return b == -1 ? .integer(0) : .integer(a % b)
            }
            guard let a = arguments[0].doubleValue, let b = arguments[1].doubleValue, b != 0 else { return .null }
            return .real(fmod(a, b))
        case .power: return real(arguments[0]) { Foundation.pow($0, arguments[1].doubleValue ?? .nan) }
        case .squareRoot: return real(arguments[0]) { $0 >= 0 ? $0.squareRoot() : .nan }
        case .logarithm: return real(arguments[0]) { $0 > 0 ? log10($0) : .nan }
        case .naturalLogarithm: return real(arguments[0]) { $0 > 0 ? Foundation.log($0) : .nan }
        case .exponential: return real(arguments[0]) { Foundation.exp($0) }
        case .floor: return rounded(arguments[0], .down)
        case .ceiling: return rounded(arguments[0], .up)
        case .truncate: return rounded(arguments[0], .towardZero)
        case .absolute:
            if case .integer(let value) = arguments[0] { return value == .min ? .real(-Double(value)) : .integer(Swift.abs(value)) }
            return real(arguments[0]) { Swift.abs($0) }
        case .uppercase: return arguments[0].stringValue.map { .text($0.uppercased()) } ?? .null
        case .lowercase: return arguments[0].stringValue.map { .text($0.lowercased()) } ?? .null
        case .bitwiseAnd: return integers(arguments) { $0 & $1 }
        case .bitwiseOr: return integers(arguments) { $0 | $1 }
        case .bitwiseXor: return integers(arguments) { $0 ^ $1 }
        case .leftShift: return integers(arguments) { $1 >= 0 && $1 < 64 ? $0 << $1 : 0 }
        case .rightShift: return integers(arguments) { $1 >= 0 && $1 < 64 ? $0 >> $1 : ($0 < 0 ? -1 : 0) }
        case .onesComplement: return arguments[0].exactInteger.map { .integer(~$0) } ?? .null
        case .now: return .real(Date().timeIntervalSinceReferenceDate)
        case .random: return .integer(Int64.random(in: 0...Int64(Int32.max)))
        case .randomBelow:
            guard let bound = arguments[0].exactInteger, bound > 0 else { return .null }
            return .integer(Int64.random(in: 0..<bound))
        case .length: return arguments[0].stringValue.map { .integer(Int64($0.utf16.count)) } ?? .null
        case .noIndex: return arguments[0]
        case .index, .method, .aggregate: return .null
        }
    }

    /// An aggregate of `members`: nil members are left out, except by `count:`, which counts
    /// every member, as `@count` does.
    private static func apply(_ function: AggregateFunction, to members: [DatabaseValue]) -> DatabaseValue {
        let numbers = members.compactMap(\.doubleValue)
        switch function {
        case .count: return .integer(Int64(members.count))
        case .sum:
            var total: Int64 = 0
            for member in members {
                guard case .integer(let value) = member else { continue }
                let (sum, overflow) = total.addingReportingOverflow(value)
                if overflow { return .real(numbers.reduce(0, +)) }
                total = sum
            }
            // Only integers sum to an integer; a real among them makes the sum real.
            return members.contains { if case .real = $0 { true } else { false } } ? .real(numbers.reduce(0, +)) : .integer(total)
        case .min: return members.filter { $0.doubleValue != nil }.min { $0.doubleValue! < $1.doubleValue! } ?? .null
        case .max: return members.filter { $0.doubleValue != nil }.max { $0.doubleValue! < $1.doubleValue! } ?? .null
        case .average: return numbers.isEmpty ? .null : .real(numbers.reduce(0, +) / Double(numbers.count))
        case .median:
            guard !numbers.isEmpty else { return .null }
            let sorted = numbers.sorted(), middle = sorted.count / 2
            return .real(sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2)
        case .stddev:
            guard !numbers.isEmpty else { return .null }
            let mean = numbers.reduce(0, +) / Double(numbers.count)
            return .real((numbers.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(numbers.count)).squareRoot())
        case .mode: return .text("[" + Self.modes(of: members).map(\.description).joined(separator: ",") + "]")
        }
    }

    /// The numbers that occur most often among `members`, in the order they first occur; an
    /// integer and a real of the same value count as one number. Infinities are left out: the
    /// JSON array SQL gets cannot hold them.
    static func modes(of members: [DatabaseValue]) -> [DatabaseValue] {
        var counts: [DatabaseValue: Int] = [:], order: [DatabaseValue] = []
        for member in members where member.doubleValue?.isFinite == true {
            let number = member.exactInteger.map(DatabaseValue.integer) ?? member
            if counts[number] == nil { order.append(number) }
            counts[number, default: 0] += 1
        }
        let most = counts.values.max() ?? 0
        return order.filter { counts[$0] == most }
    }

    /// The member of `members` at `index`: from 0, or FIRST or LAST; nil past either end.
    private static func member(of members: ArraySlice<DatabaseValue>, at index: DatabaseValue) -> DatabaseValue {
        switch index.stringValue?.uppercased() {
        case "FIRST": return members.first ?? .null
        case "LAST": return members.last ?? .null
        default:
            guard let offset = index.exactInteger, offset >= 0, offset < members.count else { return .null }
            return members[members.startIndex + Int(offset)]
        }
    }

    // MARK: - Kinds of arithmetic

    /// Integers by `exact` while it does not overflow, anything else numeric by `real`.
    private func arithmetic(
        _ a: DatabaseValue, _ b: DatabaseValue, _ exact: (Int64, Int64) -> (partialValue: Int64, overflow: Bool), _ real: (Double, Double) -> Double
    ) -> DatabaseValue {
        if case .integer(let x) = a, case .integer(let y) = b {
            let (value, overflow) = exact(x, y)
            if !overflow { return .integer(value) }
        }
        guard let x = a.doubleValue, let y = b.doubleValue else { return .null }
        return Self.finite(real(x, y))
    }

    private func real(_ value: DatabaseValue, _ body: (Double) -> Double) -> DatabaseValue {
        value.doubleValue.map { Self.finite(body($0)) } ?? .null
    }

    private func rounded(_ value: DatabaseValue, _ rule: FloatingPointRoundingRule) -> DatabaseValue {
        if case .integer = value { return value }
        return real(value) { $0.rounded(rule) }
    }

    private func integers(_ arguments: [DatabaseValue], _ body: (Int64, Int64) -> Int64) -> DatabaseValue {
        guard let a = arguments[0].exactInteger, let b = arguments[1].exactInteger else { return .null }
        return .integer(body(a, b))
    }

    private static func finite(_ value: Double) -> DatabaseValue {
        value.isFinite ? .real(value) : .null
    }
}

extension DatabaseValue {
    /// An integer, or a real with no fraction that an integer holds.
    fileprivate var exactInteger: Int64? {
        switch self {
        case .integer(let value): value
        case .real: int64Value
        default: nil
        }
    }
}
