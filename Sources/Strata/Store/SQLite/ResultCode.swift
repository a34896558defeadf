import CSQLite

/// A SQLite result code: one of the primary codes (`SQLITE_BUSY`, `SQLITE_CONSTRAINT`, …) or an
/// extended code that refines one (`SQLITE_CONSTRAINT_UNIQUE` refines `SQLITE_CONSTRAINT`).
///
/// The codes are named as SQLite's documentation names them, as statics of ``DatabaseError``,
/// and an error is matched against one in a `catch` or `case`:
///
/// ```swift
/// do {
///     try database.execute("INSERT INTO ZTAG (Z_PK, ZNAME) VALUES (1, 'fantasy')")
/// } catch DatabaseError.SQLITE_CONSTRAINT_UNIQUE {
///     // the name is taken
/// } catch DatabaseError.SQLITE_BUSY {
///     // another connection holds the lock (any of SQLITE_BUSY's extended codes)
/// }
/// ```
///
/// A primary code matches every extended code that refines it; an extended code matches only
/// itself. See <https://www.sqlite.org/rescode.html>.
public struct ResultCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The code as SQLite returns it.
    public let rawValue: Int32

    public init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// The primary code this one refines (itself for a primary code): its low 8 bits.
    public var primaryResultCode: ResultCode { ResultCode(rawValue: rawValue & 0xFF) }

    /// Whether this is an extended code rather than a primary one.
    public var isExtended: Bool { rawValue > 0xFF }

    /// The number and SQLite's wording for it (`sqlite3_errstr`): `19 (constraint failed)`.
    public var description: String { "\(rawValue) (\(String(cString: sqlite3_errstr(rawValue))))" }

    /// Whether `code` is this code or, for a primary code, one that refines it.
    public func matches(_ code: ResultCode) -> Bool {
        isExtended ? code == self : code.primaryResultCode == self
    }

    /// Matches a ``DatabaseError``, or a ``StoreError/database(_:)`` wrapping one, by its
    /// extended result code, in a `catch` or `case` pattern.
    public static func ~= (pattern: ResultCode, error: any Error) -> Bool {
        switch error {
        case let error as DatabaseError: pattern.matches(error.extendedResultCode)
        case StoreError.database(let error): pattern.matches(error.extendedResultCode)
        default: false
        }
    }
}

// The values are SQLite's own (sqlite3.h), which the C macros of the extended codes spell as
// expressions that Swift does not import; what each means: <https://www.sqlite.org/rescode.html>.
extension DatabaseError {
    // MARK: Primary result codes

