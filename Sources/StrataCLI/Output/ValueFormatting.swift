import Foundation
import Strata

/// How stored values are shown: as their attribute type reads them (dates in ISO 8601, UUIDs
/// as text), falling back to the raw SQLite value when the type is unknown or does not fit.
enum ValueFormatting {
    /// The value for a table cell: short, one line.
    static func text(_ value: DatabaseValue, type: AttributeType?) -> String {
        switch typed(value, type) {
        case .date(let date)?: return date.formatted(.iso8601)
        case .uuid(let uuid)?: return uuid.uuidString
        case .boolean(let bool)?: return bool ? "YES" : "NO"
        case .decimal(let decimal)?: return NSDecimalNumber(decimal: decimal).stringValue
        case .binary(let data)?: return "<\(data.count) bytes>"
        case .uri(let url)?: return url.absoluteString
        default: break
        }
        switch value {
        case .null: return "NULL"
        case .integer(let integer): return String(integer)
        case .real(let real): return tableText(real)
        case .text(let text):
            let line = text.replacingOccurrences(of: "\n", with: "\\n")
            return line.count > 60 ? String(line.prefix(57)) + "..." : line
        case .blob(let data): return "<\(data.count) bytes>"
        }
    }

    /// The value for JSON output: numbers and strings as themselves, dates in ISO 8601, UUIDs
    /// as text, binary data in base64.
    static func json(_ value: DatabaseValue, type: AttributeType?) -> JSONValue {
        if let typed = typed(value, type) { return json(typed) }
        switch value {
        case .null: return .null
        case .integer(let integer): return .number(integer)
        case .real(let real): return .number(real)
        case .text(let text): return .string(text)
        case .blob(let data): return .string(data.base64EncodedString())
        }
    }

    /// An attribute's value for JSON output: ``AttributeValue/jsonValue``, which reads back
    /// exactly (dates with the fraction of a second they hold).
    static func json(_ value: AttributeValue) -> JSONValue {
        value.jsonValue
    }

    /// A fetched value as a row of `format` holds it: as JSON, but for a table, which is for
    /// reading, binary data as its size and an object as `Entity/p12` rather than its URI. The
    /// value of a Transformable `attribute` is the value its archive holds: its JSON form, in a
    /// table its description on one line.
    static func row(_ value: FetchedValue?, format: RowFormat, attribute: AttributeDescription? = nil) -> JSONValue {
        switch value {
        case .attribute(.binary(let data))? where attribute?.type == .transformable:
            let transformable = attribute!.transformableValue(storedData: data)
            guard format == .table else { return transformable.jsonValue() }
            let text = transformable.description
            return .string(text.count > tableTextLength ? String(text.prefix(tableTextLength - 3)) + "..." : text)
        case .attribute(.binary(let data))? where format == .table: return .string("<\(data.count) bytes>")
        case .attribute(.double(let double))? where format == .table && double.isFinite: return JSONValue(.number(tableText(double)))
        case .attribute(let value)?: return json(value)
        case .object(let id)?: return row(id, format: format)
        case nil: return .null
        }
    }

    /// A raw SQLite value (`strata sql`'s) as a row of `format` holds it: as JSON writes it
    /// (binary data in base64), but for a table, which is for reading, binary data as its size
    /// and a double to 15 significant digits.
    static func row(_ value: DatabaseValue, format: RowFormat) -> JSONValue {
        switch value {
        case .real(let double) where format == .table && double.isFinite: JSONValue(.number(tableText(double)))
        case .blob(let data) where format == .table: .string("<\(data.count) bytes>")
        default: json(value, type: nil)
        }
    }

    /// The attribute the key path `keyPath` of `entityName` ends at, if any.
    static func attribute(at keyPath: String, from entityName: String, model: ObjectModel) -> AttributeDescription? {
        model.entity(named: entityName).flatMap { model.attribute(atKeyPath: keyPath, from: $0) }
    }

    /// A double as a table shows it, as `sqlite3` does: rounded to 15 significant digits, the
    /// precision every double holds, so that the binary fraction's noise does not show (`1.6 * 3`
    /// shows as `4.8`, not `4.800000000000001`), written in the shortest text that reads back as
    /// that rounded value (`4.8`, `3.0`, `1e+20`). JSON and CSV, which are read back, keep
    /// the shortest text of the exact value.
    static func tableText(_ double: Double) -> String {
        guard double.isFinite, let rounded = Double(String(format: "%.15g", double)) else { return String(double) }
        return String(rounded)
    }

    /// How many characters of a transformable value a table shows: `--format json` shows all.
    static let tableTextLength = 80

    /// An object as a row of `format` names it: its URI, or in a table `Entity/p12`.
    static func row(_ id: ObjectID, format: RowFormat) -> JSONValue {
        guard format == .table, let key = id.primaryKey else { return .string(id.uriString) }
        return .string("\(id.entityName)/p\(key)")
    }

    private static func typed(_ value: DatabaseValue, _ type: AttributeType?) -> AttributeValue? {
        type.flatMap { AttributeValue(value, type: $0) }
    }
}
