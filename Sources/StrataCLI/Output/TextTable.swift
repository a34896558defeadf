/// Rows of text printed in aligned columns, with a header row, as `sqlite3 -column` does.
struct TextTable {
    var header: [String]
    var rows: [[String]] = []
    /// Spaces before each line.
    var indent = 0

    init(header: [String], indent: Int = 0) {
        self.header = header
        self.indent = indent
    }

    mutating func append(_ row: [String]) {
        rows.append(row)
    }

    /// The width of each column: its widest cell, the header's included.
    var widths: [Int] {
        var widths = Array(repeating: 0, count: header.count)
        for row in [header] + rows {
            for (column, cell) in row.enumerated() where column < widths.count { widths[column] = max(widths[column], cell.count) }
        }
        return widths
    }

    /// The table as lines without trailing spaces.
    var lines: [String] {
        let widths = widths
        return ([header] + rows).map { Self.line($0, widths: widths, indent: indent) }
    }

    var rendered: String { lines.joined(separator: "\n") }

    /// `row` with each cell padded to its column's width (a wider cell pushes the rest
    /// along), without trailing spaces.
    static func line(_ row: [String], widths: [Int], indent: Int = 0) -> String {
        var line = String(repeating: " ", count: indent)
        for (column, cell) in row.enumerated() {
            if column > 0 { line += "  " }
            line += cell
            if column < row.count - 1, column < widths.count { line += String(repeating: " ", count: max(0, widths[column] - cell.count)) }
        }
        while line.last == " " { line.removeLast() }
        return line
    }
}
