import Foundation

extension AttributeValue {
    /// The value a JSON value gives an attribute of `type`, converting only what converts
    /// without loss: numbers from numeric strings, integers from integral numbers, booleans from
    /// 0/1 and yes/no, strings from numbers; dates from ISO 8601 text (with or without
    /// fraction, zone or time), from Unix seconds, or by `dateFormat` when one is given.
    ///
    /// A Transformable attribute's value is read in the JSON form of a ``TransformableValue``
    /// (``TransformableValue/init(json:)``) and archived as its `valueTransformerName` keeps
    /// values (``TransformableValue/storedData(valueTransformerName:)``).
    ///
    /// - Returns: the value, or a description of why it does not fit (`"a string that is not a number"`).
    public static func fromJSON(
        _ json: JSONValue, type: AttributeType, dateFormat: String? = nil, valueTransformerName: String? = nil
    ) -> Result<AttributeValue, ImportValueMismatch> {
        func mismatch(_ reason: String) -> Result<AttributeValue, ImportValueMismatch> { .failure(ImportValueMismatch(reason: reason)) }
        if type == .transformable {
            do {
                return .success(.binary(try TransformableValue(json: json).storedData(valueTransformerName: valueTransformerName)))
            } catch {
                return mismatch(error.message)
            }
        }
        if case .number(let literal) = json.kind, let value = numberLiteral(literal, type: type) { return .success(value) }
        let text: String? = switch json.kind {
        case .number(let literal): literal
        case .string(let string): string
        default: nil
        }
        // Swift's Double(String) also reads hexadecimal ("0x10" is 16) and "inf": JSON and the
        // APIs it comes from mean none of those, so a number in a string is decimal or nothing.
        if type.isNumeric, let text, !Self.isDecimalNumber(text), Double(text.trimmingCharacters(in: .whitespaces)) != nil {
            return mismatch("\(json.kindDescription) that is not a decimal number")
        }
        switch type {
        case .integer16, .integer32, .integer64:
            guard let text else { return mismatch("\(json.kindDescription) is not an integer") }
            if let value = AttributeValue(modelText: text, type: type) { return .success(value) }
            if let number = Double(text.trimmingCharacters(in: .whitespaces)), number.rounded() == number, abs(number) < 9.2e18,
                let value = AttributeValue(modelText: String(Int64(number)), type: type)
            {
                return .success(value)
            }
            return mismatch(Double(text) == nil ? "\(json.kindDescription) that is not a number" : "\(text) is not an integer in the range of \(type)")
        case .double, .float, .decimal:
            guard let text, let value = AttributeValue(modelText: text, type: type) else {
                guard let text, Double(text.trimmingCharacters(in: .whitespaces)) != nil else {
                    return mismatch(text == nil ? "\(json.kindDescription) is not a number" : "\(json.kindDescription) that is not a number")
                }
                return mismatch("\(text) is not a number in the range of \(type)")
            }
            return .success(value)
        case .string:
            switch json.kind {
            case .string(let string): return .success(.string(string))
            case .number(let literal): return .success(.string(literal))
            case .bool(let flag): return .success(.string(flag ? "true" : "false"))
            default: return mismatch("\(json.kindDescription) is not a string")
            }
        case .boolean:
            if let flag = json.boolValue { return .success(.boolean(flag)) }
            guard let text, let value = AttributeValue(modelText: text, type: .boolean) else { return mismatch("\(json.kindDescription) is not a boolean") }
            return .success(value)
        case .date:
            if case .number(let literal) = json.kind, let seconds = Double(literal), seconds.isFinite {
                return .success(.date(Date(timeIntervalSince1970: seconds)))
            }
            guard let string = json.stringValue else { return mismatch("\(json.kindDescription) is not a date") }
            if let dateFormat {
                guard let date = dateFormatter(for: dateFormat).date(from: string) else { return mismatch("\"\(string)\" does not match the date format \(dateFormat)") }
                return .success(.date(date))
            }
            guard let date = ISO8601Text.date(from: string) else { return mismatch("\"\(string)\" is not an ISO 8601 date") }
            return .success(.date(date))
        case .binary:
            guard let string = json.stringValue, let data = Data(base64Encoded: string) else { return mismatch("\(json.kindDescription) is not base64 data") }
            return .success(.binary(data))
        case .uuid:
            guard let string = json.stringValue, let uuid = UUID(uuidString: string) else { return mismatch("\(json.kindDescription) is not a UUID") }
            return .success(.uuid(uuid))
        case .uri:
            guard let string = json.stringValue, let url = URL(string: string) else { return mismatch("\(json.kindDescription) is not a URI") }
            return .success(.uri(url))
        default:
            return mismatch("a \(type) attribute cannot be imported from JSON")
        }
    }
}

