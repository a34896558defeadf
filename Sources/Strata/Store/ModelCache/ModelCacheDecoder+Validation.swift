import Foundation

// An attribute's validation rules read back from a model cache: the inverse of
// ModelCacheEncoder+Validation.swift. Each rule of `NSValidationPredicates` is read by the error
// code beside it in `NSValidationWarnings`, which says which bound it states: 1620 and 1610 a
// number's minimum and maximum, 1640 and 1630 a date's, 1670 and 1660 a string's shortest and
// longest length, 1680 its regular expression. The bound is the constant on the right of the
// comparison (`SELF >= 0`, `length <= 50`, `SELF MATCHES "…"`).
//
// Confirmed on EasyLife 1.5.0's cache (`repeats`, minimum 0: `SELF >= 0` with 1620); the other
// forms are those Strata writes, inferred from Core Data's (see the encoder). A rule of another
// form (a predicate built in code, which a model file cannot state) has no place in an
// `AttributeDescription` and is left out.
extension ModelCacheDecoder {
    /// Sets `attribute`'s minimum, maximum and regular expression from the rules archived in
    /// `object`, the attribute's archived description.
    static func readValidationRules(into attribute: inout AttributeDescription, from object: PropertyListValue, in archive: KeyedArchive) {
        let predicates = archive.array(object["NSValidationPredicates"])
        let warnings = archive.array(object["NSValidationWarnings"])
        for (predicate, warning) in zip(predicates, warnings) {
            guard let code = archive.object(warning).flatMap(integer), let warning = ModelCacheEncoder.ValidationWarning(rawValue: code),
                let comparison = archive.object(predicate),
                archive.className(of: comparison) == "NSComparisonPredicate",
                let right = archive.object(comparison["NSRightExpression"]), right["NSExpressionType"]?.integerValue == 0
            else { continue }
            let constant = archive.object(right["NSConstantValue"])
            switch warning {
            case .numberTooSmall, .dateTooSoon, .stringTooShort: attribute.minValue = constant.flatMap(boundText) ?? attribute.minValue
            case .numberTooLarge, .dateTooLate, .stringTooLong: attribute.maxValue = constant.flatMap(boundText) ?? attribute.maxValue
            case .stringPatternMatching: attribute.regularExpression = constant.flatMap { archive.string($0) } ?? attribute.regularExpression
            }
        }
    }

    /// A number, plain or as an archived NSNumber.
    private static func integer(_ value: PropertyListValue) -> Int64? {
        value.integerValue ?? value["NS.intval"]?.integerValue
    }

    /// A bound as a model file writes it: a whole number without a fraction, a date as seconds
    /// since 2001-01-01 (an archived NSDate's `NS.time`).
    private static func boundText(_ value: PropertyListValue) -> String? {
        let number: Double
        switch value {
        case .integer(let whole): return String(whole)
        case .real(let real): number = real
        default:
            if let whole = value["NS.intval"]?.integerValue { return String(whole) }
            guard case .real(let real)? = value["NS.dblval"] ?? value["NS.time"] else { return nil }
            number = real
        }
        if number.rounded() == number, abs(number) < 1e15 { return String(Int64(number)) }
        return String(number)
    }
}
