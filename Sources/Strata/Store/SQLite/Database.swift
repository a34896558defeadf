import CSQLite
import Foundation

/// A connection to one SQLite database file, with a statement cache, `BEGIN IMMEDIATE`
/// transactions, nested savepoints and Core Data's SQL functions registered.
///
/// ```swift
/// let database = try Database(path: "Library.sqlite")
/// try database.inTransaction {
///     try database.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = Z_MAX + 1 WHERE Z_ENT = ?", [.integer(2)])
/// }
/// ```
///
/// A connection is used by one thread at a time; the layers above give each context its own
/// queue. Errors are ``DatabaseError``s carrying the SQL and its arguments.
public final class Database {
    /// How a connection opens its file.
    public struct Configuration: Sendable {
        /// Open without the right to write; the file must exist.
        package var isReadOnly = false
        /// Create the file when it does not exist (ignored when read-only).
        package var createsFile = true
        /// The journal mode a new file gets; `nil` leaves SQLite's default.
        package var journalMode: JournalMode? = .wal
        /// Whether an existing file is switched to ``journalMode`` too. Off by default: a
        /// switch rewrites the file's header, and opening a store must not change it unasked.
        var convertsExistingJournalMode = false
        /// Read the file as one that nothing writes to (SQLite's `immutable`): no locks, no
        /// `-wal` or `-shm` files made beside it. Only for a read-only look at a file whose
        /// writers are gone.
        package var isImmutable = false
        /// Open a new, private database in memory instead of a file: `path` then only names it
        /// in messages. This is the only way to get one: every path, `:memory:` and `file:…`
        /// included, names a file exactly as written.
        var isInMemory = false
        /// The `PRAGMA synchronous` level set on every writable connection (read-only ones leave
        /// it alone). With WAL, `.normal` never damages the file but may lose the last commits
        /// on power loss.
        public var synchronous: Synchronous = .normal
        /// How long to wait for another connection's lock before failing with `SQLITE_BUSY`.
        package var busyTimeout: Duration = .seconds(5)
        /// Whether a store opened or created with this configuration records persistent
        /// history, making Core Data's history tables when it has none (Core Data's
        /// `NSPersistentHistoryTrackingKey`). A store that has the tables records history
        /// whatever this says; a read-only one never does. The connection itself ignores it.
        public var tracksPersistentHistory = false

        /// The default configuration: read-write, creating the file when missing, WAL for a new
        /// file, `synchronous=NORMAL` and a 5-second busy timeout.
        public init() {}

        /// A read-only configuration that changes nothing in the file.
        public static var readOnly: Configuration {
            var configuration = Configuration()
            configuration.isReadOnly = true
            configuration.createsFile = false
            configuration.journalMode = nil
            return configuration
        }
    }

    /// SQLite's journal modes (`PRAGMA journal_mode`).
    public enum JournalMode: String, Sendable, CaseIterable {
        /// The modes by their `PRAGMA journal_mode` names; Core Data's default, and Strata's, is `wal`.
        case delete, truncate, persist, memory, wal, off
    }

    /// SQLite's `PRAGMA synchronous` levels.
    public enum Synchronous: String, Sendable, CaseIterable {
        /// The levels by their `PRAGMA synchronous` names, from `off` (no syncing, fastest) to
        /// `extra` (syncs the most, safest).
        case off, normal, full, extra
    }

    /// The database file's path exactly as given to ``init(path:configuration:)`` (relative
    /// paths stay relative); errors from this connection name the file by it.
    public let path: String
    /// The configuration the connection was opened with, including any adjustment its opener
    /// made (``PersistentStore`` opens a file it may not write read-only, say).
    public let configuration: Configuration
    let handle: OpaquePointer
    private var statementCache: [String: Statement] = [:]
    /// The statements asked for last, newest first: a save or an import asks for the same few
    /// once per row, and comparing the SQL of a few costs less than hashing it.
    private var recentStatements: [(sql: String, statement: Statement)] = []
    private var savepointDepth = 0
    /// What the connection's SQL functions threw, for the next error to carry as its cause.
    let functionFailures = FunctionFailures()
    /// What derived-attribute triggers reported, while a save records it.
    let derivedValueReports = DerivedValueReports()
    /// The files beside the database that the transaction under way wrote or let go.
    let transactionFiles = TransactionFiles()
    /// Whether ``inTransaction(_:)`` nests as a savepoint: only inside ``inOuterTransaction(_:)``.
    private var nestsTransactions = false
    /// What ``stopStatements(every:when:)`` installed, kept alive while SQLite may call it.
    var statementStop: StatementStop?
    /// Runs just before every commit (of ``inTransaction(_:)``, or of ``inSavepoint(_:)`` outside
    /// a transaction), inside the transaction: what it writes commits with the rest, and what it
    /// throws rolls the whole transaction back. ``PersistentStore`` writes its persistent
    /// history here.
    var willCommit: (() throws -> Void)?
    /// Whether ``close()`` ran: the connection is gone and every use fails.
    private(set) var isClosed = false
    /// Whether the file's `-wal` held frames when the connection opened: frames that someone
    /// else wrote, which the connection leaves where they are unless it writes itself.
    private let foundWriteAheadFrames: Bool

