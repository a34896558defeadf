import Foundation
import Strata

/// Prints rows of named values as `fetch` and `query` do, in any ``RowFormat``, as they come:
/// JSON, NDJSON and CSV go out in chunks while rows are still being read; a table sizes its
/// columns to its first ``rowsSizingTable`` rows, then prints every row as it comes.
struct RowWriter {
    /// The rows a table waits for to size its columns; a wider cell after them pushes its
    /// row's next cells along.
    static let rowsSizingTable = 1000

    let columns: [String]
    let format: RowFormat
    private var table: TextTable?
    /// The table's column widths, once sized.
    private var widths: [Int]?
    /// The UTF-8 bytes written and not flushed yet.
    private var pending: [UInt8] = []
    private var rowCount = 0
    /// The pager the table goes through, which ``finish()`` waits for.
    private var pager: Pager?

    /// A writer of `columns` in `format`; a table on a terminal is cut to the terminal's width,
    /// but for its first `wholeColumns` (those that identify a row), and, when `pages`, goes
    /// through a ``Pager``.
    init(columns: [String], format: RowFormat, pages: Bool = false, wholeColumns: Int = 0) {
        self.columns = columns
        self.format = format
        switch format {
        case .table:
            table = TextTable(header: columns, maximumWidth: TextTable.terminalWidth(of: STDOUT_FILENO), wholeColumns: wholeColumns)
            if pages { pager = Pager.start() }
        case .csv:
            for (index, column) in columns.enumerated() {
                if index > 0 { pending.append(UInt8(ascii: ",")) }
                appendCSVField(column)
            }
            pending.append(contentsOf: [13, 10])
        case .json, .ndjson: break
        }
    }

    /// Adds a row: one value per column.
    mutating func write(_ row: [JSONValue]) {
        defer { rowCount += 1 }
        switch format {
        case .table:
            let cells = row.map(Self.cellText)
            if let widths {
                emit(TextTable.line(cells, widths: widths, cutsToWidth: table?.maximumWidth != nil, wholeColumns: table?.wholeColumns ?? 0))
                emit("\n")
            } else {
                table?.append(cells)
                if table?.rows.count == Self.rowsSizingTable { printSizedTable() }
            }
        case .json:
            var text = rowCount == 0 ? "[\n  " : ",\n  "
            JSONWriter.append(object(row), to: &text, pretty: true, level: 2)
            emit(text)
        case .ndjson:
            var text = ""
            JSONWriter.append(object(row), to: &text, pretty: false)
            emit(text)
            emit("\n")
        case .csv:
            for (index, value) in row.enumerated() {
                if index > 0 { pending.append(UInt8(ascii: ",")) }
                switch value.kind {
                case .null: break
                // Quoted, as sqlite3 writes it: an empty field is nil, `""` the empty string.
                case .string(let text) where text.isEmpty: pending.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: "\"")])
                case .string(let text), .number(let text): appendCSVField(text)
                default: appendCSVField(Self.csvText(value))
                }
            }
            pending.append(contentsOf: [13, 10])
        }
        if pending.count >= 1 << 16 { flush() }
    }

    /// Ends the output: the table, or the JSON array's end.
    mutating func finish() {
        switch format {
        case .table:
            if widths == nil { printSizedTable() }
            if rowCount == 0 { emit("(0 rows)\n") }
        case .json: emit(rowCount == 0 ? "[]\n" : "\n]\n")
        case .ndjson, .csv: break
        }
        flush()
        pager = nil
    }

    /// Prints the rows held so far with the columns sized to them; later rows follow those sizes.
    private mutating func printSizedTable() {
        guard let table else { return }
        widths = table.widths
        emit(table.rendered + "\n")
        self.table?.rows = []
    }

    private mutating func emit(_ text: String) {
        pending.append(contentsOf: text.utf8)
    }

    private mutating func flush() {
        FileHandle.standardOutput.write(Data(pending))
        pending.removeAll(keepingCapacity: true)
    }

    private func object(_ row: [JSONValue]) -> JSONValue {
        .object(zip(columns, row).map { JSONMember($0, $1) })
    }

    /// A cell of the aligned table: one line of printable characters (control characters
    /// escaped, as `\n` and `\t`), nil as NULL as `sqlite3` shows it, and the text `NULL`
    /// quoted so that it does not read as nil.
    private static func cellText(_ value: JSONValue) -> String {
        if case .null = value.kind { return "NULL" }
        let text = csvText(value)
        if text == "NULL" { return "\"NULL\"" }
        guard text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else { return text }
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": escaped += "\\n"
            case "\t": escaped += "\\t"
            case "\r": escaped += "\\r"
            case _ where scalar.properties.generalCategory == .control: escaped += String(format: "\\x%02X", scalar.value)
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    /// The value as plain text: strings unquoted, nil empty, a list's items separated by spaces.
    private static func csvText(_ value: JSONValue) -> String {
        switch value.kind {
        case .null: ""
        case .string(let text), .number(let text): text
        case .array(let values): values.map(csvText).joined(separator: " ")
        default: JSONWriter.string(from: value, pretty: false)
        }
    }

    /// Writes `text` as a CSV field, straight into the pending bytes (an export writes millions):
    /// as RFC 4180 has it, a field with a comma, quote or line break is quoted, quotes doubled.
    private mutating func appendCSVField(_ text: String) {
        var text = text
        text.withUTF8 { bytes in
            guard bytes.contains(where: Self.needsQuoting) else { return pending.append(contentsOf: bytes) }
            pending.append(UInt8(ascii: "\""))
            for byte in bytes {
                pending.append(byte)
                if byte == UInt8(ascii: "\"") { pending.append(byte) }
            }
            pending.append(UInt8(ascii: "\""))
        }
    }

    private static func needsQuoting(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: ",") || byte == UInt8(ascii: "\"") || byte == 10 || byte == 13
    }
}
