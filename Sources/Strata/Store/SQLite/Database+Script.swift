import CSQLite
import Foundation

extension Database {
    /// Runs the statements of `script`, SQL separated by `;` as `sqlite3` reads it, one at a
    /// time: each is prepared only once the one before it has run (so that a statement may use
    /// a table the one before created), and handed to `body`, which steps it. Empty statements
    /// and comments between them are skipped.
    ///
    /// ```swift
    /// try database.forEachStatement(in: "SELECT count(*) FROM ZBOOK; SELECT Z_NAME FROM Z_PRIMARYKEY") { statement, _ in
    ///     while try statement.step() { print(statement.currentRow) }
    /// }
    /// ```
    ///
    /// - Parameter body: called with each statement and its number in the script (from 1).
    /// - Throws: a ``DatabaseError`` for a statement that does not compile, whose ``DatabaseError/sql``
    ///   is that statement alone and whose ``DatabaseError/offset`` points into it; what `body` throws.
    package func forEachStatement(in script: String, _ body: (Statement, Int) throws -> Void) throws {
        let bytes = Array(script.utf8)
        var start = 0
        var number = 0
        while start < bytes.count {
            let (end, isStatement) = try endOfStatement(in: bytes, from: start)
            let text = String(decoding: bytes[start..<end], as: UTF8.self)
            start = end
            guard isStatement else { continue }
            number += 1
            try body(try makeStatement(text.trimmingCharacters(in: .whitespacesAndNewlines)), number)
        }
    }

    /// Where the statement that starts at `start` in `bytes` ends (after its `;`), as SQLite's
    /// parser finds it, and whether there was one (rather than only white space and comments).
    /// A statement that does not compile ends the script, whose error it throws.
    private func endOfStatement(in bytes: [UInt8], from start: Int) throws(DatabaseError) -> (end: Int, isStatement: Bool) {
        // Leading white space left out, so that an error's SQL and offset start at the statement.
        var start = start
        while start < bytes.count, [9, 10, 13, 32].contains(bytes[start]) { start += 1 }
        guard start < bytes.count else { return (start, false) }
        var handle: OpaquePointer?
        var tail: UnsafePointer<CChar>?
        let (code, end): (Int32, Int) = bytes.withUnsafeBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) { base in
                let code = sqlite3_prepare_v2(self.handle, base + start, Int32(buffer.count - start), &handle, &tail)
                return (code, tail.map { $0 - base } ?? buffer.count)
            }
        }
        let found = handle != nil
        sqlite3_finalize(handle)
        // The error is read after the finalizing, which leaves the connection's error as it is.
        guard code == SQLITE_OK else { throw error(code: code, sql: String(decoding: bytes[start...], as: UTF8.self)) }
        return (max(end, start + 1), found)
    }
}
