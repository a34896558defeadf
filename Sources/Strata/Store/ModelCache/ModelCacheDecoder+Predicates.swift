import Foundation

// The fetched properties and fetch request templates of a model cache: their fetch requests
// archive the predicate as NSPredicate objects (NSComparisonPredicate, NSCompoundPredicate)
// over NSExpressions, which are read back into the predicate text Strata parses. The archive's
// keys and codes are those of CoreDataPlus's SampleModel2 caches (`Author.feedbacks`,
// `favFeedbacks`); the operator and expression type codes are those of NSPredicateOperatorType
// and NSExpressionType. The forms no corpus cache shows are read as Strata writes them (see
// KeyedArchiveWriter+NSPredicate.swift).
extension ModelCacheDecoder {
    /// The fetched property, or `nil` when its destination or predicate cannot be read (a
    /// predicate form the reader does not know): it is then left out, as the cache reader did
    /// before it read any.
    static func fetchedProperty(_ name: String, _ object: PropertyListValue, in archive: KeyedArchive) -> FetchedPropertyDescription? {
        guard let request = fetchRequest(name, archive.object(object["NSFetchRequest"]), in: archive) else { return nil }
        var property = FetchedPropertyDescription(name: name, fetchRequest: request)
        property.userInfo = archive.stringDictionary(object["NSUserInfo"])
        return property
    }

    /// The model's fetch request templates (`NSFetchRequestTemplates`, name → `NSFetchRequest`),
    /// leaving out those whose entity or predicate cannot be read.
    static func fetchRequestTemplates(_ reference: PropertyListValue?, in archive: KeyedArchive) -> [FetchRequestTemplate] {
        archive.dictionary(reference).sorted { $0.key < $1.key }.compactMap { name, request in
            fetchRequest(name, request, in: archive)
        }
    }

    /// A fetch request as a template named `name`: `$null` as its predicate matches every
    /// object, as Core Data's fetch without a predicate does. (Caches Strata wrote before it
    /// archived predicates hold `$null` for every one, but the stores that hold them have
    /// Strata's copy of the model in their metadata, which is preferred to the cache.)
    private static func fetchRequest(_ name: String, _ request: PropertyListValue?, in archive: KeyedArchive) -> FetchRequestTemplate? {
        guard let request,
            let entityName = archive.object(request["NSEntity"]).flatMap({ archive.string($0["NSEntityName"]) })
                ?? archive.string(request["NSEntityName"])
        else { return nil }
        var template = FetchRequestTemplate(name: name, entityName: entityName)
        if let predicate = archive.object(request["NSPredicate"]) {
            guard let text = predicateText(predicate, in: archive) else { return nil }
            template.predicate = text
        }
        if let limit = request["NSFetchLimit"]?.integerValue, limit > 0 { template.fetchLimit = Int(limit) }
        if let offset = request["NSFetchOffset"]?.integerValue, offset > 0 { template.fetchOffset = Int(offset) }
        if let size = request["NSBatchSize"]?.integerValue, size > 0 { template.fetchBatchSize = Int(size) }
        if let type = request["NSResultType"]?.integerValue, let resultType = FetchRequestTemplate.ResultType(rawValue: Int(type)) {
            template.resultType = resultType
        }
        return template
    }

    private static func predicateText(_ object: PropertyListValue?, in archive: KeyedArchive, depth: Int = 0) -> String? {
        guard let object, depth < 16 else { return nil }
        switch archive.className(of: object) {
        case "NSTruePredicate": return "TRUEPREDICATE"
        case "NSFalsePredicate": return "FALSEPREDICATE"
        case "NSCompoundPredicate":
            let parts = archive.array(object["NSSubpredicates"]).map { predicateText(archive.object($0), in: archive, depth: depth + 1) }
            guard !parts.isEmpty, !parts.contains(nil) else { return nil }
            let texts = parts.compactMap { $0 }.map { "(\($0))" }
            switch object["NSCompoundPredicateType"]?.integerValue {
            case 0: return texts.count == 1 ? "NOT \(texts[0])" : nil
            case 1: return texts.joined(separator: " AND ")
            case 2: return texts.joined(separator: " OR ")
            default: return nil
            }
        case "NSComparisonPredicate":
            guard let operation = archive.object(object["NSPredicateOperator"]),
                let code = operation["NSOperatorType"]?.integerValue, let symbol = operatorSymbols[Int(code)],
                let left = expressionOperand(archive.object(object["NSLeftExpression"]), in: archive, depth: depth + 1),
                let right = expressionOperand(archive.object(object["NSRightExpression"]), in: archive, depth: depth + 1)
            else { return nil }
            // Equality and ordering operators keep their options as `NSOptions`, string and IN
            // operators as `NSFlags` (`favFeedbacks`' CONTAINS[c]).
            let options = (operation["NSOptions"] ?? operation["NSFlags"])?.integerValue ?? 0
            let flags = (options & 1 != 0 ? "c" : "") + (options & 2 != 0 ? "d" : "")
            let modifier = switch operation["NSModifier"]?.integerValue ?? 0 {
            case 1: "ALL "
            case 2: "ANY "
            default: ""
            }
            // `NSNegate` is the equality operator's own note that it is `!=` (type 5): not a
            // negation of the comparison.
            return "\(modifier)\(left) \(symbol)\(flags.isEmpty ? "" : "[\(flags)]") \(right)"
        default: return nil
        }
    }

