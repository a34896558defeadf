import Foundation

// An attribute's validation rules as Xcode compiles them into the model and Core Data archives
// them: `NSValidationPredicates`, an NSMutableArray of predicates the value must satisfy, and
// `NSValidationWarnings`, beside it, the NSValidationErrorCode each failure reports.
//
// Confirmed on EasyLife 1.5.0's cache: an Integer 16 with minimum 0 has `[SELF >= 0]` (an
// `NSComparisonPredicate` of `NSSelfExpression` and the integer constant) and `[1620]`
// (NSValidationNumberTooSmallError), both mutable arrays. Inferred, since no cache of a model
// compiled by Xcode shows them: the maximum as `SELF <= max` (1610), a date's bounds as NSDate
// constants (1640 too soon, 1630 too late), a number's bound of a Double, Float or Decimal as
// a real, a string's bounds as `length >= min` (1670) and `length <= max` (1660) (the form
// SampleModel2's code-built `title` rule uses) and its regular expression as `SELF MATCHES`
// (1680), in that order: minimum, maximum, pattern. Binary lengths are not archived.

extension ModelCacheEncoder {
    /// One rule: the archived predicate, and the code of the error its failure reports.
    struct ValidationRule {
        var predicate: PropertyListValue
        var warning: Int64
    }

    /// Foundation's `NSValidationErrorCode`s for the rules a model can state.
    enum ValidationWarning: Int64 {
        case numberTooLarge = 1610, numberTooSmall = 1620, dateTooLate = 1630, dateTooSoon = 1640
        case stringTooLong = 1660, stringTooShort = 1670, stringPatternMatching = 1680
    }

    /// The rules of `attribute`'s minimum, maximum and regular expression, in the form Core
    /// Data archives them; empty when it states none.
    mutating func validationRules(of attribute: AttributeDescription) -> [ValidationRule] {
        var rules: [ValidationRule] = []
        func add(_ predicate: PropertyListValue, _ warning: ValidationWarning) {
            rules.append(ValidationRule(predicate: predicate, warning: warning.rawValue))
        }
        let bounds = [(attribute.minimumBound, ArchivedOperatorType.greaterThanOrEqual), (attribute.maximumBound, .lessThanOrEqual)]
        for (bound, type) in bounds {
            guard let bound else { continue }
            let isMinimum = type == .greaterThanOrEqual
            switch attribute.type {
            case .integer16, .integer32, .integer64:
                add(bounded(writer.selfExpression(), type, .integer(Int64(bound))), isMinimum ? .numberTooSmall : .numberTooLarge)
            case .double, .float, .decimal:
                add(bounded(writer.selfExpression(), type, .real(bound)), isMinimum ? .numberTooSmall : .numberTooLarge)
            case .date:
                let date = writer.date(Date(timeIntervalSinceReferenceDate: bound))
                add(bounded(writer.selfExpression(), type, date), isMinimum ? .dateTooSoon : .dateTooLate)
            case .string:
                add(bounded(writer.keyPathExpression("length"), type, .integer(Int64(bound))), isMinimum ? .stringTooShort : .stringTooLong)
            case .boolean, .binary, .uuid, .uri, .transformable, .objectID, .undefined, .composite:
                continue
            }
        }
        if attribute.type == .string, let pattern = attribute.regularExpression {
            let predicate = writer.comparisonPredicate(writer.selfExpression(), .matches, writer.constantExpression(.string(pattern)))
            add(predicate, .stringPatternMatching)
        }
        return rules
    }

    private mutating func bounded(_ left: PropertyListValue, _ type: ArchivedOperatorType, _ bound: PropertyListValue) -> PropertyListValue {
        writer.comparisonPredicate(left, type, writer.constantExpression(bound))
    }
}
