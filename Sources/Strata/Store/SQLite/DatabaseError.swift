import CSQLite
import Foundation

/// An error SQLite reported, with the statement and arguments it happened on.
///
/// ```text
/// SQLite error 19 (SQLITE_CONSTRAINT_UNIQUE): UNIQUE constraint failed: ZTAG.ZNAME
///   in: INSERT INTO ZTAG (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (?, ?, ?, ?)
///   arguments: [3, 5, 1, 'fantasy']
/// ```
public struct DatabaseError: Error, Sendable, CustomStringConvertible, LocalizedError {
    /// The primary result code (`SQLITE_BUSY`, `SQLITE_CONSTRAINT`, …).
    public var code: Int32
    /// The extended result code, which tells apart, say, a unique from a foreign key violation.
    public var extendedCode: Int32
    public var message: String
    /// The database file.
    public var path: String
    /// The SQL being run, when the error came from a statement.
    public var sql: String?
    public var arguments: [DatabaseValue]

    public init(code: Int32, extendedCode: Int32? = nil, message: String, path: String, sql: String? = nil, arguments: [DatabaseValue] = []) {
        self.code = code
        self.extendedCode = extendedCode ?? code
        self.message = message
        self.path = path
        self.sql = sql
        self.arguments = arguments
    }

    /// Whether another connection holds the lock the operation needed.
    public var isBusy: Bool { code == SQLITE_BUSY || code == SQLITE_LOCKED }

    /// Whether the file is damaged or not a database: a problem with the data, not the program.
    public var isDamagedFile: Bool { code == SQLITE_CORRUPT || code == SQLITE_NOTADB }

    public var errorDescription: String? { description }

    public var description: String {
        var text = "\(path): SQLite error \(code) (\(String(cString: sqlite3_errstr(extendedCode)))): \(message)"
        if let sql { text += "\n  in: \(sql)" }
        if !arguments.isEmpty { text += "\n  arguments: [\(arguments.map(\.description).joined(separator: ", "))]" }
        return text
    }
}
