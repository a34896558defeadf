import Foundation

// NSPredicate and NSExpression objects as Core Data archives them in `Z_MODELCACHE`: the
// classes, `$classes` chains and keys below are those of the corpus caches where one shows
// them (CoreDataPlus's SampleModel2 caches: `Author.feedbacks`, `favFeedbacks`, the `title`
// validation rules, the derivations; EasyLife 1.5.0's `repeats` minimum). What no cache shows
// is marked "inferred": it follows the keys NSPredicate's archived classes read
// (NSPredicateOperator: `NSOperatorType`, `NSModifier`; string operators: `NSFlags`; substring
// operators: `NSPosition`), and README's store-format section lists it.
//
// These are the archive forms only; which predicate becomes which objects is decided by the
// caller (``ModelCacheEncoder`` for validation rules and derivations, a ``PredicateArchiver``
// for predicate text).

/// Core Data's `NSPredicateOperatorType` codes.
enum ArchivedOperatorType: Int64, Sendable, CaseIterable {
    case lessThan = 0, lessThanOrEqual = 1, greaterThan = 2, greaterThanOrEqual = 3, equal = 4, notEqual = 5
    case matches = 6, like = 7, beginsWith = 8, endsWith = 9, `in` = 10, contains = 99, between = 100
}

/// Core Data's `NSCompoundPredicateType` codes.
enum ArchivedCompoundType: Int64, Sendable {
    case not = 0, and = 1, or = 2
}

extension KeyedArchiveWriter {
    /// An object of class `className` (whose superclasses below `NSObject` are `superclasses`)
    /// holding `fields`. Its place is taken after those of the objects its fields refer to,
    /// which a reader does not mind.
    mutating func object(_ className: String, _ superclasses: [String], _ fields: [String: PropertyListValue]) -> PropertyListValue {
        let place = reserve()
        fill(place, className: className, superclasses: superclasses, fields: fields)
        return .uid(UInt64(place))
    }

    /// An `NSArray`, or an `NSMutableArray` when `mutable`, of `elements`.
    mutating func array(_ elements: [PropertyListValue], mutable: Bool = false) -> PropertyListValue {
        mutable
            ? object("NSMutableArray", ["NSArray"], ["NS.objects": .array(elements)])
            : object("NSArray", [], ["NS.objects": .array(elements)])
    }

    /// An `NSDate` as Foundation archives one (`NS.time`, seconds since 2001-01-01).
    mutating func date(_ date: Date) -> PropertyListValue {
        object("NSDate", [], ["NS.time": .real(date.timeIntervalSinceReferenceDate)])
    }

    /// An `NSUUID` as Foundation archives one (`NS.uuidbytes`).
    mutating func uuid(_ uuid: UUID) -> PropertyListValue {
        object("NSUUID", [], ["NS.uuidbytes": .data(withUnsafeBytes(of: uuid.uuid) { Data($0) })])
    }

    // MARK: - Predicates

    /// `TRUEPREDICATE` or `FALSEPREDICATE`: `NSTruePredicate` and `NSFalsePredicate` archive
    /// no keys of their own (inferred: no corpus cache holds one).
    mutating func constantPredicate(_ value: Bool) -> PropertyListValue {
        object(value ? "NSTruePredicate" : "NSFalsePredicate", ["NSPredicate"], [:])
    }

    /// An `NSCompoundPredicate` (AND and its `NSArray` of subpredicates as in `favFeedbacks`; OR
    /// and NOT, which holds one subpredicate, by the same keys).
    mutating func compoundPredicate(_ type: ArchivedCompoundType, _ subpredicates: [PropertyListValue]) -> PropertyListValue {
        object("NSCompoundPredicate", ["NSPredicate"], [
            "NSCompoundPredicateType": .integer(type.rawValue),
            "NSSubpredicates": array(subpredicates),
        ])
    }

    /// An `NSComparisonPredicate` of `left` and `right` under the operator of `type`.
    ///
    /// - Parameters:
    ///   - modifier: `NSComparisonPredicateModifier`: 0 direct, 1 ALL, 2 ANY.
    ///   - options: `NSComparisonPredicateOptions`: 1 case-, 2 diacritic-insensitive.
    mutating func comparisonPredicate(
        _ left: PropertyListValue, _ type: ArchivedOperatorType, _ right: PropertyListValue, modifier: Int64 = 0, options: Int64 = 0
    ) -> PropertyListValue {
        let predicateOperator = self.predicateOperator(type, modifier: modifier, options: options)
        return object("NSComparisonPredicate", ["NSPredicate"], [
            "NSLeftExpression": left, "NSPredicateOperator": predicateOperator, "NSRightExpression": right,
        ])
    }

