import Foundation

// Predicates as the NSPredicate objects Core Data keeps in a store's model cache: which object
// each part of a predicate becomes. The objects' classes and keys, and which of them the
// corpus caches confirm, are in Store/ModelCache/KeyedArchiveWriter+NSPredicate.swift.
//
// Forms that have no archived counterpart the model cache reader knows are not archived (the
// whole predicate is then `$null`): SUBQUERY, a list whose members are not all constants, and
// an object ID constant (which belongs to one store, not to a model).

extension PredicateArchiver {
    /// Strata's archiver: parses the text as ``ObjectPredicate/init(format:_:)`` does (with
    /// `$VARIABLE`s such as `$FETCH_SOURCE` left unfilled) and archives the predicate as Core
    /// Data does. Text that does not parse, or that holds SUBQUERY, a list of non-constants or
    /// an object ID, is left out (`$null`).
    ///
    /// ```swift
    /// let store = try PersistentStore.create(at: "Library.sqlite", model: model, predicates: .objectPredicates)
    /// ```
    public static let objectPredicates = PredicateArchiver { text, writer in
        guard let predicate = try? ObjectPredicate(format: text, arguments: []) else { return nil }
        return predicate.archived(into: &writer)
    }
}

extension ObjectPredicate {
    /// The predicate's `NSPredicate` objects in `writer`, or `nil` when a part of it has no
    /// archived form (what was written is then left for the caller to discard).
    func archived(into writer: inout KeyedArchiveWriter) -> PropertyListValue? {
        switch self {
        case .constant(let value):
            return writer.constantPredicate(value)
        case .not(let inner):
            return inner.archived(into: &writer).map { writer.compoundPredicate(.not, [$0]) }
        case .and(let parts), .or(let parts):
            var archived: [PropertyListValue] = []
            for part in parts {
                guard let reference = part.archived(into: &writer) else { return nil }
                archived.append(reference)
            }
            if case .and = self { return writer.compoundPredicate(.and, archived) }
            return writer.compoundPredicate(.or, archived)
        case .comparison(let comparison):
            return comparison.archived(into: &writer)
        }
    }
}

extension ObjectPredicate.Comparison {
    /// An `NSComparisonPredicate`. NONE, which has no modifier of its own, is archived as NOT
    /// of the ANY comparison, the predicate Foundation's parser makes of it (inferred).
    func archived(into writer: inout KeyedArchiveWriter) -> PropertyListValue? {
        guard let left = left.archived(into: &writer), let right = right.archived(into: &writer) else { return nil }
        let modifier: Int64 = switch quantifier {
        case .all?: 1
        case .any?, .none?: 2
        case nil: 0
        }
        let comparison = writer.comparisonPredicate(left, self.operator.archivedType, right, modifier: modifier, options: Int64(options.rawValue))
        return quantifier == Quantifier.none ? writer.compoundPredicate(.not, [comparison]) : comparison
    }
}

extension ComparisonOperator {
    /// The operator's `NSPredicateOperatorType`.
    var archivedType: ArchivedOperatorType {
        switch self {
        case .lessThan: .lessThan
        case .lessThanOrEqual: .lessThanOrEqual
        case .greaterThan: .greaterThan
        case .greaterThanOrEqual: .greaterThanOrEqual
        case .equal: .equal
        case .notEqual: .notEqual
        case .between: .between
        case .in: .in
        case .contains: .contains
        case .beginsWith: .beginsWith
        case .endsWith: .endsWith
        case .like: .like
        case .matches: .matches
        }
    }
}

extension ObjectPredicate.Expression {
    /// The expression's `NSExpression` objects in `writer`, or `nil` when it has no archived
    /// form the model cache reader knows.
    func archived(into writer: inout KeyedArchiveWriter) -> PropertyListValue? {
        switch self {
        case .keyPath(let path):
            // `$FETCH_SOURCE.alias` is a key path from a variable.
            guard let first = path.first, first.hasPrefix("$") else { return writer.keyPathExpression(path.joined(separator: ".")) }
            let variable = String(first.dropFirst())
            let rest = path.dropFirst()
            return rest.isEmpty ? writer.variableExpression(variable) : writer.keyPathExpression(rest.joined(separator: "."), variable: variable)
        case .value(let value):
            return value.archivedObject(into: &writer).map { writer.constantExpression($0) }
        case .variable(let name):
            return writer.variableExpression(name)
        case .evaluatedObject:
            return writer.selfExpression()
        case .castToDate(.value(let seconds)):
            // A constant number of seconds is the date itself, as a date argument would be.
            guard let time = seconds.archivedSeconds else { return nil }
            return writer.constantExpression(writer.date(Date(timeIntervalSinceReferenceDate: time)))
        case .castToDate(let value):
            // Foundation's CAST is `castObject:toType:` of its utilities (inferred).
            guard let operand = value.archived(into: &writer) else { return nil }
            return writer.functionExpression("castObject:toType:", arguments: [operand, writer.constantExpression(.string("NSDate"))])
        case .function(let name, let arguments):
            var archived: [PropertyListValue] = []
            for argument in arguments {
                guard let reference = argument.archived(into: &writer) else { return nil }
                archived.append(reference)
            }
            guard name == ExpressionFunction.method.rawValue else { return writer.functionExpression(name, arguments: archived) }
            // FUNCTION(receiver, 'selector', arguments…): the method called on the receiver, as
            // the corpus mapping models archive it.
            guard arguments.count >= 2, case .value(.string(let selector)) = arguments[1] else { return nil }
            return writer.functionExpression(selector, operand: archived[0], arguments: Array(archived.dropFirst(2)))
        case .subquery, .aggregate:
            return nil
        }
    }
}

extension PredicateValue {
    /// The constant as an archived object: a reference to a plain value (string, number,
    /// boolean, data), to an `NSDate`, `NSUUID` or `NSArray`, or `$null`; `nil` for an object ID.
    func archivedObject(into writer: inout KeyedArchiveWriter) -> PropertyListValue? {
        switch self {
        case .null: return KeyedArchiveWriter.null
        case .bool(let flag): return writer.plain(.bool(flag))
        case .integer(let number): return writer.plain(.integer(number))
        case .double(let number): return writer.plain(.real(number))
        case .string(let text): return writer.plain(.string(text))
        case .data(let data): return writer.plain(.data(data))
        case .date(let date): return writer.date(date)
        case .uuid(let uuid): return writer.uuid(uuid)
        case .objectID: return nil
        case .array(let members):
            var archived: [PropertyListValue] = []
            for member in members {
                guard let reference = member.archivedObject(into: &writer) else { return nil }
                archived.append(reference)
            }
            return writer.array(archived)
        }
    }

    /// A number as seconds.
    fileprivate var archivedSeconds: Double? {
        switch self {
        case .integer(let number): Double(number)
        case .double(let number): number
        default: nil
        }
    }
}
