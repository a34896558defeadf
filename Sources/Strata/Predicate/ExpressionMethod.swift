import Foundation

/// The Foundation methods a predicate's `FUNCTION(receiver, 'selector', arguments…)` can call,
/// by their Objective-C selectors, on stored values: strings' (`NSString`), numbers'
/// (`NSNumber`) and dates' (stored as seconds since 2001-01-01).
///
/// Core Data sends the selector to the receiver with the Objective-C runtime, which Swift on
/// Linux does not have: Strata knows these methods by name, and applies them alike in memory and
/// in SQL (through ``ExpressionFunction/method``). A receiver of another kind (a string's
/// method on a number), and a nil receiver, give nil, as a wrong-kind argument to a built-in
/// function does; an object is refused in SQL and gives nil in memory, as for every function.
///
/// ```text
/// FUNCTION(title, 'length') > 20
/// FUNCTION(path, 'lastPathComponent') ==[c] 'readme.md'
/// FUNCTION(code, 'integerValue') BETWEEN {100, 199}
/// ```
enum ExpressionMethod: String, CaseIterable, Sendable {
    // Strings.
    case length
    case uppercaseString
    case lowercaseString
    case capitalizedString
    case appending = "stringByAppendingString:"
    case hasPrefix = "hasPrefix:"
    case hasSuffix = "hasSuffix:"
    case contains = "containsString:"
    case prefix = "substringToIndex:"
    case suffix = "substringFromIndex:"
    case lastPathComponent
    case pathExtension
    // Strings read as numbers, and numbers.
    case intValue
    case integerValue
    case longLongValue
    case doubleValue
    case floatValue
    case boolValue
    case stringValue
    // Dates.
    case timeIntervalSinceReferenceDate
    case timeIntervalSince1970
    // Parts of dates in UTC (Strata's own: Foundation's dates have no such methods; see
    // ExpressionMethod+DateParts.swift).
    case year
    case month
    case day
    /// 1 for Sunday to 7 for Saturday, as Foundation's `DateComponents.weekday`.
    case weekday
    case hour
    case minute
    case second
    /// The date written by a C `strftime` format in UTC: `FUNCTION(published, 'strftime:', '%Y-%m')`.
    case formatted = "strftime:"

    /// How many arguments it takes besides its receiver.
    var arity: Int { rawValue.count { $0 == ":" } }

    /// Whether its result is a string.
    var returnsString: Bool {
        switch self {
        case .uppercaseString, .lowercaseString, .capitalizedString, .appending, .prefix, .suffix, .lastPathComponent, .pathExtension,
            .stringValue, .formatted:
            true
        default: false
        }
    }

    /// The method's result for `receiver` and `arguments`.
    func apply(to receiver: DatabaseValue, _ arguments: [DatabaseValue]) -> DatabaseValue {
        guard arguments.count == arity else { return .null }
        switch receiver {
        case .text(let text): return apply(toText: text, arguments)
        case .integer, .real: return apply(toNumber: receiver, arguments)
        case .null, .blob: return .null
        }
    }

    private func apply(toText text: String, _ arguments: [DatabaseValue]) -> DatabaseValue {
        let argument = arguments.first?.stringValue
        switch self {
        case .length: return .integer(Int64(text.utf16.count))
        case .uppercaseString: return .text(text.uppercased())
        case .lowercaseString: return .text(text.lowercased())
        case .capitalizedString: return .text(text.capitalized)
        case .appending: return argument.map { .text(text + $0) } ?? .null
        case .hasPrefix: return argument.map { .integer(text.hasPrefix($0) && !$0.isEmpty ? 1 : 0) } ?? .null
        case .hasSuffix: return argument.map { .integer(text.hasSuffix($0) && !$0.isEmpty ? 1 : 0) } ?? .null
        case .contains: return argument.map { .integer(!$0.isEmpty && text.contains($0) ? 1 : 0) } ?? .null
        case .prefix, .suffix:
            // NSString counts UTF-16 code units; an index past the end is nil (Foundation raises).
            guard case .integer(let index) = arguments[0], index >= 0, index <= text.utf16.count else { return .null }
            let split = text.utf16.index(text.utf16.startIndex, offsetBy: Int(index))
            let part = self == .prefix ? text.utf16[..<split] : text.utf16[split...]
            return String(part).map(DatabaseValue.text) ?? .null
        case .lastPathComponent: return .text(NSString(string: text).lastPathComponent)
        case .pathExtension: return .text(NSString(string: text).pathExtension)
        case .intValue: return .integer(Int64(Int32(clamping: Self.leadingInteger(text))))
        case .integerValue, .longLongValue: return .integer(Self.leadingInteger(text))
        case .doubleValue: return .real(Self.leadingDouble(text))
        case .floatValue: return .real(Double(Float(Self.leadingDouble(text))))
        case .boolValue: return .integer(Self.leadingBool(text) ? 1 : 0)
        case .stringValue: return .text(text)
        case .timeIntervalSinceReferenceDate, .timeIntervalSince1970, .year, .month, .day, .weekday, .hour, .minute, .second, .formatted:
            return .null
        }
    }