    /// The operator object of each type. Confirmed on the corpus caches: `==`
    /// (`NSEqualityPredicateOperator` with `NSNegate` and `NSOptions`), `<=` and `>=`
    /// (`NSComparisonPredicateOperator`, whose `NSVariant` repeats the type), CONTAINS
    /// (`NSInPredicateOperator`, its options as `NSFlags`). Inferred: `!=` (the equality
    /// operator negated), `<` and `>`, IN (as CONTAINS), BEGINSWITH and ENDSWITH
    /// (`NSSubstringPredicateOperator` at `NSPosition` 0 or 1), LIKE and MATCHES (string
    /// operators with `NSFlags`), BETWEEN (`NSBetweenPredicateOperator`, no keys of its own).
    private mutating func predicateOperator(_ type: ArchivedOperatorType, modifier: Int64, options: Int64) -> PropertyListValue {
        var fields: [String: PropertyListValue] = ["NSOperatorType": .integer(type.rawValue), "NSModifier": .integer(modifier)]
        let className: String
        var superclasses = ["NSPredicateOperator"]
        switch type {
        case .equal, .notEqual:
            className = "NSEqualityPredicateOperator"
            fields["NSNegate"] = .bool(type == .notEqual)
            fields["NSOptions"] = .integer(options)
        case .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual:
            className = "NSComparisonPredicateOperator"
            fields["NSVariant"] = .integer(type.rawValue)
            fields["NSOptions"] = .integer(options)
        case .in, .contains:
            className = "NSInPredicateOperator"
            fields["NSFlags"] = .integer(options)
        case .beginsWith, .endsWith:
            className = "NSSubstringPredicateOperator"
            superclasses = ["NSStringPredicateOperator", "NSPredicateOperator"]
            fields["NSFlags"] = .integer(options)
            fields["NSPosition"] = .integer(type == .beginsWith ? 0 : 1)
        case .matches:
            className = "NSMatchingPredicateOperator"
            superclasses = ["NSStringPredicateOperator", "NSPredicateOperator"]
            fields["NSFlags"] = .integer(options)
        case .like:
            className = "NSLikePredicateOperator"
            superclasses = ["NSMatchingPredicateOperator", "NSStringPredicateOperator", "NSPredicateOperator"]
            fields["NSFlags"] = .integer(options)
        case .between:
            className = "NSBetweenPredicateOperator"
        }
        return object(className, superclasses, fields)
    }

    // MARK: - Expressions

    /// `SELF`: one `NSSelfExpression` shared by every use, as Core Data's caches share it
    /// (Foundation's is a single object).
    mutating func selfExpression() -> PropertyListValue {
        plain(.dictionary([
            "$class": classReference("NSSelfExpression", superclasses: ["NSExpression"]), "NSExpressionType": .integer(1),
        ]))
    }

    /// `$name`.
    mutating func variableExpression(_ name: String) -> PropertyListValue {
        object("NSVariableExpression", ["NSExpression"], ["NSExpressionType": .integer(2), "NSVariable": plain(.string(name))])
    }

    /// A key path: from the evaluated object an `NSKeyPathExpression` of type 3 on `SELF`
    /// calling `valueForKey:` (the corpus caches' single keys) or `valueForKeyPath:` for a
    /// dotted path (inferred); from a variable (`$FETCH_SOURCE.alias`) an `NSKeyPathExpression`
    /// of type 4 on the variable calling `valueForKeyPath:`, as `Author.feedbacks` has it.
    mutating func keyPathExpression(_ path: String, variable: String? = nil) -> PropertyListValue {
        let operand = variable.map { variableExpression($0) } ?? selfExpression()
        let specifier = object("NSKeyPathSpecifierExpression", ["NSExpression"], [
            "NSExpressionType": .integer(10), "NSKeyPath": plain(.string(path)),
        ])
        let selector = variable == nil && !path.contains(".") ? "valueForKey:" : "valueForKeyPath:"
        return object("NSKeyPathExpression", ["NSFunctionExpression", "NSExpression"], [
            "NSOperand": operand,
            "NSSelectorName": plain(.string(selector)),
            "NSExpressionType": .integer(variable == nil ? 3 : 4),
            "NSArguments": array([specifier], mutable: true),
        ])
    }

    /// A constant: `value` is a plain value, a reference to an archived object (a date, an
    /// array), or `$null` for nil.
    mutating func constantExpression(_ value: PropertyListValue) -> PropertyListValue {
        let constant: PropertyListValue = if case .uid = value { value } else { plain(value) }
        return object("NSConstantValueExpression", ["NSExpression"], ["NSExpressionType": .integer(0), "NSConstantValue": constant])
    }

    /// A function: by default one of Foundation's built-ins, whose operand is the class
    /// `_NSPredicateUtilities` as a constant (SampleModel2's derivation `count:`); a method
    /// called on an `operand` otherwise (`FUNCTION($manager, …)`, as the corpus mapping
    /// models archive it).
    mutating func functionExpression(_ selector: String, operand: PropertyListValue? = nil, arguments: [PropertyListValue]) -> PropertyListValue {
        let receiver = operand ?? object("NSConstantValueExpression", ["NSExpression"], [
            "NSExpressionType": .integer(0), "NSConstantValueClassName": plain(.string("_NSPredicateUtilities")),
        ])
        return object("NSFunctionExpression", ["NSExpression"], [
            "NSOperand": receiver,
            "NSSelectorName": plain(.string(selector)),
            "NSExpressionType": .integer(4),
            "NSArguments": array(arguments),
        ])
    }
}
