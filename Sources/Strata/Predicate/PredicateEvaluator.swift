import Foundation

/// An object a predicate can be evaluated on: its identity, and its properties by name.
/// Managed objects are subjects (with their unsaved changes); the protocol keeps this layer
/// free of contexts.
protocol PredicateSubject {
    associatedtype Failure: Error
    /// The type of the objects its relationships lead to (the type itself, for managed objects).
    associatedtype Related

    var objectID: ObjectID { get }

    /// The current value of property `key`, or an error when the entity has no such property.
    func predicateProperty(_ key: String) throws(Failure) -> PredicateProperty<Related>

    /// The object with `id`, from the same source as this one.
    func relatedObject(_ id: ObjectID) throws(Failure) -> Related

    /// Whether `components`, followed from this object's entity, cross a to-many relationship
    /// before ending on a value (an aggregate ends it as one value): the model's answer, which
    /// holds also where a nil to-one stops the walk through the objects.
    func keyPathCrossesToMany(_ components: [String]) -> Bool

    /// The failure to throw for a `MATCHES` or `LIKE` that gave no answer, as SQL fails the
    /// statement for it.
    static func failure(_ error: StringMatchError) -> Failure
}

/// What a property of a ``PredicateSubject`` holds.
enum PredicateProperty<Subject> {
    case attribute(AttributeValue?)
    case toOne(Subject?)
    case toMany([Subject])
}

/// Evaluates a predicate on an object in memory. This is the reference meaning of a predicate:
/// a fetch that filters in SQL must agree with it.
///
/// Nil semantics, as Foundation's: `x == nil` holds for an unset value, `x != value` holds for
/// an unset `x`, and every other comparison with an unset value fails. String options `[c]`
/// and `[d]` fold case and diacritics; numbers compare by value whatever their type.
enum PredicateEvaluator<Subject: PredicateSubject> where Subject.Related == Subject {
    /// Whether `object` satisfies `predicate`, with `variables` bound (a SUBQUERY binds its own).
    static func evaluate(_ predicate: ObjectPredicate, on object: Subject, variables: [String: Operand] = [:]) throws(Subject.Failure) -> Bool {
        switch predicate {
        case .constant(let value): return value
        case .not(let inner): return try !evaluate(inner, on: object, variables: variables)
        case .and(let terms):
            for term in terms where try !evaluate(term, on: object, variables: variables) { return false }
            return true
        case .or(let terms):
            for term in terms where try evaluate(term, on: object, variables: variables) { return true }
            return false
        case .comparison(let comparison):
            let left = try operand(comparison.left, of: object, variables: variables)
            let right = try operand(comparison.right, of: object, variables: variables)
            let place: String? = if case .keyPath(let path) = comparison.left { "\(object.objectID.entityName).\(path.joined(separator: "."))" } else { nil }
            // A pattern that gives no answer fails the evaluation, as it fails the SQL statement.
            func any(_ values: [PredicateValue]) throws(Subject.Failure) -> Bool {
                do throws(StringMatchError) {
                    for value in values where try compare(value, comparison.operator, right, comparison.options, place: place) { return true }
                    return false
                } catch {
                    throw Subject.failure(error)
                }
            }
            switch comparison.quantifier {
            case nil:
                if case .many(let values) = left {
                    if comparison.operator == .contains { return values.contains { equal($0, right.single, comparison.options) } }
                    // A to-many without a quantifier means ANY here; SQL refuses it, as Core
                    // Data's fetches do, so that only a predicate in memory meets this.
                    return try any(values)
                }
                return try any([left.single])
            case .any?: return try any(left.all)
            case .all?:
                for value in left.all where try !any([value]) { return false }
                return true
            case .none?: return try !any(left.all)
            }
        }
    }

    /// What an expression evaluates to: one value, or the values of a to-many.
    enum Operand {
        case one(PredicateValue)
        case many([PredicateValue])

        var single: PredicateValue {
            if case .one(let value) = self { return value }
            return .null
        }

        /// The values a quantifier or `IN` ranges over: none for nil, which is what a key path
        /// through a nil to-one gives.
        var all: [PredicateValue] {
            switch self {
            case .one(.null): []
            case .one(.array(let values)): values
            case .one(let value): [value]
            case .many(let values): values
            }
        }
    }

    /// The value of a key path that leads along to-ones (or ends in an aggregate), as a
    /// comparison reads it: a sort key of an object in memory.
    static func value(ofKeyPath path: [String], on object: Subject) throws(Subject.Failure) -> PredicateValue {
        try operand(.keyPath(path), of: object, variables: [:]).single
    }

