import CSQLite
import Foundation

/// A prepared SQL statement of a ``Database``: bind arguments, step through rows, reuse.
///
/// Statements from ``Database/cachedStatement(_:)`` are kept and reused by SQL text; they are
/// reset before each use, so a caller never sees another caller's bindings.
package final class Statement {
    /// The SQL text the statement was prepared from: exactly one statement, with `?` parameters.
    /// ``Database/cachedStatement(_:)`` keeps statements by this text.
    package let sql: String
    let handle: OpaquePointer
    private unowned let database: Database
    private var boundArguments: [DatabaseValue] = []
    /// The bytes of the texts bound last, which SQLite reads in place (`SQLITE_STATIC`) until
    /// the next binding rather than copying each text into memory of its own.
    private var textBytes: UnsafeMutableRawPointer?
    private var textCapacity = 0

    init(database: Database, sql: String) throws(DatabaseError) {
        var handle: OpaquePointer?
        var tail: UnsafePointer<CChar>?
        let code = sql.withCString { text in
            let code = sqlite3_prepare_v3(database.handle, text, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &handle, &tail)
            // A statement runs alone: trailing SQL (a second statement smuggled in) is refused.
            if code == SQLITE_OK, let tail, !String(cString: tail).allSatisfy(\.isWhitespace) {
                sqlite3_finalize(handle)
                handle = nil
                return SQLITE_MISUSE
            }
            return code
        }
        guard code == SQLITE_OK, let handle else {
            if code == SQLITE_MISUSE {
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: "the SQL holds more than one statement", path: database.path, sql: sql)
            }
            throw database.error(code: code, sql: sql)
        }
        self.database = database
        self.sql = sql
        self.handle = handle
    }

    deinit {
        sqlite3_finalize(handle)
        textBytes?.deallocate()
    }

    /// The names of the result columns.
    package var columnNames: [String] {
        (0..<sqlite3_column_count(handle)).map { String(cString: sqlite3_column_name(handle, $0)) }
    }

    /// Whether the statement leaves the database as it is (`sqlite3_stmt_readonly`): a
    /// `SELECT`, or a `PRAGMA` or `EXPLAIN` that only reads. `BEGIN` and `COMMIT` count as
    /// reading, since they change no data themselves.
    package var isReadOnly: Bool { sqlite3_stmt_readonly(handle) != 0 }

    // MARK: - Running

    /// Resets the statement and binds `arguments` to its `?` parameters, in order.
    func bind(_ arguments: [DatabaseValue]) throws(DatabaseError) {
        // Every parameter is bound below (the count is checked): nothing is left to clear.
        sqlite3_reset(handle)
        boundArguments = arguments
        let expected = Int(sqlite3_bind_parameter_count(handle))
        guard arguments.count == expected else {
            throw DatabaseError(
                resultCode: DatabaseError.SQLITE_RANGE, message: "the statement takes \(expected) arguments, \(arguments.count) given",
                path: database.path, sql: sql, arguments: arguments)
        }
        // Every parameter is rebound below, so no binding still points into the old bytes.
        let textCount = arguments.reduce(0) { count, value in if case .text(let text) = value { count + text.utf8.count } else { count } }
        if textCount > textCapacity {
            textBytes?.deallocate()
            textCapacity = max(textCount, 2 * textCapacity, 256)
            textBytes = .allocate(byteCount: textCapacity, alignment: 1)
        }
        var textEnd = 0
        for (offset, value) in arguments.enumerated() {
            let index = Int32(offset + 1)
            let code: Int32
            switch value {
            case .null: code = sqlite3_bind_null(handle, index)
            case .integer(let integer): code = sqlite3_bind_int64(handle, index, integer)
            case .real(let real): code = sqlite3_bind_double(handle, index, real)
            case .text(let text):
                // By byte count, so that text holding U+0000 is kept whole.
                guard let textBytes, !text.isEmpty else {
                    code = sqlite3_bind_text(handle, index, "", 0, sqliteTransient)
                    break
                }
                let start = textBytes + textEnd
                var text = text
                let count = text.withUTF8 { bytes in
                    start.copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
                    return bytes.count
                }
                textEnd += count
                code = sqlite3_bind_text64(handle, index, start.assumingMemoryBound(to: CChar.self), UInt64(count), nil, UInt8(SQLITE_UTF8))
            case .blob(let data):
                code = data.withUnsafeBytes { bytes in
                    sqlite3_bind_blob64(handle, index, bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1), UInt64(bytes.count), sqliteTransient)
                }
            }
            guard code == SQLITE_OK else { throw failure(code) }
        }
    }

    /// Advances to the next row; `false` when the statement is done.
    package func step() throws(DatabaseError) -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let code:
            let error = failure(code)
            sqlite3_reset(handle)
            throw error
        }
    }

    /// The value of column `index` (0-based) of the current row.
    package func value(at index: Int32) -> DatabaseValue {
        DatabaseValue(sqliteValue: column(index))
    }

    /// The value of column `index` of the current row as an integer: ``DatabaseValue/int64Value``
    /// of ``value(at:)``, without making the value when the column holds an integer.
    func int64(at index: Int32) -> Int64? {
        let cell = column(index)
        return sqlite3_value_type(cell) == SQLITE_INTEGER ? sqlite3_value_int64(cell) : DatabaseValue(sqliteValue: cell).int64Value
    }

    /// Column `index` of the current row as SQLite's value object, valid until the statement
    /// steps or resets. Read with the `sqlite3_value_*` functions, a column costs one call
    /// through SQLite's statement API, where each `sqlite3_column_*` call locks the
    /// connection and checks for a failed allocation again (a fetch asked for the type, then
    /// the value, then the length of each cell).
    ///
    /// SQLite calls such a value "unprotected" and asks for a "protected" one in the
    /// `sqlite3_value_*` functions. The two differ only in whether the connection's mutex is
    /// held, and SQLite documents them as interchangeable in its multi-thread and
    /// single-thread modes, named there as process-wide settings. A ``Database`` opens its
    /// connection with `SQLITE_OPEN_NOMUTEX`, which SQLite describes as putting that
    /// connection in multi-thread mode: it has no mutex to hold. That the same holds for one
    /// connection is inferred from that description, not stated by SQLite.
    func column(_ index: Int32) -> OpaquePointer? {
        sqlite3_column_value(handle, index)
    }

    /// The current row's values, one per column.
    var currentRow: [DatabaseValue] {
        (0..<sqlite3_column_count(handle)).map(value(at:))
    }

    /// Runs the statement with `arguments`, ignoring any rows.
    package func execute(_ arguments: [DatabaseValue] = []) throws(DatabaseError) {
        try bind(arguments)
        while try step() {}
    }

    /// Runs the statement with the arguments `fill` appends, ignoring any rows. They go into
    /// an array the statement keeps from one run to the next, emptied first: a write repeated
    /// for each of many rows makes no array of its own for each.
    ///
    /// - Throws: what `fill` throws, before the statement runs; ``DatabaseError`` when SQLite
    ///   fails.
    func execute(appending fill: (inout [DatabaseValue]) throws -> Void) throws {
        // Taken from `boundArguments`, so that this array is the only one holding them and
        // emptying it keeps its memory.
        var arguments = boundArguments
        boundArguments = []
        arguments.removeAll(keepingCapacity: true)
        try fill(&arguments)
        try execute(arguments)
    }

    /// Runs the statement with `arguments` and returns every row.
    package func rows(_ arguments: [DatabaseValue] = []) throws(DatabaseError) -> [[DatabaseValue]] {
        try bind(arguments)
        var rows: [[DatabaseValue]] = []
        while try step() { rows.append(currentRow) }
        return rows
    }

    /// Runs the statement with `arguments` and calls `body` with each row's statement, so that
    /// the caller reads only the columns it needs; stops early when `body` returns `false`.
    package func forEachRow(_ arguments: [DatabaseValue] = [], _ body: (Statement) throws -> Bool) throws {
        try bind(arguments)
        defer { sqlite3_reset(handle) }
        while try step() {
            guard try body(self) else { return }
        }
    }

    private func failure(_ code: Int32) -> DatabaseError {
        database.error(code: code, sql: sql, arguments: boundArguments)
    }
}

/// SQLite's `SQLITE_TRANSIENT`: copy the bound bytes before the call returns.
let sqliteTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

extension String {
    /// The text of an `sqlite3_value` whose storage class is text: its bytes by the count
    /// SQLite gives (so that U+0000 is kept), invalid UTF-8 repaired as
    /// `String(decoding:as:)` repairs it. The bytes are written straight into the string: up
    /// to 15 bytes of ASCII (short names, codes, cities) are checked a word at a time, not a byte.
    init(sqliteText value: OpaquePointer?) {
        // The text first, then its length: asking for the text may convert the value, and
        // the length is the converted one's.
        guard let text = sqlite3_value_text(value) else {
            self = ""
            return
        }
        let count = Int(sqlite3_value_bytes(value))
        guard count > 0 else {
            self = ""
            return
        }
        self.init(unsafeUninitializedCapacity: count) { buffer in
            buffer.baseAddress!.initialize(from: text, count: count)
            return count
        }
    }
}
