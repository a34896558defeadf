import CSQLite
import Foundation

/// An error SQLite reported, with the statement and arguments it happened on.
///
/// Match one by its result code with the named codes (see ``ResultCode``):
/// `catch DatabaseError.SQLITE_CONSTRAINT_UNIQUE { … }`.
///
/// ```text
/// Library.sqlite: SQLite error 19 (constraint failed): UNIQUE constraint failed: ZTAG.ZNAME
///   in: INSERT INTO ZTAG (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (?, ?, ?, ?)
///   arguments: [3, 5, 1, 'fantasy']
/// ```
public struct DatabaseError: Error, Sendable, CustomStringConvertible, LocalizedError {
    /// The primary result code (``SQLITE_BUSY``, ``SQLITE_CONSTRAINT``, …).
    public var resultCode: ResultCode
    /// The extended result code, which tells apart, say, a unique
    /// (``SQLITE_CONSTRAINT_UNIQUE``) from a foreign key violation; the primary code when SQLite
    /// gave no more specific one.
    public var extendedResultCode: ResultCode
    /// What went wrong, in SQLite's words (`sqlite3_errmsg`, such as `UNIQUE constraint failed:
    /// ZTAG.ZNAME`) or, for a misuse Strata catches itself, in Strata's.
    public var message: String
    /// The path of the database file the connection opened.
    public var path: String
    /// The SQL being run, when the error came from a statement.
    public var sql: String?
    /// The values bound to the statement's `?` parameters, in order; empty when it took none or
    /// the error did not come from a statement.
    public var arguments: [DatabaseValue]
    /// Where in ``sql`` SQLite stopped, as a byte offset into its UTF-8 (`sqlite3_error_offset`):
    /// the token a syntax error or an unknown column is at; `nil` when SQLite does not say.
    public var offset: Int?
    /// The `errno` of the system call that failed under an I/O error (`sqlite3_system_errno`),
    /// or 0 when none is known.
    public var systemErrorCode: Int32
    /// Why an SQL function of Strata's failed the statement (a MATCHES over budget, a missing
    /// external data file), when that is what stopped it.
    public var functionFailure: (any Error)?
    /// The ``functionFailure`` when a predicate's string operator gave no answer.
    public var cause: StringMatchError? { functionFailure as? StringMatchError }
    /// The ``functionFailure`` when a value kept in a file beside the store could not be read.
    public var externalDataFailure: ExternalDataError? { functionFailure as? ExternalDataError }

    /// An error with SQLite's result codes; `extendedResultCode` defaults to `resultCode` when
    /// there is no more specific one, and `path` names the database file the error concerns.
    public init(
        resultCode: ResultCode, extendedResultCode: ResultCode? = nil, message: String, path: String, sql: String? = nil,
        arguments: [DatabaseValue] = [], systemErrorCode: Int32 = 0
    ) {
        self.resultCode = resultCode.primaryResultCode
        self.extendedResultCode = extendedResultCode ?? resultCode
        self.message = message
        self.path = path
        self.sql = sql
        self.arguments = arguments
        self.systemErrorCode = systemErrorCode
    }

    /// Whether a write failed for want of room: a full disk or quota (`SQLITE_FULL`), or a
    /// file that reached the size limit of the process (`EFBIG`, which SQLite reports as an
    /// I/O error).
    public var isDiskFull: Bool {
        resultCode == Self.SQLITE_FULL || (resultCode == Self.SQLITE_IOERR && [ENOSPC, EFBIG, EDQUOT].contains(systemErrorCode))
    }

    /// Whether another connection holds the lock the operation needed.
    public var isBusy: Bool { resultCode == Self.SQLITE_BUSY || resultCode == Self.SQLITE_LOCKED }

    /// Whether the file is damaged or not a database: a problem with the data, not the program.
    public var isDamagedFile: Bool { resultCode == Self.SQLITE_CORRUPT || resultCode == Self.SQLITE_NOTADB }

    /// The same text as ``description``, so that `localizedDescription` shows the SQL and its
    /// arguments too.
    public var errorDescription: String? { description }

    /// The file's path, the result code with SQLite's wording for it (`sqlite3_errstr`) and the
    /// message, then the SQL and its arguments on lines of their own when known. SQL made from
    /// a huge predicate is cut after its first 500 characters, and the arguments after the
    /// first 20: ``sql`` and ``arguments`` keep them whole.
    public var description: String {
        // The statement that met a full disk says nothing about why: the room is what to fix.
        if isDiskFull {
            let reason = systemErrorCode == 0 ? "" : " (\(String(cString: strerror(systemErrorCode))))"
            return "\(path): cannot write the store: the disk is full or the file has reached its size limit\(reason)"
        }
        // A write to a file opened read-only (no write permission, a read-only mount): the
        // statement is beside the point.
        if resultCode == Self.SQLITE_READONLY { return "\(path): the store cannot be written: \(message)" }
        // A predicate's pattern that could not be matched: the pattern is what to fix, not the SQL.
        if let functionFailure { return "\(path): \(functionFailure)" }
        var text = "\(path): SQLite error \(resultCode.rawValue) (\(String(cString: sqlite3_errstr(extendedResultCode.rawValue)))): \(message)"
        if let sql {
            text += "\n  in: " + (sql.count > 1_000 ? "\(sql.prefix(500))… (\(sql.count) characters)" : sql)
        }
        if !arguments.isEmpty {
            let shown = arguments.prefix(20).map(\.description).joined(separator: ", ")
            text += "\n  arguments: [\(shown)\(arguments.count > 20 ? ", … (\(arguments.count) in all)" : "")]"
        }
        return text
    }
}