    /// The value of a key path as one constant that can stand for it in a predicate: its value,
    /// or, past a to-many, the array of its members' values.
    static func constant(ofKeyPath path: [String], on object: Subject) throws(Subject.Failure) -> PredicateValue {
        switch try operand(.keyPath(path), of: object, variables: [:]) {
        case .one(let value): value
        case .many(let values): .array(values)
        }
    }

    /// What `expression` evaluates to on `object`, with `variables` bound: the value of an
    /// `NSExpression` such as a mapping model's `$source.title`.
    static func evaluate(_ expression: ObjectPredicate.Expression, on object: Subject, variables: [String: Operand]) throws(Subject.Failure) -> Operand {
        try operand(expression, of: object, variables: variables)
    }

    private static func operand(_ expression: ObjectPredicate.Expression, of object: Subject, variables: [String: Operand]) throws(Subject.Failure) -> Operand {
        switch expression {
        case .value(let value): return .one(value)
        case .evaluatedObject: return .one(.objectID(object.objectID))
        case .variable(let name): return variables[name] ?? .one(.null)
        case .castToDate(let inner):
            guard case .one(let value) = try operand(inner, of: object, variables: variables), let seconds = value.number else { return .one(.null) }
            return .one(.date(Date(timeIntervalSinceReferenceDate: seconds)))
        case .keyPath(let components):
            let result = try follow(components[...], from: [object], variables: variables, many: false)
            // A to-many behind a nil to-one has no members, as in SQL, rather than one nil value.
            if case .one(.null) = result, object.keyPathCrossesToMany(components) { return .many([]) }
            return result
        case .subquery(let collection, let variable, let predicate, let then):
            guard case .many(let members) = try operand(collection, of: object, variables: variables) else { return .one(.integer(0)) }
            var matching = 0
            for case .objectID(let id) in members {
                var inner = variables
                inner[variable] = .one(.objectID(id))
                // The member is the variable's; a key path without it is the evaluated object's.
                if try evaluate(predicate, on: object, variables: inner) { matching += 1 }
            }
            return then.map(AggregateFunction.init(keyPathOperator:)) == [.count] ? .one(.integer(Int64(matching))) : .one(.null)
        case .aggregate(let members):
            var values: [PredicateValue] = []
            for member in members { values.append(try operand(member, of: object, variables: variables).single) }
            return .one(.array(values))
        case .function(let name, let arguments):
            guard let function = ExpressionFunction(rawValue: name) else { return .one(.null) }
            if function == .noIndex, let argument = arguments.first { return try operand(argument, of: object, variables: variables) }
            var values: [PredicateValue] = []
            for (position, argument) in arguments.enumerated() {
                let value = try operand(argument, of: object, variables: variables)
                // An aggregate reduces the members of its collection (or its arguments, nil
                // included, as SQL passes them), an index picks one; other functions take one
                // value each.
                switch (function.isAggregate || (function.takesCollection && position == 0), value) {
                case (true, .one(.array(let members))), (true, .many(let members)): values += members
                default: values.append(value.single)
                }
            }
            // Objects are no numbers or strings: SQL refuses them (but to count:), memory gives nil.
            if function != .aggregate(.count), values.contains(where: { if case .objectID = $0 { true } else { false } }) { return .one(.null) }
            let stored = values.map { $0.databaseValue ?? .null }
            if function == .aggregate(.mode) { return .one(.array(ExpressionFunction.modes(of: stored).map(PredicateValue.init))) }
            return .one(PredicateValue(function.apply(stored)))
        }
    }

