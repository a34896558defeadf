import Foundation

// Xcode keeps a default, minimum or maximum as the text it was typed as, and leaves it as it is
// when the attribute's type changes later: real models hold "NO" on an Integer 16 and "0.0" on a
// Boolean. Xcode compiles such models and Core Data runs them, reading the text with
// Foundation's lenient number conversions (`-[NSString longLongValue]`, `doubleValue`,
// `boolValue`): a leading number is taken and the rest ignored, and text without one is zero.
// Strata reads the text the same way, so that an object gets the default Core Data would give
// it, and model validation reports the text as a warning rather than refusing the model.

extension AttributeDescription {
    /// How the model's text for a default, minimum or maximum reads for this attribute's type.
    public struct ModelTextReading: Sendable, Equatable {
        /// The value Core Data takes from the text; `nil` when it takes none (a date written as
        /// text, a UUID or URL that does not parse).
        public var value: AttributeValue?
        /// Why the text is not the usual form for the type, when it is not: a warning for
        /// ``ObjectModel/validate()``.
        public var note: String?
    }

    /// The default value, read from ``defaultValue`` as Core Data reads it.
    ///
    /// ```swift
    /// var nsfw = AttributeDescription(name: "nsfw", type: .integer16)
    /// nsfw.defaultValue = "NO"
    /// nsfw.defaultAttributeValue   // .integer(0)
    /// ```
    public var defaultAttributeValue: AttributeValue? {
        defaultValue.flatMap { reading(modelText: $0).value }
    }

    /// The lowest allowed value (the shortest length for String and Binary), as a number.
    public var minimumBound: Double? { minValue.flatMap { boundReading($0).value } }

    /// The highest allowed value (the longest length for String and Binary), as a number.
    public var maximumBound: Double? { maxValue.flatMap { boundReading($0).value } }

    /// Whether the bounds are lengths (String and Binary) rather than values.
    var boundsAreLengths: Bool { type == .string || type == .binary }

    /// Reads `text`, a default value as a model file writes it, for this attribute's type.
    public func reading(modelText text: String) -> ModelTextReading {
        if let exact = AttributeValue(modelText: text, type: type) { return ModelTextReading(value: exact, note: nil) }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let lenient: AttributeValue?
        switch type {
        case .integer16, .integer32, .integer64:
            lenient = .integer(Self.integerReading(of: trimmed, type: type))
        case .double, .float:
            lenient = .double(Self.leadingNumber(in: trimmed) ?? 0)
        case .decimal:
            lenient = .decimal(Decimal(Self.leadingNumber(in: trimmed) ?? 0))
        case .boolean:
            lenient = .boolean(Self.booleanReading(of: trimmed))
        case .string, .date, .uuid, .uri, .binary, .transformable, .objectID, .undefined, .composite:
            lenient = nil
        }
        let taken = lenient.map { "Core Data reads it as \($0.displayText)" } ?? "Core Data ignores it"
        return ModelTextReading(value: lenient, note: "'\(text)' is not a valid \(type.rawValue)\(rangeNote); \(taken)")
    }

    /// A minimum or maximum as a number: a length for String and Binary, else read as
    /// ``reading(modelText:)`` reads a value.
    func boundReading(_ text: String) -> (value: Double?, note: String?) {
        if boundsAreLengths {
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            if let length = Int(trimmed), length >= 0 { return (Double(length), nil) }
            return (nil, "'\(text)' is not a valid length (a whole number, 0 or more)")
        }
        let reading = reading(modelText: text)
        return (reading.value?.numericValue, reading.note)
    }