    private func apply(toNumber number: DatabaseValue, _ arguments: [DatabaseValue]) -> DatabaseValue {
        let value = number.doubleValue ?? 0
        switch self {
        case .intValue: return .integer(Int64(Int32(truncatingIfNeeded: Self.truncated(number))))
        case .integerValue, .longLongValue: return .integer(Self.truncated(number))
        case .doubleValue: return .real(value)
        case .floatValue: return .real(Double(Float(value)))
        case .boolValue: return .integer(value != 0 ? 1 : 0)
        case .stringValue:
            if case .integer(let integer) = number { return .text(String(integer)) }
            // NSNumber writes a whole double without a fraction: 3, not 3.0.
            return .text(value.rounded() == value && Swift.abs(value) < 1e15 ? String(Int64(value)) : String(value))
        case .timeIntervalSinceReferenceDate: return .real(value)
        case .timeIntervalSince1970: return .real(value + Date.timeIntervalBetween1970AndReferenceDate)
        case .year, .month, .day, .weekday, .hour, .minute, .second, .formatted: return datePart(ofStoredDate: value, arguments)
        default: return .null
        }
    }

    // MARK: - Reading numbers from text, as NSString does

    private static func truncated(_ number: DatabaseValue) -> Int64 {
        if case .integer(let integer) = number { return integer }
        let value = number.doubleValue ?? 0
        return value.isNaN ? 0 : Int64(exactly: value.rounded(.towardZero)) ?? (value < 0 ? .min : .max)
    }

    /// The text's leading characters that write a number: after white space, an optional sign,
    /// then `digits` (and for a double, a fraction and an exponent).
    private static func leadingNumber(_ text: String, isDouble: Bool) -> Substring {
        let start = text.drop { $0.isWhitespace }
        var end = start.startIndex
        func skip(while accepts: (Character) -> Bool) {
            while end < start.endIndex, accepts(start[end]) { end = start.index(after: end) }
        }
        if end < start.endIndex, start[end] == "+" || start[end] == "-" { end = start.index(after: end) }
        skip { $0.isASCII && $0.isNumber }
        guard isDouble else { return start[..<end] }
        if end < start.endIndex, start[end] == "." {
            end = start.index(after: end)
            skip { $0.isASCII && $0.isNumber }
        }
        if end < start.endIndex, start[end] == "e" || start[end] == "E" {
            let mantissaEnd = end
            end = start.index(after: end)
            if end < start.endIndex, start[end] == "+" || start[end] == "-" { end = start.index(after: end) }
            let digits = end
            skip { $0.isASCII && $0.isNumber }
            if end == digits { end = mantissaEnd }
        }
        return start[..<end]
    }

    /// `intValue`'s and `integerValue`'s reading: 0 without a number, the nearest bound past one.
    private static func leadingInteger(_ text: String) -> Int64 {
        let number = leadingNumber(text, isDouble: false)
        if let value = Int64(number) { return value }
        guard number.contains(where: \.isNumber) else { return 0 }
        return number.hasPrefix("-") ? .min : .max
    }

    private static func leadingDouble(_ text: String) -> Double {
        Double(leadingNumber(text, isDouble: true)) ?? 0
    }

    /// `boolValue`'s reading: true for text starting with Y, y, T, t or a digit 1 to 9, after
    /// white space, a sign and zeros.
    private static func leadingBool(_ text: String) -> Bool {
        var rest = text.drop { $0.isWhitespace }
        if let first = rest.first, first == "+" || first == "-" { rest = rest.dropFirst() }
        rest = rest.drop { $0 == "0" }
        guard let first = rest.first else { return false }
        return "YyTt123456789".contains(first)
    }
}