    /// Follows a key path from `objects`; once it crosses a to-many, the result is many values.
    /// `missing` counts members whose to-one along the way was nil: their value is nil, as a
    /// NULL reached through an empty key is in SQL, until a further to-many gives them no members.
    private static func follow(
        _ components: ArraySlice<String>, from objects: [Subject], variables: [String: Operand], many: Bool, missing: Int = 0
    ) throws(Subject.Failure) -> Operand {
        guard let key = components.first else {
            let ids = objects.map { PredicateValue.objectID($0.objectID) }
            return many ? .many(ids + Array(repeating: .null, count: missing)) : .one(ids.first ?? .null)
        }
        let rest = components.dropFirst()
        if key.hasPrefix("$"), let bound = variables[String(key.dropFirst())], case .one(.objectID(let id)) = bound,
            let anchor = objects.first
        {
            return try follow(rest, from: [try anchor.relatedObject(id)], variables: variables, many: many)
        }
        if key.hasPrefix("@") {
            let values = try aggregateValues(rest, of: objects)
            // The parser lets only the key-path operators through: anything else is `@max`.
            switch AggregateFunction(keyPathOperator: key) {
            case .count?: return .one(.integer(Int64(objects.count)))
            case .sum?: return .one(.double(values.reduce(0, +)))
            case .average?: return .one(values.isEmpty ? .null : .double(values.reduce(0, +) / Double(values.count)))
            case .min?: return .one(values.min().map(PredicateValue.double) ?? .null)
            default: return .one(values.max().map(PredicateValue.double) ?? .null)
            }
        }
        var next: [Subject] = []
        var values: [PredicateValue] = []
        var isAttribute = false, isToMany = false
        var missing = missing
        for object in objects {
            switch try object.predicateProperty(key) {
            case .attribute(let value):
                isAttribute = true
                values.append(value.map(PredicateValue.init) ?? .null)
            case .toOne(let related):
                if let related { next.append(related) } else if many { missing += 1 }
            case .toMany(let related):
                isToMany = true
                next += related
            }
        }
        if isAttribute {
            guard many else { return .one(values.first ?? .null) }
            return .many(values + Array(repeating: .null, count: missing))
        }
        if isToMany { missing = 0 }
        if next.isEmpty, rest.isEmpty, !many, !isToMany { return .one(.null) }
        return try follow(rest, from: next, variables: variables, many: many || isToMany, missing: missing)
    }

    private static func aggregateValues(_ components: ArraySlice<String>, of objects: [Subject]) throws(Subject.Failure) -> [Double] {
        guard let key = components.first else { return [] }
        var numbers: [Double] = []
        for object in objects {
            if case .attribute(let value?) = try object.predicateProperty(key), let number = PredicateValue(value).number { numbers.append(number) }
        }
        return numbers
    }

    // MARK: - Comparing

    /// Whether `left op right` holds; `place` names the value compared, for the error.
    ///
    /// - Throws: ``StringMatchError`` for a MATCHES or LIKE that gives no answer.
    static func compare(
        _ left: PredicateValue, _ op: ComparisonOperator, _ right: Operand, _ options: ComparisonOptions, place: String? = nil
    ) throws(StringMatchError) -> Bool {
        switch op {
        case .in:
            return right.all.contains { equal(left, $0, options) }
        case .between:
            let bounds = right.all
            guard bounds.count == 2 else { return false }
            guard try compare(left, .greaterThanOrEqual, .one(bounds[0]), options) else { return false }
            return try compare(left, .lessThanOrEqual, .one(bounds[1]), options)
        case .contains:
            if case .many = right { return false }
            if case .string(let haystack) = left, case .string(let needle) = right.single {
                return search(haystack, needle, options, anchoredAt: nil)
            }
            if case .array(let members) = left { return members.contains { equal($0, right.single, options) } }
            return false
        default:
            break
        }
        let rightValue = right.single
        switch op {
        case .equal: return equal(left, rightValue, options)
        case .notEqual: return !equal(left, rightValue, options)
        case .beginsWith, .endsWith:
            guard case .string(let value) = left, case .string(let affix) = rightValue else { return false }
            return search(value, affix, options, anchoredAt: op == .beginsWith ? .start : .end)
        case .like:
            guard case .string(let value) = left, case .string(let pattern) = rightValue else { return false }
            return try CoreDataStringMatching.like(value, pattern: pattern, options: .init(options), place: place)
        case .matches:
            // nil (or a non-string) matches nothing, as NSPredicate answers in memory; a pattern
            // that does not compile is an error, never a "no" that NOT would turn into a "yes".
            guard case .string(let value) = left, case .string(let pattern) = rightValue else { return false }
            return try CoreDataStringMatching.matches(value, pattern: pattern, options: .init(options), place: place)
        default:
            guard let order = order(left, rightValue, options) else { return false }
            switch op {
            case .lessThan: return order == .orderedAscending
            case .lessThanOrEqual: return order != .orderedDescending
            case .greaterThan: return order == .orderedDescending
            default: return order != .orderedAscending
            }
        }
    }

    private enum Anchor { case start, end }

