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

    /// The table as lines without trailing spaces.
    var lines: [String] {
        let all = [header] + rows
        var widths = Array(repeating: 0, count: header.count)
        for row in all {
            for (column, cell) in row.enumerated() where column < widths.count { widths[column] = max(widths[column], cell.count) }
        }
        let prefix = String(repeating: " ", count: indent)
        return all.map { row in
            var line = prefix
            for (column, cell) in row.enumerated() {
                if column > 0 { line += "  " }
                line += cell
                if column < row.count - 1, column < widths.count { line += String(repeating: " ", count: widths[column] - cell.count) }
            }
            while line.last == " " { line.removeLast() }
            return line
        }
    }

    var rendered: String { lines.joined(separator: "\n") }
}