    /// Success.
    public static let SQLITE_OK = ResultCode(rawValue: 0)
    /// A generic error where no more specific code applies: bad SQL, a missing table or column.
    public static let SQLITE_ERROR = ResultCode(rawValue: 1)
    /// A fault inside SQLite itself.
    public static let SQLITE_INTERNAL = ResultCode(rawValue: 2)
    /// The access mode asked for a new database file cannot be had.
    public static let SQLITE_PERM = ResultCode(rawValue: 3)
    /// An operation was abandoned before it finished, as by a rollback while it ran.
    public static let SQLITE_ABORT = ResultCode(rawValue: 4)
    /// Another connection (another process, say) holds a lock on the database file.
    public static let SQLITE_BUSY = ResultCode(rawValue: 5)
    /// A conflict within one connection, or between connections of one shared cache.
    public static let SQLITE_LOCKED = ResultCode(rawValue: 6)
    /// Memory could not be allocated.
    public static let SQLITE_NOMEM = ResultCode(rawValue: 7)
    /// A write to a database this connection cannot write.
    public static let SQLITE_READONLY = ResultCode(rawValue: 8)
    /// The operation was interrupted (`sqlite3_interrupt`).
    public static let SQLITE_INTERRUPT = ResultCode(rawValue: 9)
    /// The operating system reported an I/O error; the extended codes say which operation failed.
    public static let SQLITE_IOERR = ResultCode(rawValue: 10)
    /// The database file is damaged.
    public static let SQLITE_CORRUPT = ResultCode(rawValue: 11)
    /// A file-control opcode or system call SQLite looked for does not exist.
    public static let SQLITE_NOTFOUND = ResultCode(rawValue: 12)
    /// A write failed: the disk is full (or the file reached its size limit).
    public static let SQLITE_FULL = ResultCode(rawValue: 13)
    /// The database file (or its journal) could not be opened.
    public static let SQLITE_CANTOPEN = ResultCode(rawValue: 14)
    /// The file-locking protocol failed (WAL), usually a race SQLite gave up retrying.
    public static let SQLITE_PROTOCOL = ResultCode(rawValue: 15)
    /// Not used by SQLite today.
    public static let SQLITE_EMPTY = ResultCode(rawValue: 16)
    /// The schema changed under a prepared statement.
    public static let SQLITE_SCHEMA = ResultCode(rawValue: 17)
    /// A string, blob or row is larger than SQLite's limit.
    public static let SQLITE_TOOBIG = ResultCode(rawValue: 18)
    /// A constraint failed; the extended codes say which kind.
    public static let SQLITE_CONSTRAINT = ResultCode(rawValue: 19)
    /// A value of the wrong type, such as a non-integer for an `INTEGER PRIMARY KEY`.
    public static let SQLITE_MISMATCH = ResultCode(rawValue: 20)
    /// The library was called in a way it does not support.
    public static let SQLITE_MISUSE = ResultCode(rawValue: 21)
    /// The system does not support files this large.
    public static let SQLITE_NOLFS = ResultCode(rawValue: 22)
    /// The authorizer refused the SQL.
    public static let SQLITE_AUTH = ResultCode(rawValue: 23)
    /// Not used by SQLite today.
    public static let SQLITE_FORMAT = ResultCode(rawValue: 24)
    /// A parameter number out of range when binding a statement's arguments.
    public static let SQLITE_RANGE = ResultCode(rawValue: 25)
    /// The file is not an SQLite database.
    public static let SQLITE_NOTADB = ResultCode(rawValue: 26)
    /// A notice written to SQLite's log, never returned by a call.
    public static let SQLITE_NOTICE = ResultCode(rawValue: 27)
    /// A warning written to SQLite's log, never returned by a call.
    public static let SQLITE_WARNING = ResultCode(rawValue: 28)
    /// A statement's step produced a row.
    public static let SQLITE_ROW = ResultCode(rawValue: 100)

    // MARK: Extended result codes