extension AttributeValue {
    /// Whether `text`, spaces around it aside, is a decimal number as JSON writes one (with a
    /// leading `+` or `.`, or a trailing `.`, allowed): a sign, digits, a fraction, an exponent.
    static func isDecimalNumber(_ text: String) -> Bool {
        let bytes = Array(text.trimmingCharacters(in: .whitespaces).utf8)
        var index = 0
        func digits() -> Int {
            let start = index
            while index < bytes.count, (48...57).contains(bytes[index]) { index += 1 }
            return index - start
        }
        if index < bytes.count, bytes[index] == 43 || bytes[index] == 45 { index += 1 }
        var count = digits()
        if index < bytes.count, bytes[index] == 46 {
            index += 1
            count += digits()
        }
        guard count > 0 else { return false }
        if index < bytes.count, bytes[index] == 101 || bytes[index] == 69 {
            index += 1
            if index < bytes.count, bytes[index] == 43 || bytes[index] == 45 { index += 1 }
            guard digits() > 0 else { return false }
        }
        return index == bytes.count
    }

    /// The value of a JSON number literal for a numeric attribute, read as
    /// ``init(modelText:type:)`` reads it but without trimming: a literal has no whitespace,
    /// and trimming costs more than parsing the number. `nil` leaves the literal to the
    /// general rules (an integral `1.0` for an integer attribute, a decimal, a date).
    fileprivate static func numberLiteral(_ literal: String, type: AttributeType) -> AttributeValue? {
        switch type {
        case .integer16, .integer32, .integer64:
            guard let value = Int64(literal), integerRange(of: type).contains(value) else { return nil }
            return .integer(value)
        case .double:
            guard let value = Double(literal), value.isFinite else { return nil }
            return .double(value)
        default:
            return nil
        }
    }
}

/// The formatter of an attribute's `dateFormat`, made once per format: imports read one per value.
private func dateFormatter(for format: String) -> DateFormatter {
    if let known = dateFormatters.withLock({ $0[format] }) { return known }
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "UTC")
    formatter.dateFormat = format
    dateFormatters.withLock { $0[format] = formatter }
    return formatter
}

private let dateFormatters = Locked<[String: DateFormatter]>([:])

/// Why a JSON value does not fit an attribute.
/// Why a JSON value does not fit an attribute, in words (`"a string that is not a number"`).
public struct ImportValueMismatch: Error, Sendable {
    /// The mismatch, in words.
    public let reason: String
}

extension AttributeDescription {
    /// A value of this attribute as JSON that ``AttributeValue/fromJSON(_:type:dateFormat:valueTransformerName:)``
    /// reads back: ``AttributeValue/jsonValue``, but a Transformable attribute's value in the
    /// JSON form of its ``TransformableValue`` (``transformableValue(storedData:)``).
    ///
    /// - Parameter taggingNulls: see ``TransformableValue/jsonValue(taggingNulls:)``.
    public func jsonValue(of value: AttributeValue, taggingNulls: Bool = false) -> JSONValue {
        guard type == .transformable, case .binary(let data) = value else { return value.jsonValue }
        return transformableValue(storedData: data).jsonValue(taggingNulls: taggingNulls)
    }
}

extension AttributeValue {
    /// The value as JSON that ``fromJSON(_:type:dateFormat:valueTransformerName:)`` reads back exactly: numbers,
    /// decimals as exact numbers, dates as ISO 8601 UTC text (Unix seconds outside years
    /// 1–9999), binary data base64, UUIDs and URIs as text.
    public var jsonValue: JSONValue {
        switch self {
        case .integer(let integer): .number(integer)
        case .double(let double): .number(double)
        case .decimal(let decimal): decimal.isNaN ? .null : JSONValue(.number(NSDecimalNumber(decimal: decimal).stringValue))
        case .string(let string): .string(string)
        case .boolean(let bool): .bool(bool)
        case .binary(let data): .string(data.base64EncodedString())
        case .uuid(let uuid): .string(uuid.uuidString)
        case .uri(let url): .string(url.absoluteString)
        case .date(let date): Exporter.json(date)
        }
    }
}

