import Foundation

/// Rows of text printed in aligned columns, with a header row, as `sqlite3 -column` does.
/// Widths are counted in terminal columns: a CJK character takes two, a combining mark none.
struct TextTable {
    var header: [String]
    var rows: [[String]] = []
    /// Spaces before each line.
    var indent = 0
    /// The widest a line may be (the terminal's width): the widest columns are narrowed, and
    /// their cells cut with `…`, until a line fits; `nil` for no limit.
    var maximumWidth: Int?
    /// How many leading columns are never narrowed nor cut: the columns that identify a row
    /// (`object`), without which a cut row could not be told from another. The other columns
    /// share the width these leave.
    var wholeColumns: Int

    init(header: [String], indent: Int = 0, maximumWidth: Int? = nil, wholeColumns: Int = 0) {
        self.header = header
        self.indent = indent
        self.maximumWidth = maximumWidth
        self.wholeColumns = wholeColumns
    }

    mutating func append(_ row: [String]) {
        rows.append(row)
    }

    /// The width of each column: its widest cell, the header's included, narrowed to fit
    /// ``maximumWidth``.
    var widths: [Int] {
        var widths = Array(repeating: 0, count: header.count)
        for row in [header] + rows {
            for (column, cell) in row.enumerated() where column < widths.count {
                widths[column] = max(widths[column], Self.displayWidth(cell))
            }
        }
        guard let maximumWidth else { return widths }
        // Narrow the widest column, one column at a time, down to a few characters at least, so
        // that short columns stay whole and the longest text is cut first.
        let separators = indent + 2 * max(0, widths.count - 1)
        let narrowable = widths.indices.dropFirst(wholeColumns)
        while widths.reduce(separators, +) > maximumWidth, let widest = narrowable.max(by: { widths[$0] < widths[$1] }), widths[widest] > 4 {
            widths[widest] -= 1
        }
        return widths
    }

    /// The table as lines without trailing spaces.
    var lines: [String] {
        let widths = widths
        return ([header] + rows).map { Self.line($0, widths: widths, indent: indent, cutsToWidth: maximumWidth != nil, wholeColumns: wholeColumns) }
    }

    var rendered: String { lines.joined(separator: "\n") }

    /// `row` with each cell padded to its column's width (a wider cell pushes the rest along,
    /// or, when `cutsToWidth`, is cut with `…`, but for the first `wholeColumns`), without
    /// trailing spaces.
    static func line(_ row: [String], widths: [Int], indent: Int = 0, cutsToWidth: Bool = false, wholeColumns: Int = 0) -> String {
        var line = String(repeating: " ", count: indent)
        for (column, cell) in row.enumerated() {
            if column > 0 { line += "  " }
            var cell = cell, width = displayWidth(cell)
            if cutsToWidth, column >= wholeColumns, column < widths.count, width > widths[column] {
                (cell, width) = cut(cell, to: widths[column])
            }
            line += cell
            if column < row.count - 1, column < widths.count { line += String(repeating: " ", count: max(0, widths[column] - width)) }
        }
        while line.last == " " { line.removeLast() }
        return line
    }

    /// `text` cut to at most `width` columns, ending in `…`, with the width it then takes.
    static func cut(_ text: String, to width: Int) -> (String, Int) {
        var kept = "", used = 0
        for character in text {
            let next = displayWidth(String(character))
            guard used + next <= width - 1 else { break }
            kept.append(character)
            used += next
        }
        return (kept + "…", used + 1)
    }

    // MARK: - Display width

    /// The width of the terminal `fileDescriptor` writes to, in columns, or `nil` when it is
    /// not a terminal.
    static func terminalWidth(of fileDescriptor: Int32) -> Int? {
        var size = winsize()
        guard isatty(fileDescriptor) == 1, ioctl(fileDescriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }

    /// The columns `text` takes on a terminal: two for East Asian wide and full-width
    /// characters, none for combining marks and zero-width characters, one for the others.
    static func displayWidth(_ text: String) -> Int {
        var width = 0
        for scalar in text.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .nonspacingMark, .enclosingMark, .format: continue
            default: width += isWide(scalar) ? 2 : 1
            }
        }
        return width
    }

    /// Unicode's East Asian Wide and Fullwidth ranges (as `wcwidth` implementations list them),
    /// with the emoji most terminals draw two columns wide.
    private static func isWide(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x1100...0x115F, 0x231A...0x231B, 0x2329...0x232A, 0x23E9...0x23EC, 0x2E80...0x303E, 0x3041...0x33FF,
            0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF,
            0xFE10...0xFE19, 0xFE30...0xFE6F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x1F900...0x1F9FF,
            0x20000...0x2FFFD, 0x30000...0x3FFFD:
            true
        default:
            false
        }
    }
}
