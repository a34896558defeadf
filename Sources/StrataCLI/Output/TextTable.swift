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
        let widths = (0..<header.count).map { column in all.map { $0.indices.contains(column) ? $0[column].count : 0 }.max() ?? 0 }
        let prefix = String(repeating: " ", count: indent)
        return all.map { row in
            let cells = row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }
            let line = prefix + cells.joined(separator: "  ")
            return String(line.reversed().drop { $0 == " " }.reversed())
        }
    }

    var rendered: String { lines.joined(separator: "\n") }
}