    /// `SQLITE_ERROR`: the SQL names a collating sequence that is not defined.
    public static let SQLITE_ERROR_MISSING_COLLSEQ = ResultCode(rawValue: 1 | (1 << 8))
    /// `SQLITE_ERROR`: used inside SQLite to prepare a statement again.
    public static let SQLITE_ERROR_RETRY = ResultCode(rawValue: 1 | (2 << 8))
    /// `SQLITE_ERROR`: a historical snapshot could not be opened.
    public static let SQLITE_ERROR_SNAPSHOT = ResultCode(rawValue: 1 | (3 << 8))
    /// `SQLITE_IOERR` while reading the file.
    public static let SQLITE_IOERR_READ = ResultCode(rawValue: 10 | (1 << 8))
    /// `SQLITE_IOERR`: a read returned fewer bytes than asked for.
    public static let SQLITE_IOERR_SHORT_READ = ResultCode(rawValue: 10 | (2 << 8))
    /// `SQLITE_IOERR` while writing the file.
    public static let SQLITE_IOERR_WRITE = ResultCode(rawValue: 10 | (3 << 8))
    /// `SQLITE_IOERR` while flushing the file to disk.
    public static let SQLITE_IOERR_FSYNC = ResultCode(rawValue: 10 | (4 << 8))
    /// `SQLITE_IOERR` while flushing a folder to disk.
    public static let SQLITE_IOERR_DIR_FSYNC = ResultCode(rawValue: 10 | (5 << 8))
    /// `SQLITE_IOERR` while truncating the file.
    public static let SQLITE_IOERR_TRUNCATE = ResultCode(rawValue: 10 | (6 << 8))
    /// `SQLITE_IOERR` while reading the file's status.
    public static let SQLITE_IOERR_FSTAT = ResultCode(rawValue: 10 | (7 << 8))
    /// `SQLITE_IOERR` while releasing a lock.
    public static let SQLITE_IOERR_UNLOCK = ResultCode(rawValue: 10 | (8 << 8))
    /// `SQLITE_IOERR` while taking a read lock.
    public static let SQLITE_IOERR_RDLOCK = ResultCode(rawValue: 10 | (9 << 8))
    /// `SQLITE_IOERR` while deleting a file (a journal, say).
    public static let SQLITE_IOERR_DELETE = ResultCode(rawValue: 10 | (10 << 8))
    /// `SQLITE_IOERR`: no longer used.
    public static let SQLITE_IOERR_BLOCKED = ResultCode(rawValue: 10 | (11 << 8))
    /// `SQLITE_IOERR`: memory ran out in the I/O layer.
    public static let SQLITE_IOERR_NOMEM = ResultCode(rawValue: 10 | (12 << 8))
    /// `SQLITE_IOERR` while checking whether a file exists or can be written.
    public static let SQLITE_IOERR_ACCESS = ResultCode(rawValue: 10 | (13 << 8))
    /// `SQLITE_IOERR` while checking for another connection's reserved lock.
    public static let SQLITE_IOERR_CHECKRESERVEDLOCK = ResultCode(rawValue: 10 | (14 << 8))
    /// `SQLITE_IOERR` in the file-locking logic.
    public static let SQLITE_IOERR_LOCK = ResultCode(rawValue: 10 | (15 << 8))
    /// `SQLITE_IOERR` while closing the file.
    public static let SQLITE_IOERR_CLOSE = ResultCode(rawValue: 10 | (16 << 8))
    /// `SQLITE_IOERR`: no longer used.
    public static let SQLITE_IOERR_DIR_CLOSE = ResultCode(rawValue: 10 | (17 << 8))
    /// `SQLITE_IOERR` while opening the WAL's shared-memory file (`-shm`).
    public static let SQLITE_IOERR_SHMOPEN = ResultCode(rawValue: 10 | (18 << 8))
    /// `SQLITE_IOERR` while growing the WAL's shared-memory file.
    public static let SQLITE_IOERR_SHMSIZE = ResultCode(rawValue: 10 | (19 << 8))
    /// `SQLITE_IOERR`: no longer used.
    public static let SQLITE_IOERR_SHMLOCK = ResultCode(rawValue: 10 | (20 << 8))
    /// `SQLITE_IOERR` while mapping the WAL's shared-memory file into memory.
    public static let SQLITE_IOERR_SHMMAP = ResultCode(rawValue: 10 | (21 << 8))
    /// `SQLITE_IOERR` while moving to a position in the file.
    public static let SQLITE_IOERR_SEEK = ResultCode(rawValue: 10 | (22 << 8))
    /// `SQLITE_IOERR`: a file to delete was not there.
    public static let SQLITE_IOERR_DELETE_NOENT = ResultCode(rawValue: 10 | (23 << 8))
    /// `SQLITE_IOERR` while memory-mapping the database file.
    public static let SQLITE_IOERR_MMAP = ResultCode(rawValue: 10 | (24 << 8))
    /// `SQLITE_IOERR`: no folder could be found for temporary files.
    public static let SQLITE_IOERR_GETTEMPPATH = ResultCode(rawValue: 10 | (25 << 8))
    /// `SQLITE_IOERR`: a path could not be converted (Cygwin only).
    public static let SQLITE_IOERR_CONVPATH = ResultCode(rawValue: 10 | (26 << 8))
    /// `SQLITE_IOERR` reported by a file-system extension.
    public static let SQLITE_IOERR_VNODE = ResultCode(rawValue: 10 | (27 << 8))
    /// `SQLITE_IOERR`: a file-system extension refused access.
    public static let SQLITE_IOERR_AUTH = ResultCode(rawValue: 10 | (28 << 8))
    /// `SQLITE_IOERR` while starting an atomic write.
    public static let SQLITE_IOERR_BEGIN_ATOMIC = ResultCode(rawValue: 10 | (29 << 8))
    /// `SQLITE_IOERR` while committing an atomic write.
    public static let SQLITE_IOERR_COMMIT_ATOMIC = ResultCode(rawValue: 10 | (30 << 8))
    /// `SQLITE_IOERR` while rolling back an atomic write.
    public static let SQLITE_IOERR_ROLLBACK_ATOMIC = ResultCode(rawValue: 10 | (31 << 8))
    /// `SQLITE_IOERR`: a page's checksum does not match (checksum extension).
    public static let SQLITE_IOERR_DATA = ResultCode(rawValue: 10 | (32 << 8))
    /// `SQLITE_IOERR`: the file system reported damage.
    public static let SQLITE_IOERR_CORRUPTFS = ResultCode(rawValue: 10 | (33 << 8))
    /// `SQLITE_LOCKED`: another connection of the same shared cache holds the table.
    public static let SQLITE_LOCKED_SHAREDCACHE = ResultCode(rawValue: 6 | (1 << 8))
    /// `SQLITE_LOCKED` reported by a virtual table.
    public static let SQLITE_LOCKED_VTAB = ResultCode(rawValue: 6 | (2 << 8))
    /// `SQLITE_BUSY`: another connection is recovering the WAL.
    public static let SQLITE_BUSY_RECOVERY = ResultCode(rawValue: 5 | (1 << 8))
    /// `SQLITE_BUSY`: a read transaction cannot become a write transaction, since another
    /// connection wrote after it began.
    public static let SQLITE_BUSY_SNAPSHOT = ResultCode(rawValue: 5 | (2 << 8))
    /// `SQLITE_BUSY`: a blocking lock wait timed out.
    public static let SQLITE_BUSY_TIMEOUT = ResultCode(rawValue: 5 | (3 << 8))
    /// `SQLITE_CANTOPEN`: no longer used.
    public static let SQLITE_CANTOPEN_NOTEMPDIR = ResultCode(rawValue: 14 | (1 << 8))
    /// `SQLITE_CANTOPEN`: the path names a folder.
    public static let SQLITE_CANTOPEN_ISDIR = ResultCode(rawValue: 14 | (2 << 8))
    /// `SQLITE_CANTOPEN`: the file's full path could not be formed.
    public static let SQLITE_CANTOPEN_FULLPATH = ResultCode(rawValue: 14 | (3 << 8))
    /// `SQLITE_CANTOPEN`: a path could not be converted (Cygwin only).
    public static let SQLITE_CANTOPEN_CONVPATH = ResultCode(rawValue: 14 | (4 << 8))
    /// `SQLITE_CANTOPEN`: not used by SQLite today.
    public static let SQLITE_CANTOPEN_DIRTYWAL = ResultCode(rawValue: 14 | (5 << 8))
    /// `SQLITE_CANTOPEN`: the path is a symbolic link, which the connection refuses.
    public static let SQLITE_CANTOPEN_SYMLINK = ResultCode(rawValue: 14 | (6 << 8))
    /// `SQLITE_CORRUPT`: a virtual table's content is damaged.
    public static let SQLITE_CORRUPT_VTAB = ResultCode(rawValue: 11 | (1 << 8))
    /// `SQLITE_CORRUPT`: the `sqlite_sequence` table is damaged.
    public static let SQLITE_CORRUPT_SEQUENCE = ResultCode(rawValue: 11 | (2 << 8))
    /// `SQLITE_CORRUPT`: an index does not match its table.
    public static let SQLITE_CORRUPT_INDEX = ResultCode(rawValue: 11 | (3 << 8))
    /// `SQLITE_READONLY`: the WAL needs recovering, which this connection cannot write.
    public static let SQLITE_READONLY_RECOVERY = ResultCode(rawValue: 8 | (1 << 8))
    /// `SQLITE_READONLY`: no shared-memory lock on a WAL database opened read-only.
    public static let SQLITE_READONLY_CANTLOCK = ResultCode(rawValue: 8 | (2 << 8))
    /// `SQLITE_READONLY`: a journal left by a crash must be rolled back, which this connection cannot write.
    public static let SQLITE_READONLY_ROLLBACK = ResultCode(rawValue: 8 | (3 << 8))
    /// `SQLITE_READONLY`: the database file was moved or deleted while open.
    public static let SQLITE_READONLY_DBMOVED = ResultCode(rawValue: 8 | (4 << 8))
    /// `SQLITE_READONLY`: the WAL's shared memory could not be set up on a read-only database.
    public static let SQLITE_READONLY_CANTINIT = ResultCode(rawValue: 8 | (5 << 8))
    /// `SQLITE_READONLY`: the database's folder cannot be written, so no journal can be made.
    public static let SQLITE_READONLY_DIRECTORY = ResultCode(rawValue: 8 | (6 << 8))
    /// `SQLITE_ABORT`: a statement stopped because its transaction was rolled back.
    public static let SQLITE_ABORT_ROLLBACK = ResultCode(rawValue: 4 | (2 << 8))
    /// `SQLITE_CONSTRAINT`: a `CHECK` constraint failed.
    public static let SQLITE_CONSTRAINT_CHECK = ResultCode(rawValue: 19 | (1 << 8))
    /// `SQLITE_CONSTRAINT`: a commit hook refused the commit.
    public static let SQLITE_CONSTRAINT_COMMITHOOK = ResultCode(rawValue: 19 | (2 << 8))
    /// `SQLITE_CONSTRAINT`: a foreign key constraint failed.
    public static let SQLITE_CONSTRAINT_FOREIGNKEY = ResultCode(rawValue: 19 | (3 << 8))
    /// `SQLITE_CONSTRAINT` raised by an extension's function.
    public static let SQLITE_CONSTRAINT_FUNCTION = ResultCode(rawValue: 19 | (4 << 8))
    /// `SQLITE_CONSTRAINT`: a `NOT NULL` constraint failed.
    public static let SQLITE_CONSTRAINT_NOTNULL = ResultCode(rawValue: 19 | (5 << 8))
    /// `SQLITE_CONSTRAINT`: a `PRIMARY KEY` constraint failed.
    public static let SQLITE_CONSTRAINT_PRIMARYKEY = ResultCode(rawValue: 19 | (6 << 8))
    /// `SQLITE_CONSTRAINT`: a trigger's `RAISE` failed the statement.
    public static let SQLITE_CONSTRAINT_TRIGGER = ResultCode(rawValue: 19 | (7 << 8))
    /// `SQLITE_CONSTRAINT`: a `UNIQUE` constraint or unique index failed.
    public static let SQLITE_CONSTRAINT_UNIQUE = ResultCode(rawValue: 19 | (8 << 8))
    /// `SQLITE_CONSTRAINT` reported by a virtual table.
    public static let SQLITE_CONSTRAINT_VTAB = ResultCode(rawValue: 19 | (9 << 8))
    /// `SQLITE_CONSTRAINT`: a rowid is not unique.
    public static let SQLITE_CONSTRAINT_ROWID = ResultCode(rawValue: 19 | (10 << 8))
    /// `SQLITE_CONSTRAINT`: a trigger deleted the row an `UPDATE` was changing.
    public static let SQLITE_CONSTRAINT_PINNED = ResultCode(rawValue: 19 | (11 << 8))
    /// `SQLITE_CONSTRAINT`: a value does not fit its column's type in a `STRICT` table.
    public static let SQLITE_CONSTRAINT_DATATYPE = ResultCode(rawValue: 19 | (12 << 8))
    /// `SQLITE_NOTICE` in SQLite's log: a WAL was recovered.
    public static let SQLITE_NOTICE_RECOVER_WAL = ResultCode(rawValue: 27 | (1 << 8))
    /// `SQLITE_NOTICE` in SQLite's log: a journal left by a crash was rolled back.
    public static let SQLITE_NOTICE_RECOVER_ROLLBACK = ResultCode(rawValue: 27 | (2 << 8))
    /// `SQLITE_WARNING` in SQLite's log: a query made a temporary index.
    public static let SQLITE_WARNING_AUTOINDEX = ResultCode(rawValue: 28 | (1 << 8))
    /// `SQLITE_AUTH`: user authentication (an extension) refused the connection.
    public static let SQLITE_AUTH_USER = ResultCode(rawValue: 23 | (1 << 8))
    /// `SQLITE_OK`: an extension asks to stay loaded.
    public static let SQLITE_OK_LOAD_PERMANENTLY = ResultCode(rawValue: 0 | (1 << 8))
    /// `SQLITE_OK` inside the file layer: a path was resolved through a symbolic link.
    public static let SQLITE_OK_SYMLINK = ResultCode(rawValue: 0 | (2 << 8))
}
