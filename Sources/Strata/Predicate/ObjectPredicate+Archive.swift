import Foundation

// `NSExpression`s as `NSKeyedArchiver` keeps them (a mapping model's value expressions): each
// object has an `NSExpressionType` and the keys of its kind. Read from the archives Xcode wrote
// into the `.xcmappingmodel`s at hand (`valueexpressiondata`); kinds none of them holds are
// read by the same keys, which is inferred.

extension ObjectPredicate.Expression {
    /// The expression archived in `data`, a binary property list of an `NSKeyedArchiver`.
    ///
    /// - Throws: ``PredicateSyntaxError`` (without a caret) naming what cannot be read.
    static func unarchived(from data: Data) throws(PredicateSyntaxError) -> ObjectPredicate.Expression {
        let archive: KeyedArchive
        do {
            archive = try KeyedArchive(data: data)
        } catch {
            throw PredicateSyntaxError(message: "an archived expression that cannot be read: \(error.description)", predicate: "", offset: 0)
        }
        return try expression(archive.root, in: archive, depth: 0)
    }

    private static func expression(_ object: PropertyListValue, in archive: KeyedArchive, depth: Int) throws(PredicateSyntaxError) -> ObjectPredicate.Expression {
        func failure(_ message: String) -> PredicateSyntaxError { PredicateSyntaxError(message: message, predicate: "", offset: 0) }
        guard depth < 64 else { throw failure("an archived expression nested too deep") }
        let className = archive.className(of: object) ?? "?"
        switch object["NSExpressionType"]?.integerValue {
        case 0?:
            return .value(constant(archive.object(object["NSConstantValue"]), in: archive))
        case 1?:
            return .evaluatedObject
        case 2?:
            guard let name = archive.string(object["NSVariable"]) else { throw failure("an archived \(className) without its variable's name") }
            return .variable(name)
        case 3?, 10?:
            guard let path = archive.string(object["NSKeyPath"]) else { throw failure("an archived \(className) without its key path") }
            return .keyPath(path.split(separator: ".").map(String.init))
        case 4?:
            guard let selector = archive.string(object["NSSelectorName"]) else { throw failure("an archived \(className) without its selector") }
            let operand = try archive.object(object["NSOperand"]).map { (value) throws(PredicateSyntaxError) in try expression(value, in: archive, depth: depth + 1) }
            var arguments: [ObjectPredicate.Expression] = []
            for argument in archive.array(object["NSArguments"]) { arguments.append(try expression(argument, in: archive, depth: depth + 1)) }
            // `$source.owner` is archived as valueForKeyPath: on the variable.
            if selector == "valueForKeyPath:" || selector == "valueForKey:", case .variable(let name)? = operand, case .keyPath(let path)? = arguments.first {
                return .keyPath(["$" + name] + path)
            }
            if case .variable? = operand {
                return .function(ExpressionFunction.method.rawValue, arguments: [operand!, .value(.string(selector))] + arguments)
            }
            guard ExpressionFunction(rawValue: selector) != nil else { throw failure("an archived expression calls \(selector), which Strata does not know") }
            return .function(selector, arguments: arguments)
        case let type:
            throw failure("an archived \(className) of NSExpressionType \(type.map(String.init) ?? "none"), which Strata does not read")
        }
    }

    private static func constant(_ value: PropertyListValue?, in archive: KeyedArchive) -> PredicateValue {
        guard let value else { return .null }
        switch value {
        case .string(let text): return .string(text)
        case .integer(let number): return .integer(number)
        case .real(let number): return .double(number)
        case .bool(let flag): return .bool(flag)
        case .date(let date): return .date(date)
        case .data(let data): return .data(data)
        default:
            if let text = archive.string(value) { return .string(text) }
            if let seconds = value["NS.time"], case .real(let time) = seconds { return .date(Date(timeIntervalSinceReferenceDate: time)) }
            return .null
        }
    }
}