    /// Why `text`, a default, minimum or maximum, must be refused for this attribute's type;
    /// `nil` when it is the type's form or a form Xcode leaves behind when a type changes.
    ///
    /// Xcode keeps the text typed for an earlier type, so a number on a Boolean ("0.0") and a
    /// Boolean word on a number ("NO") are found in real models, and Core Data reads them:
    /// ``reading(modelText:)`` warns about them. Anything else does not parse as any type's
    /// value (`abc`, `12abc`, a date written as text), or parses to a number the type cannot
    /// hold (`99999` for Integer 16, `1e400`, `nan`): Core Data would silently store another
    /// value, so the model is refused.
    func refusalReason(forModelText text: String) -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let typeName = type.rawValue
        switch type {
        case .string:
            return nil
        case .uuid, .uri:
            return AttributeValue(modelText: text, type: type) == nil ? "'\(text)' is not a valid \(typeName)" : nil
        case .binary, .transformable, .objectID, .undefined, .composite:
            return "'\(text)' cannot be read: a \(typeName) attribute has no value written as text"
        case .integer16, .integer32, .integer64, .double, .float, .decimal, .boolean, .date:
            break
        }
        if ["yes", "no", "true", "false"].contains(trimmed.lowercased()) {
            return type == .date ? "'\(text)' is not a valid Date (seconds since 2001-01-01)" : nil
        }
        guard let number = Double(trimmed) else {
            return "'\(text)' is not a valid \(typeName)\(type == .date ? " (seconds since 2001-01-01)" : "")"
        }
        guard number.isFinite else { return "'\(text)' is not a finite number" }
        switch type {
        case .integer16, .integer32, .integer64:
            let range = AttributeValue.integerRange(of: type)
            // Compared as doubles: Int64's bounds are not exact doubles, and 2^63 must be refused.
            let whole = number.rounded(.towardZero)
            if whole < Double(range.lowerBound) || whole >= -Double(range.lowerBound) {
                return "'\(text)' is out of the range of \(typeName) (\(range.lowerBound)…\(range.upperBound))"
            }
        case .float where abs(number) > Double(Float.greatestFiniteMagnitude):
            return "'\(text)' is out of the range of Float (±\(Float.greatestFiniteMagnitude))"
        case .decimal where abs(number) > NSDecimalNumber(decimal: .greatestFiniteMagnitude).doubleValue:
            return "'\(text)' is out of the range of Decimal (±\(Decimal.greatestFiniteMagnitude))"
        default:
            break
        }
        return nil
    }

    private var rangeNote: String {
        guard type.isInteger else { return "" }
        let range = AttributeValue.integerRange(of: type)
        return " (\(range.lowerBound)…\(range.upperBound))"
    }

    // MARK: - Foundation's lenient readings

    /// `-[NSString longLongValue]`, narrowed to the type as `NSNumber` narrows it; except that a
    /// Boolean word reads as its number: Xcode keeps a Boolean's "YES" when the type becomes an
    /// integer, and the user meant 1 by it.
    private static func integerReading(of text: String, type: AttributeType) -> Int64 {
        switch text.lowercased() {
        case "yes", "true": return 1
        case "no", "false": return 0
        default: break
        }
        let number = leadingNumber(in: text) ?? 0
        let whole = number.isFinite ? max(min(number.rounded(.towardZero), 9.2e18), -9.2e18) : 0
        let value = Int64(whole)
        switch type {
        case .integer16: return Int64(Int16(truncatingIfNeeded: value))
        case .integer32: return Int64(Int32(truncatingIfNeeded: value))
        default: return value
        }
    }

    /// `-[NSString boolValue]`: after spaces, a sign and zeros, "Y", "y", "T", "t" or a digit
    /// 1–9 is true; anything else is false.
    private static func booleanReading(of text: String) -> Bool {
        var rest = Substring(text)
        if rest.first == "+" || rest.first == "-" { rest = rest.dropFirst() }
        rest = rest.drop { $0 == "0" }
        guard let first = rest.first else { return false }
        return "YyTt123456789".contains(first)
    }

    /// The number at the start of `text` (`12abc` → 12, `0.5.1` → 0.5), as `strtod` reads it;
    /// `nil` when the text does not start with one.
    static func leadingNumber(in text: String) -> Double? {
        let scalars = Array(text.unicodeScalars)
        var end = 0
        func digits() -> Int {
            let start = end
            while end < scalars.count, ("0"..."9").contains(scalars[end]) { end += 1 }
            return end - start
        }
        if end < scalars.count, scalars[end] == "+" || scalars[end] == "-" { end += 1 }
        var count = digits()
        if end < scalars.count, scalars[end] == "." {
            end += 1
            count += digits()
        }
        guard count > 0 else { return nil }
        let mantissaEnd = end
        if end < scalars.count, scalars[end] == "e" || scalars[end] == "E" {
            end += 1
            if end < scalars.count, scalars[end] == "+" || scalars[end] == "-" { end += 1 }
            if digits() == 0 { end = mantissaEnd }
        }
        return Double(String(String.UnicodeScalarView(scalars[0..<end])))
    }
}
