import Foundation
import Strata

/// Rows of named values as `fetch` and `query` print them, in any ``RowFormat``.
struct ResultRows {
    var columns: [String]
    var rows: [[JSONValue]] = []

    /// The rows in `format`, each line ending in a newline (nothing for no rows, except the
    /// table's and the CSV's header and the JSON's empty array).
    func rendered(as format: RowFormat) -> String {
        switch format {
        case .table:
            var table = TextTable(header: columns)
            for row in rows { table.append(row.map(Self.cellText)) }
            return table.rendered + "\n"
        case .json:
            return JSONWriter.string(from: .array(rows.map(object)), pretty: true) + "\n"
        case .ndjson:
            return rows.map { JSONWriter.string(from: object($0), pretty: false) + "\n" }.joined()
        case .csv:
            return ([columns.map(Self.csvField)] + rows.map { $0.map { Self.csvField(Self.csvText($0)) } })
                .map { $0.joined(separator: ",") + "\r\n" }.joined()
        }
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
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