    /// Opens (or creates) the database at `path`.
    public init(path: String, configuration: Configuration = Configuration()) throws(DatabaseError) {
        var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI
        if configuration.isReadOnly {
            flags |= SQLITE_OPEN_READONLY
        } else {
            flags |= SQLITE_OPEN_READWRITE | (configuration.createsFile ? SQLITE_OPEN_CREATE : 0)
        }
        let isNewFile = configuration.isInMemory || (fileSize(atPath: path) ?? 0) == 0
        // SQLite keeps the -wal beside the file the links at `path` lead to. More than its
        // 32-byte header means frames.
        let walPath = (SymbolicLinks.finalPath(of: path) ?? path) + "-wal"
        foundWriteAheadFrames = !configuration.isInMemory && !configuration.isReadOnly && (fileSize(atPath: walPath) ?? 0) > 32
        var handle: OpaquePointer?
        precondition(!configuration.isImmutable || configuration.isReadOnly, "an immutable connection must be read-only")
        // SQLite reads `:memory:` and (with URI filenames, which `immutable` needs) `file:…` as
        // instructions, not names: a path always goes to it as a URI that names only the file.
        let location = configuration.isInMemory
            ? ":memory:" : Self.fileURI(for: path, query: configuration.isImmutable ? "immutable=1" : nil)
        let code = sqlite3_open_v2(location, &handle, flags, nil)
        guard code == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
            sqlite3_close_v2(handle)
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, path: path)
        }
        self.path = path
        self.configuration = configuration
        self.handle = handle
        assert(sqlite3_db_mutex(handle) == nil, "a connection without a mutex: its rows' cells are read as SQLite's unprotected values (Statement.column(_:))")
        sqlite3_extended_result_codes(handle, 1)
        sqlite3_busy_timeout(handle, Int32(clamping: configuration.busyTimeout.components.seconds * 1000
            + configuration.busyTimeout.components.attoseconds / 1_000_000_000_000_000))
        do {
            try registerCoreDataFunctions()
            try registerStrataAggregates()
            if !configuration.isReadOnly {
                if let mode = configuration.journalMode, isNewFile || configuration.convertsExistingJournalMode {
                    try execute("PRAGMA journal_mode = \(mode.rawValue)")
                }
                try execute("PRAGMA synchronous = \(configuration.synchronous.rawValue)")
            }
        } catch {
            statementCache = [:]
            recentStatements = []
            sqlite3_close_v2(handle)
            throw error
        }
    }

    deinit {
        close()
    }

    /// Closes the connection now (rather than when the value goes away): a closed connection
    /// fails every use, and SQLite checkpoints and removes its `-wal` if it was the last one.
    ///
    /// A connection that found frames in the `-wal` on opening and wrote nothing leaves them
    /// there: copying them into the file is a write, and a connection that only read has not
    /// checked that they are the file's (SQLite replays any valid `-wal` it finds; see
    /// ``PersistentStore``'s checks). The next writer checkpoints them.
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        statementCache = [:]
        recentStatements = []
        if foundWriteAheadFrames, sqlite3_total_changes64(handle) == 0 {
            strata_sqlite3_skip_checkpoint_on_close(handle)
        }
        sqlite3_close_v2(handle)
    }

    private func checkOpen(_ sql: String) throws(DatabaseError) {
        if isClosed { throw DatabaseError(resultCode: DatabaseError.SQLITE_MISUSE, message: "the connection is closed", path: path, sql: sql) }
    }

    /// `path` as an SQLite URI filename with `query` (`mode=ro`), for opening or attaching a
    /// file with parameters whatever characters its path holds: the URI names that file and
    /// nothing else.
    static func fileURI(for path: String, query: String?) -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        // Every byte but RFC 3986's unreserved characters and `/` percent-encoded, which SQLite
        // decodes back. Byte by byte: Foundation's `addingPercentEncoding` with a character set
        // went through `NSString`, a fifth of a millisecond of every command that opens a store.
        let hexDigits = Array("0123456789ABCDEF".utf8)
        var encoded: [UInt8] = []
        encoded.reserveCapacity(absolute.utf8.count)
        for byte in absolute.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "/"):
                encoded.append(byte)
            default:
                encoded += [UInt8(ascii: "%"), hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0x0F)]]
            }
        }
        // An empty authority (`file://` + `/path`), so that a path starting `//` stays a path.
        return "file://" + String(decoding: encoded, as: UTF8.self) + (query.map { "?\($0)" } ?? "")
    }

    // MARK: - Statements

    /// A new prepared statement for `sql`.
    func makeStatement(_ sql: String) throws(DatabaseError) -> Statement {
        try checkOpen(sql)
        return try Statement(database: self, sql: sql)
    }

    /// The cached prepared statement for `sql`, prepared on first use.
    func cachedStatement(_ sql: String) throws(DatabaseError) -> Statement {
        try checkOpen(sql)
        for recent in recentStatements where recent.sql == sql { return recent.statement }
        let statement: Statement
        if let cached = statementCache[sql] {
            statement = cached
        } else {
            // Fetches make SQL from their predicates; a bound keeps a long session's cache small.
            if statementCache.count >= 256 { statementCache.removeAll() }
            statement = try makeStatement(sql)
            statementCache[sql] = statement
        }
        if recentStatements.count >= 4 { recentStatements.removeLast() }
        recentStatements.insert((sql, statement), at: 0)
        return statement
    }

    /// Runs `sql`. Without arguments it may hold several statements separated by `;` (schema
    /// scripts), run as written; with arguments it must be one statement.
    public func execute(_ sql: String, _ arguments: [DatabaseValue] = []) throws(DatabaseError) {
        try checkOpen(sql)
        if arguments.isEmpty {
            var message: UnsafeMutablePointer<CChar>?
            let code = sqlite3_exec(handle, sql, nil, nil, &message)
            if code != SQLITE_OK {
                let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
                sqlite3_free(message)
                throw withFunctionFailure(DatabaseError(
                    resultCode: ResultCode(rawValue: code), extendedResultCode: ResultCode(rawValue: sqlite3_extended_errcode(handle)),
                    message: text, path: path, sql: sql,
                    systemErrorCode: sqlite3_system_errno(handle)))
            }
            return
        }
        try cachedStatement(sql).execute(arguments)
    }

    /// Every row `sql` returns with `arguments`.
    public func rows(_ sql: String, _ arguments: [DatabaseValue] = []) throws(DatabaseError) -> [[DatabaseValue]] {
        try cachedStatement(sql).rows(arguments)
    }

    /// The first column of the first row `sql` returns, or `nil` when it returns none.
    package func scalar(_ sql: String, _ arguments: [DatabaseValue] = []) throws(DatabaseError) -> DatabaseValue? {
        try rows(sql, arguments).first?.first
    }

    /// The rowid of the last row inserted on this connection.
    var lastInsertedRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// How many rows every INSERT, UPDATE and DELETE on this connection has changed since it
    /// opened: a value that moves whenever this connection writes.
    package var totalChangedRowCount: Int64 { sqlite3_total_changes64(handle) }

    /// How many rows the last INSERT, UPDATE or DELETE changed.
    var changedRowCount: Int { Int(sqlite3_changes64(handle)) }

    /// Whether a transaction is open on this connection.
    var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    // MARK: - Transactions

    /// Runs `body` in one transaction inside which ``inTransaction(_:)`` (so every context save
    /// on this connection) makes savepoints: a long import saves batch after batch and still
    /// commits or rolls back as one. After a rollback, contexts that saved inside hold objects
    /// the store does not: discard them.
    package func inOuterTransaction<T>(_ body: () throws -> T) throws -> T {
        let outer = nestsTransactions
        nestsTransactions = true
        defer { nestsTransactions = outer }
        return try inTransaction(body)
    }

    /// Runs `body` in a `BEGIN IMMEDIATE` transaction (the write lock taken at once, waiting up to
    /// the busy timeout), committing when it returns and rolling back when it throws. Called
    /// inside ``inOuterTransaction(_:)``, it runs `body` in a savepoint of it instead.
    package func inTransaction<T>(_ body: () throws -> T) throws -> T {
        // Inside ``inOuterTransaction(_:)`` (an import that saves batch after batch), the work
        // becomes a savepoint, which the outer rollback still undoes; any other nesting fails.
        if isInTransaction, nestsTransactions { return try inSavepoint(body) }
        // SQLite's own refusal comes later and says only "attempt to write a readonly database".
        if configuration.isReadOnly {
            throw DatabaseError(resultCode: DatabaseError.SQLITE_READONLY, message: "it is open read-only", path: path, sql: "BEGIN IMMEDIATE")
        }
        try execute("BEGIN IMMEDIATE")
        let result: T
        do {
            result = try body()
        } catch {
            try? execute("ROLLBACK")
            transactionDidRollBack()
            throw error
        }
        do {
            try willCommit?()
            try execute("COMMIT")
        } catch {
            try? execute("ROLLBACK")
            transactionDidRollBack()
            throw error
        }
        transactionDidCommit()
        return result
    }

    /// Runs `body` in a savepoint, which nests inside transactions and other savepoints:
    /// released when `body` returns, rolled back (leaving the outer transaction open) when it throws.
    func inSavepoint<T>(_ body: () throws -> T) throws -> T {
        savepointDepth += 1
        let name = "strata_\(savepointDepth)"
        defer { savepointDepth -= 1 }
        // Outside a transaction, the savepoint is one, and releasing it commits.
        let isOutermost = !isInTransaction
        try execute("SAVEPOINT \(name)")
        let marks = transactionFileMarks
        do {
            let result = try body()
            // Releasing the outermost savepoint commits: what runs before a commit runs here too.
            if isOutermost { try willCommit?() }
            try execute("RELEASE \(name)")
            if isOutermost { transactionDidCommit() }
            return result
        } catch {
            try? execute("ROLLBACK TO \(name)")
            try? execute("RELEASE \(name)")
            transactionDidRollBack(to: marks)
            throw error
        }
    }

    // MARK: - Errors

    func error(code: Int32, sql: String? = nil, arguments: [DatabaseValue] = []) -> DatabaseError {
        var error = DatabaseError(
            resultCode: ResultCode(rawValue: code), extendedResultCode: ResultCode(rawValue: sqlite3_extended_errcode(handle)),
            message: String(cString: sqlite3_errmsg(handle)), path: path, sql: sql, arguments: arguments,
            systemErrorCode: sqlite3_system_errno(handle))
        let offset = sqlite3_error_offset(handle)
        if sql != nil, offset >= 0 { error.offset = Int(offset) }
        return withFunctionFailure(error)
    }

    /// `error` with the failure of an SQL function that caused it as its cause: only when SQLite
    /// reports that failure, since a statement that failed otherwise has a message of its own.
    private func withFunctionFailure(_ error: DatabaseError) -> DatabaseError {
        guard let cause = functionFailures.latest else { return error }
        functionFailures.latest = nil
        var error = error
        if error.resultCode == DatabaseError.SQLITE_ERROR, error.message == String(describing: cause) { error.functionFailure = cause }
        return error
    }
}

// MARK: - Facts about the file

extension Database {
    /// `PRAGMA journal_mode` as the file has it.
    package func journalMode() throws(DatabaseError) -> String {
        try scalar("PRAGMA journal_mode")?.stringValue ?? "unknown"
    }

    /// `PRAGMA page_size`.
    package func pageSize() throws(DatabaseError) -> Int {
        Int(try scalar("PRAGMA page_size")?.int64Value ?? 0)
    }

    /// The names of the tables in the file, in `sqlite_master` order.
    package func tableNames() throws(DatabaseError) -> [String] {
        try rows("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY rowid")
            .compactMap { $0.first?.stringValue }
    }

    /// The columns of `table` with their declared types, in table order.
    public func columns(of table: String) throws(DatabaseError) -> [(name: String, type: String)] {
        try rows("SELECT name, type FROM pragma_table_info(?) ORDER BY cid", [.text(table)]).map {
            ($0[0].stringValue ?? "", $0[1].stringValue ?? "")
        }
    }
}