    private static func search(_ value: String, _ needle: String, _ options: ComparisonOptions, anchoredAt anchor: Anchor?) -> Bool {
        // Foundation finds no range for an empty string, so nothing contains, begins or ends with one.
        guard !needle.isEmpty else { return false }
        let folded = CoreDataStringMatching.fold(value, .init(options)), target = CoreDataStringMatching.fold(needle, .init(options))
        switch anchor {
        case .start?: return folded.hasPrefix(target)
        case .end?: return folded.hasSuffix(target)
        case nil: return folded.contains(target)
        }
    }

    static func equal(_ left: PredicateValue, _ right: PredicateValue, _ options: ComparisonOptions) -> Bool {
        if left == .null || right == .null { return left == .null && right == .null }
        return order(left, right, options) == .orderedSame
    }

    /// An integer against a real, exactly, as SQLite compares them: as Doubles, integers past
    /// 2⁵³ would round (2⁵³ + 1 would equal 2⁵³).
    private static func order(_ integer: Int64, _ real: Double) -> ComparisonResult? {
        guard !real.isNaN else { return nil }
        if real >= 0x1p63 { return .orderedAscending }
        if real < -0x1p63 { return .orderedDescending }
        let whole = real.rounded(.down)
        if integer != Int64(whole) { return integer < Int64(whole) ? .orderedAscending : .orderedDescending }
        return real > whole ? .orderedAscending : .orderedSame
    }

    /// How two non-nil values order, or `nil` when they cannot be compared.
    static func order(_ left: PredicateValue, _ right: PredicateValue, _ options: ComparisonOptions) -> ComparisonResult? {
        if case .integer(let a) = left, case .integer(let b) = right { return a < b ? .orderedAscending : a > b ? .orderedDescending : .orderedSame }
        if case .integer(let a) = left, case .double(let b) = right { return order(a, b) }
        if case .double(let a) = left, case .integer(let b) = right {
            return order(b, a).map { $0 == .orderedAscending ? .orderedDescending : $0 == .orderedDescending ? .orderedAscending : $0 }
        }
        if let a = left.number, let b = right.number { return a < b ? .orderedAscending : a > b ? .orderedDescending : .orderedSame }
        switch (left, right) {
        case (.string(let a), .string(let b)):
            let x = CoreDataStringMatching.fold(a, .init(options)), y = CoreDataStringMatching.fold(b, .init(options))
            return x < y ? .orderedAscending : x > y ? .orderedDescending : .orderedSame
        // Text compared with a date is read as the ISO 8601 date it writes, as SQL reads it.
        case (.date, .string(let text)): return ISO8601Text.date(from: text).flatMap { order(left, .date($0), options) }
        case (.string(let text), .date): return ISO8601Text.date(from: text).flatMap { order(.date($0), right, options) }
        case (.objectID(let a), .objectID(let b)): return a == b ? .orderedSame : nil
        case (.uuid(let a), .uuid(let b)): return a == b ? .orderedSame : nil
        case (.data(let a), .data(let b)): return a == b ? .orderedSame : nil
        default: return nil
        }
    }
}

extension PredicateValue {
    /// The value as a number, for numeric comparison: numbers, booleans, and dates as seconds
    /// since 2001-01-01.
    var number: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .double(let value): value
        case .bool(let value): value ? 1 : 0
        case .date(let value): value.timeIntervalSinceReferenceDate
        default: nil
        }
    }

    /// The predicate value of a stored value: what a function's result is in memory, as in SQL.
    init(_ value: DatabaseValue) {
        switch value {
        case .null: self = .null
        case .integer(let v): self = .integer(v)
        case .real(let v): self = .double(v)
        case .text(let v): self = .string(v)
        case .blob(let v): self = .data(v)
        }
    }

    /// The predicate value of an attribute value.
    init(_ value: AttributeValue) {
        switch value {
        case .integer(let v): self = .integer(v)
        case .double(let v): self = .double(v)
        case .decimal(let v): self = .double(NSDecimalNumber(decimal: v).doubleValue)
        case .string(let v): self = .string(v)
        case .boolean(let v): self = .bool(v)
        case .date(let v): self = .date(v)
        case .binary(let v): self = .data(v)
        case .uuid(let v): self = .uuid(v)
        case .uri(let v): self = .string(v.absoluteString)
        }
    }
}

extension CoreDataStringMatching.Options {
    init(_ options: ComparisonOptions) {
        self = []
        if options.contains(.caseInsensitive) { insert(.caseInsensitive) }
        if options.contains(.diacriticInsensitive) { insert(.diacriticInsensitive) }
    }
}