    /// NSPredicateOperatorType codes and the predicate syntax for each.
    private static let operatorSymbols: [Int: String] = [
        0: "<", 1: "<=", 2: ">", 3: ">=", 4: "==", 5: "!=", 6: "MATCHES", 7: "LIKE", 8: "BEGINSWITH", 9: "ENDSWITH", 10: "IN",
        99: "CONTAINS", 100: "BETWEEN",
    ]

    /// An expression of a comparison: a constant, `SELF`, a `$VARIABLE`, or a key path from
    /// the evaluated object or from a variable (`$FETCH_SOURCE.alias`).
    private static func expressionOperand(_ object: PropertyListValue?, in archive: KeyedArchive, depth: Int) -> String? {
        guard let object, depth < 16 else { return nil }
        switch object["NSExpressionType"]?.integerValue {
        case 0: return constantText(archive.object(object["NSConstantValue"]), in: archive)
        case 1: return "SELF"
        case 2: return archive.string(object["NSVariable"]).map { "$" + $0 }
        case 10: return archive.string(object["NSKeyPath"])
        case 3, 4:
            guard let selector = archive.string(object["NSSelectorName"]) else { return nil }
            guard selector == "valueForKey:" || selector == "valueForKeyPath:" else { return functionText(selector, object, in: archive, depth: depth) }
            // `valueForKey:`/`valueForKeyPath:` of a key on an operand: the operand's path, then the key.
            guard let key = archive.array(object["NSArguments"]).first.flatMap({ keyText(archive.object($0), in: archive) }) else { return nil }
            let operand = archive.object(object["NSOperand"])
            if operand == nil || operand?["NSExpressionType"]?.integerValue == 1 { return key }
            return expressionOperand(operand, in: archive, depth: depth + 1).map { "\($0).\(key)" }
        default: return nil
        }
    }

    /// A function expression as the parser reads it, in the forms ``KeyedArchiveWriter`` writes
    /// them: `CAST(x, "NSDate")`; one of Foundation's built-ins (whose receiver is the class
    /// `_NSPredicateUtilities`) by the selector's first word, which the parser takes for the
    /// selector (`add(rating, 1)` for `rating + 1`, `sqrt(rating)`, `now()`); a method called on
    /// another receiver as `FUNCTION(receiver, 'selector', arguments…)`.
    private static func functionText(_ selector: String, _ object: PropertyListValue, in archive: KeyedArchive, depth: Int) -> String? {
        let arguments = archive.array(object["NSArguments"]).map { expressionOperand(archive.object($0), in: archive, depth: depth + 1) }
        guard !arguments.contains(nil) else { return nil }
        let texts = arguments.compactMap { $0 }
        let receiver = archive.object(object["NSOperand"])
        let isBuiltIn = receiver.flatMap { archive.string($0["NSConstantValueClassName"]) } == "_NSPredicateUtilities"
        guard isBuiltIn else {
            guard let receiverText = expressionOperand(receiver, in: archive, depth: depth + 1) else { return nil }
            let quoted = "'" + selector.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
            return "FUNCTION(" + ([receiverText, quoted] + texts).joined(separator: ", ") + ")"
        }
        if selector == "castObject:toType:", texts.count == 2 { return "CAST(\(texts[0]), \(texts[1]))" }
        // A built-in Strata does not know is left out with its predicate, as other unknown forms are.
        guard let function = ExpressionFunction(rawValue: selector) else { return nil }
        return "\(function.shortName)(" + texts.joined(separator: ", ") + ")"
    }

    /// The key a `valueForKey:` argument names: a key path specifier or a string constant.
    private static func keyText(_ object: PropertyListValue?, in archive: KeyedArchive) -> String? {
        guard let object else { return nil }
        if let path = archive.string(object["NSKeyPath"]) { return path }
        return archive.string(object["NSConstantValue"])
    }

    private static func constantText(_ value: PropertyListValue?, in archive: KeyedArchive) -> String? {
        switch value {
        case nil: return "nil"
        case .string(let text)?: return "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        case .integer(let number)?: return String(number)
        case .real(let number)?: return String(number)
        case .bool(let flag)?: return flag ? "YES" : "NO"
        case let object?:
            if let text = archive.string(object) { return constantText(.string(text), in: archive) }
            if let number = object["NS.intval"]?.integerValue { return String(number) }
            if case .real(let value)? = object["NS.dblval"] { return String(value) }
            if case .real(let time)? = object["NS.time"] { return "CAST(\(time), \"NSDate\")" }
            if let members = object["NS.objects"]?.arrayValue {
                let texts = members.map { constantText(archive.object($0), in: archive) }
                guard !texts.contains(nil) else { return nil }
                return "{" + texts.compactMap { $0 }.joined(separator: ", ") + "}"
            }
            return nil
        }
    }
}
