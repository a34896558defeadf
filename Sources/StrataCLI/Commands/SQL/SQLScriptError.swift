import Foundation
import Strata

/// An error SQLite reported on `strata sql`'s SQL: SQLite's error as it is, shown with the
/// line of the SQL it is on and a caret under the token SQLite stopped at, as `--where`'s
/// errors point at theirs.
struct SQLScriptError: Error, CustomStringConvertible {
    var cause: DatabaseError

    var description: String {
        var lines = [cause.description.split(separator: "\n", maxSplits: 1).first.map(String.init) ?? cause.message]
        guard let sql = cause.sql else { return lines[0] }
        guard let offset = cause.offset, offset <= sql.utf8.count else {
            lines.append("  in: " + sql.trimmingCharacters(in: .whitespacesAndNewlines))
            return lines.joined(separator: "\n")
        }
        // The line holding the offset, and the caret under it, counted in characters.
        let utf8 = Array(sql.utf8)
        let lineStart = utf8[..<offset].lastIndex(of: 10).map { $0 + 1 } ?? 0
        let lineEnd = utf8[offset...].firstIndex(of: 10) ?? utf8.count
        let line = String(decoding: utf8[lineStart..<lineEnd], as: UTF8.self)
        let column = String(decoding: utf8[lineStart..<offset], as: UTF8.self).count
        lines.append("  " + line)
        lines.append("  " + String(repeating: " ", count: column) + "^")
        return lines.joined(separator: "\n")
    }
}
