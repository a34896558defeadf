import Foundation

// How attribute values are stored in Core Data's columns: dates as seconds since 2001-01-01,
// UUIDs as their 16 bytes, booleans as 0 and 1, binary and transformable data as given.
// Decimal is bound as its exact text; the NUMERIC affinity of DECIMAL columns makes SQLite
// store it as a REAL, so values of up to 15 significant digits come back exactly and longer
// ones to double precision.

extension AttributeValue {
    /// The value as its column holds it.
    var databaseValue: DatabaseValue {
        switch self {
        case .integer(let value): .integer(value)
        case .double(let value): .real(value)
        case .decimal(let value): .text(NSDecimalNumber(decimal: value).stringValue)
        case .string(let value): .text(value)
        case .boolean(let value): .integer(value ? 1 : 0)
        case .date(let value): .real(value.timeIntervalSinceReferenceDate)
        case .binary(let value): .blob(value)
        case .uuid(let value): .blob(withUnsafeBytes(of: value.uuid) { Data($0) })
        case .uri(let value): .text(value.absoluteString)
        }
    }

    /// The value of an attribute of `type` that a column holds, or `nil` for NULL or a value
    /// the type cannot take (a string in an integer column written by another tool, say).
    public init?(_ value: DatabaseValue, type: AttributeType) {
        switch (type, value) {
        case (_, .null): return nil
        case (.integer16, _), (.integer32, _), (.integer64, _):
            guard let integer = value.int64Value else { return nil }
            self = .integer(integer)
        case (.boolean, _):
            guard let integer = value.int64Value else { return nil }
            self = .boolean(integer != 0)
        case (.double, _), (.float, _):
            guard let double = value.doubleValue else { return nil }
            self = .double(double)
        case (.decimal, .text(let text)):
            guard let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else { return nil }
            self = .decimal(decimal)
        case (.decimal, .integer(let integer)): self = .decimal(Decimal(integer))
        case (.decimal, .real(let real)):
            guard let decimal = Decimal(string: String(real), locale: Locale(identifier: "en_US_POSIX")) else { return nil }
            self = .decimal(decimal)
        case (.date, _):
            guard let seconds = value.doubleValue else { return nil }
            self = .date(Date(timeIntervalSinceReferenceDate: seconds))
        case (.string, .text(let text)): self = .string(text)
        case (.uri, .text(let text)):
            guard let url = URL(string: text) else { return nil }
            self = .uri(url)
        case (.uuid, .blob(let data)) where data.count == 16:
            let bytes = [UInt8](data)
            self = .uuid(UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                                     bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15])))
        case (.binary, .blob(let data)), (.transformable, .blob(let data)): self = .binary(data)
        // Text in a Binary column (written by another tool): Core Data reads a blob column
        // with sqlite3_column_blob, which hands over the text's UTF-8 bytes.
        case (.binary, .text(let text)): self = .binary(Data(text.utf8))
        default: return nil
        }
    }
}
