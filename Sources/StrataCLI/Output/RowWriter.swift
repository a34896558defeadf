import Foundation
import Strata

/// Prints rows of named values as `fetch` and `query` do, in any ``RowFormat``, as they come:
/// JSON, NDJSON and CSV go out in chunks while rows are still being read; a table waits for
/// its last row to align its columns.
struct RowWriter {
    let columns: [String]
    let format: RowFormat
    private var table: TextTable?
    private var pending = ""
    private var rowCount = 0

    init(columns: [String], format: RowFormat) {
        self.columns = columns
        self.format = format
        switch format {
        case .table: table = TextTable(header: columns)
        case .csv: pending = columns.map(Self.csvField).joined(separator: ",") + "\r\n"
        case .json, .ndjson: break
        }
    }

    /// Adds a row: one value per column.
    mutating func write(_ row: [JSONValue]) {
        defer { rowCount += 1 }
        switch format {
        case .table:
            table?.append(row.map(Self.cellText))
        case .json:
            pending += rowCount == 0 ? "[\n  " : ",\n  "
            JSONWriter.append(object(row), to: &pending, pretty: true, level: 2)
        case .ndjson:
            JSONWriter.append(object(row), to: &pending, pretty: false)
            pending += "\n"
        case .csv:
            pending += row.map { Self.csvField(Self.csvText($0)) }.joined(separator: ",") + "\r\n"
        }
        if pending.utf8.count >= 1 << 16 { flush() }
    }

    /// Ends the output: the table, or the JSON array's end.
    mutating func finish() {
        switch format {
        case .table: pending += (table?.rendered ?? "") + "\n"
        case .json: pending += rowCount == 0 ? "[]\n" : "\n]\n"
        case .ndjson, .csv: break
        }
        flush()
    }

    private mutating func flush() {
        FileHandle.standardOutput.write(Data(pending.utf8))
        pending = ""
    }

    private func object(_ row: [JSONValue]) -> JSONValue {
        .object(zip(columns, row).map { JSONMember($0, $1) })
    }

    /// A cell of the aligned table: one line, nil as NULL as `sqlite3` shows it.
    private static func cellText(_ value: JSONValue) -> String {
        if case .null = value.kind { return "NULL" }
        return csvText(value).replacingOccurrences(of: "\n", with: "\\n")
    }

    /// The value as plain text: strings unquoted, nil empty, a list's items separated by spaces.
    private static func csvText(_ value: JSONValue) -> String {
        switch value.kind {
        case .null: ""
        case .string(let text): text
        case .array(let values): values.map(csvText).joined(separator: " ")
        default: JSONWriter.string(from: value, pretty: false)
        }
    }

    /// RFC 4180: a field with a comma, quote or line break is quoted, quotes doubled.
    private static func csvField(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 10 || $0 == 13 }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
