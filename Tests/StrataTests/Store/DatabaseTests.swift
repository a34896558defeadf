import Foundation
import Testing
@testable import Strata
import StrataTestSupport

@Suite struct DatabaseTests {
    @Test func everyStorageClassRoundTrips() throws {
        let folder = try TemporaryFolder()
        let database = try Database(path: folder.path("values.sqlite"))
        try database.execute("CREATE TABLE T (V)")
        let values: [DatabaseValue] = [
            .null, .integer(Int64.min), .integer(Int64.max), .real(-0.5), .real(1e300), .text(""), .text("é 😀 \u{0}x"),
            .blob(Data()), .blob(Data([0, 1, 255])),
        ]
        for value in values { try database.execute("INSERT INTO T (V) VALUES (?)", [value]) }
        let read = try database.rows("SELECT V FROM T ORDER BY rowid").map { $0[0] }
        #expect(read == values.map { $0 == .blob(Data()) ? .blob(Data()) : $0 })
    }

    /// A statement reads its texts in place from bytes it keeps until the next binding: texts
    /// of every length, several per row, bound again and again, must each arrive whole, and a
    /// text bound for a query must hold while its rows are read.
    @Test func textsBoundAgainAndAgainArriveWhole() throws {
        let folder = try TemporaryFolder()
        let database = try Database(path: folder.path("texts.sqlite"))
        try database.execute("CREATE TABLE T (A, B, C)")
        var written: [[DatabaseValue]] = []
        for length in [0, 1, 15, 16, 300, 2, 5_000, 40] {
            let row: [DatabaseValue] = [
                .text(String(repeating: "a", count: length)), .integer(Int64(length)), .text("é\u{0}😀" + String(repeating: "z", count: length / 2)),
            ]
            try database.execute("INSERT INTO T (A, B, C) VALUES (?, ?, ?)", row)
            written.append(row)
        }
        #expect(try database.rows("SELECT A, B, C FROM T ORDER BY rowid") == written)
        var matched: [DatabaseValue] = []
        try database.cachedStatement("SELECT B FROM T WHERE A = ? OR C = ?").forEachRow([written[4][0], written[6][2]]) { row in
            matched.append(row.value(at: 0))
            return true
        }
        #expect(matched == [.integer(300), .integer(5_000)])
    }

    /// Saves and reads bind many row keys as one JSON list: SQLite must read back every key,
    /// the extremes and single digits included, in order.
    @Test func aKeyListReadsBackKeyForKeyInJSONEach() throws {
        let folder = try TemporaryFolder()
        let database = try Database(path: folder.path("keys.sqlite"))
        let lists: [[Int64]] = [[], [0], [7, -7, 10, -10, 99, 100, 101], [Int64.max, Int64.min, Int64.min + 1, 1_000_000_000_000]]
        for keys in lists {
            let read = try database.rows("SELECT value FROM json_each(?) ORDER BY key", [.keyList(keys)]).map { $0[0] }
            #expect(read == keys.map { .integer($0) })
        }
        #expect(DatabaseValue.keyList([3, -40, 500]) == .text("[3,-40,500]"))
    }

    @Test func newFilesUseWALWithNormalSyncAndStatementsAreCached() throws {
        let folder = try TemporaryFolder()
        let database = try Database(path: folder.path("wal.sqlite"))
        #expect(try database.journalMode() == "wal")
        #expect(try database.scalar("PRAGMA synchronous")?.int64Value == 1)
        #expect(try database.cachedStatement("SELECT 1") === database.cachedStatement("SELECT 1"))
        var configuration = Database.Configuration()
        configuration.journalMode = .delete
        configuration.synchronous = .full
        let other = try Database(path: folder.path("delete.sqlite"), configuration: configuration)
        #expect(try other.journalMode() == "delete")
        #expect(try other.scalar("PRAGMA synchronous")?.int64Value == 2)
    }

    @Test func errorsCarryCodeMessageSQLAndArguments() throws {
        let folder = try TemporaryFolder()
        let database = try Database(path: folder.path("errors.sqlite"))
        try database.execute("CREATE TABLE T (K TEXT UNIQUE)")
        try database.execute("INSERT INTO T (K) VALUES (?)", [.text("a")])
        #expect {
            try database.execute("INSERT INTO T (K) VALUES (?)", [.text("a")])
        } throws: { error in
            guard let error = error as? DatabaseError else { return false }
            return error.resultCode == DatabaseError.SQLITE_CONSTRAINT && error.extendedResultCode == DatabaseError.SQLITE_CONSTRAINT_UNIQUE
                && error.resultCode.rawValue == 19 && error.extendedResultCode.rawValue == 2067 && error.message == "UNIQUE constraint failed: T.K"
                && error.sql == "INSERT INTO T (K) VALUES (?)" && error.arguments == [.text("a")]
                && error.description.contains("arguments: ['a']")
        }
        #expect(throws: DatabaseError.self) { try database.execute("SELEC 1") }
        #expect(throws: DatabaseError.self) { try database.rows("SELECT ?", []) }
    }

    /// A write repeated for many rows reuses the statement's own array of arguments: each run
    /// binds only what its fill appended, a fill that fails runs nothing, and an error still
    /// carries the arguments of the run that failed.
    @Test func argumentsAppendedIntoTheStatementsArrayAreEachRunsOwn() throws {
        let folder = try TemporaryFolder()
        let database = try Database(path: folder.path("appending.sqlite"))
        try database.execute("CREATE TABLE T (K TEXT UNIQUE, V)")
        let insert = try database.cachedStatement("INSERT INTO T (K, V) VALUES (?, ?)")
        struct Refused: Error {}
        for (key, value) in [("a", DatabaseValue.integer(1)), ("b", .text(String(repeating: "long ", count: 40))), ("c", .null)] {
            try insert.execute { arguments in
                #expect(arguments.isEmpty)
                arguments.append(.text(key))
                arguments.append(value)
            }
        }
        #expect(throws: Refused.self) {
            try insert.execute { arguments in
                arguments.append(.text("d"))
                throw Refused()
            }
        }
        #expect(try database.rows("SELECT K, V FROM T ORDER BY K") == [
            [.text("a"), .integer(1)], [.text("b"), .text(String(repeating: "long ", count: 40))], [.text("c"), .null],
        ])
        #expect {
            try insert.execute { $0 += [.text("b"), .integer(2)] }
        } throws: { error in
            (error as? DatabaseError)?.extendedResultCode == DatabaseError.SQLITE_CONSTRAINT_UNIQUE
                && (error as? DatabaseError)?.arguments == [.text("b"), .integer(2)]
        }
    }

    /// Errors are caught by their named result code, GRDB-style: a primary code matches its
    /// extended codes, an extended code only itself, through a StoreError too.
    @Test func errorsAreCaughtByTheirNamedResultCode() throws {
        let folder = try TemporaryFolder()
        let database = try Database(path: folder.path("codes.sqlite"))
        try database.execute("CREATE TABLE T (K TEXT UNIQUE, N NOT NULL)")
        try database.execute("INSERT INTO T VALUES ('a', 1)")
        func caught(_ sql: String) -> [String] {
            var names: [String] = []
            do { try database.execute(sql) } catch DatabaseError.SQLITE_CONSTRAINT_NOTNULL {
                names.append("notnull")
            } catch DatabaseError.SQLITE_CONSTRAINT_UNIQUE {
                names.append("unique")
            } catch {
                names.append("other")
            }
            return names
        }
        #expect(caught("INSERT INTO T VALUES ('a', 2)") == ["unique"])
        #expect(caught("INSERT INTO T VALUES ('b', NULL)") == ["notnull"])
        #expect(caught("SELEC 1") == ["other"])
        let unique = DatabaseError(resultCode: DatabaseError.SQLITE_CONSTRAINT, extendedResultCode: DatabaseError.SQLITE_CONSTRAINT_UNIQUE, message: "", path: "x")
        #expect(DatabaseError.SQLITE_CONSTRAINT ~= unique)
        #expect(DatabaseError.SQLITE_CONSTRAINT_UNIQUE ~= StoreError.database(unique))
        #expect(!(DatabaseError.SQLITE_CONSTRAINT_NOTNULL ~= unique))
        #expect(!(DatabaseError.SQLITE_BUSY ~= unique))
        #expect(DatabaseError.SQLITE_CONSTRAINT_UNIQUE.primaryResultCode == DatabaseError.SQLITE_CONSTRAINT)
        #expect(DatabaseError.SQLITE_CONSTRAINT_UNIQUE.description == "2067 (constraint failed)")
    }

    /// SQL made from a huge predicate once printed whole, 100 KB in one error message: the text
    /// is cut, the error's values keep everything.
    @Test func longSQLAndManyArgumentsAreCutInTheMessageOnly() throws {
        let folder = try TemporaryFolder()
        let database = try Database(path: folder.path("long.sqlite"))
        let terms = (1...600).map { "?\($0) = \($0)" }.joined(separator: " AND ")
        let sql = "SELECT 1 WHERE " + terms + " AND abs(-9223372036854775807 - 1)"  // an integer overflow when run
        let arguments = (1...600).map { DatabaseValue.integer(Int64($0)) }
        #expect {
            try database.rows(sql, arguments)
        } throws: { error in
            guard let error = error as? DatabaseError else { return false }
            let lines = error.description.split(separator: "\n")
            return error.sql == sql && error.arguments.count == 600 && error.description.count < 1_000
                && lines[1].hasSuffix("… (\(sql.count) characters)") && lines[2].hasSuffix(", 20, … (600 in all)]")
        }
    }

    @Test func transactionsRollBackOnErrorAndSavepointsNest() throws {
        let folder = try TemporaryFolder()
        let database = try Database(path: folder.path("tx.sqlite"))
        try database.execute("CREATE TABLE T (V INTEGER)")
        struct Abort: Error {}
        #expect(throws: Abort.self) {
            try database.inTransaction {
                try database.execute("INSERT INTO T VALUES (1)")
                throw Abort()
            }
        }
        #expect(try database.scalar("SELECT COUNT(*) FROM T") == .integer(0))
        try database.inTransaction {
            try database.execute("INSERT INTO T VALUES (1)")
            try database.inSavepoint {
                try database.execute("INSERT INTO T VALUES (2)")
                try? database.inSavepoint {
                    try database.execute("INSERT INTO T VALUES (3)")
                    throw Abort()
                }
            }
        }
        #expect(try database.rows("SELECT V FROM T ORDER BY V").map { $0[0] } == [.integer(1), .integer(2)])
        #expect(!database.isInTransaction)
    }

    /// A savepoint outside a transaction is one, and releasing it commits: the work that runs
    /// before every commit (a store's history) runs before it too, and its failure rolls back.
    @Test func aSavepointOutsideATransactionRunsWhatPrecedesACommit() throws {
        let folder = try TemporaryFolder()
        let database = try Database(path: folder.path("savepoint.sqlite"))
        try database.execute("CREATE TABLE T (V INTEGER)")
        var commits = 0
        database.willCommit = { commits += 1 }
        try database.inSavepoint { try database.execute("INSERT INTO T VALUES (1)") }
        #expect(commits == 1)
        try database.inTransaction { try database.inSavepoint { try database.execute("INSERT INTO T VALUES (2)") } }
        #expect(commits == 2)
        struct Refused: Error {}
        database.willCommit = { throw Refused() }
        #expect(throws: Refused.self) { try database.inSavepoint { try database.execute("INSERT INTO T VALUES (3)") } }
        #expect(try database.rows("SELECT V FROM T ORDER BY V").map { $0[0] } == [.integer(1), .integer(2)])
        #expect(!database.isInTransaction)
    }

    @Test func aSecondWriterWaitsForTheBusyTimeoutThenFails() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("busy.sqlite")
        let first = try Database(path: path)
        try first.execute("CREATE TABLE T (V)")
        var configuration = Database.Configuration()
        configuration.busyTimeout = .milliseconds(50)
        let second = try Database(path: path, configuration: configuration)
        try first.execute("BEGIN IMMEDIATE")
        #expect { try second.inTransaction { try second.execute("INSERT INTO T VALUES (1)") } } throws: { error in
            (error as? DatabaseError)?.isBusy == true
        }
        try first.execute("COMMIT")
        try second.inTransaction { try second.execute("INSERT INTO T VALUES (1)") }
    }

    @Test func readOnlyConnectionsCannotWrite() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("ro.sqlite")
        try Database(path: path).execute("CREATE TABLE T (V)")
        let reader = try Database(path: path, configuration: .readOnly)
        #expect { try reader.execute("INSERT INTO T VALUES (1)") } throws: { ($0 as? DatabaseError)?.resultCode == DatabaseError.SQLITE_READONLY }
        #expect(throws: DatabaseError.self) { try Database(path: folder.path("missing.sqlite"), configuration: .readOnly) }
    }
}

/// Core Data's SQL functions, registered on every connection, as Strata's SQL uses them.
@Suite struct CoreDataFunctionTests {
    let database: Database
    let folder: TemporaryFolder

    init() throws {
        folder = try TemporaryFolder()
        database = try Database(path: folder.path("functions.sqlite"))
    }

    private func evaluate(_ sql: String, _ arguments: [DatabaseValue]) throws -> DatabaseValue? {
        try database.scalar(sql, arguments)
    }

    @Test(arguments: [
        ("The Hobbit", "The*", 0, 1), ("The Hobbit", "the*", 0, 0), ("The Hobbit", "the*", 1, 1),
        ("Café", "cafe", 1, 0), ("Café", "cafe", 3, 1), ("abc", "a?c", 0, 1), ("abc", "a?", 0, 0),
        ("a*b", "a\\*b", 0, 1), ("axb", "a\\*b", 0, 0), ("", "*", 0, 1), ("abc", "*b*", 0, 1), ("abcabd", "*ab?", 0, 1),
    ])
    func like(value: String, pattern: String, options: Int64, expected: Int64) throws {
        #expect(try evaluate("SELECT NSCoreDataLike(?, ?, ?)", [.text(value), .text(pattern), .integer(options)]) == .integer(expected))
    }

    @Test(arguments: [
        ("9780261103252", "[0-9]{13}", 0, 1), ("x9780261103252", "[0-9]{13}", 0, 0), ("ABC", "[a-c]+", 1, 1),
        ("ABC", "[a-c]+", 0, 0), ("Ünïcödé", "unicode", 3, 1), ("9780261102217", "[0-9]{9}[0-9X]|[0-9]{13}", 0, 1),
        ("978026110221", "[0-9]{9}[0-9X]|[0-9]{13}", 0, 0), ("abc\n", "abc", 0, 0),
    ])
    func matches(value: String, pattern: String, options: Int64, expected: Int64) throws {
        #expect(try evaluate("SELECT NSCoreDataMatches(?, ?, ?)", [.text(value), .text(pattern), .integer(options)]) == .integer(expected))
    }

    @Test(arguments: [
        ("The Lord of the Rings", "lord", 1, 1), ("The Lord of the Rings", "lord", 0, 0), ("Crème brûlée", "creme", 129, 1),
        ("The Hobbit", "The", 8, 1), ("The Hobbit", "Hobbit", 8, 0), ("The Hobbit", "Hobbit", 12, 1),
        ("The Hobbit", "", 0, 0), ("The Hobbit", "", 8, 0),
    ])
    func stringSearch(value: String, needle: String, options: Int64, expected: Int64) throws {
        #expect(try evaluate("SELECT NSCoreDataStringSearch(?, ?, ?, 1)", [.text(value), .text(needle), .integer(options)]) == .integer(expected))
    }

    /// A function that cannot answer fails the statement, its error kept as the cause: read as
    /// 0, `NOT` of it selected the row.
    @Test func aPatternWithoutAnAnswerFailsTheStatement() throws {
        for (sql, reason) in [
            ("SELECT NOT NSCoreDataMatches('abc', '(', 0)", StringMatchError.Reason.invalidPattern),
            ("SELECT NOT strata_matches('\(String(repeating: "a", count: 30))', '\(String(repeating: "a?", count: 30) + String(repeating: "a", count: 30))(?!b)', 0, 'Book.title')",
                .budgetExceeded(steps: 5_000_000)),
            ("SELECT NOT NSCoreDataLike('abc', '\(String(repeating: "?", count: 10_001))', 0)", .patternTooLong(limit: 10_000)),
        ] {
            do {
                _ = try evaluate(sql, [])
                Issue.record("\(sql.prefix(60)) gave an answer")
            } catch let error as DatabaseError {
                #expect(error.cause?.reason == reason, "\(error)")
                #expect(error.description.contains(error.cause?.description ?? "?"))
            }
        }
        // The connection goes on: the next statement's error is its own.
        #expect(try evaluate("SELECT NSCoreDataMatches('abc', 'a.c', 0)", []) == .integer(1))
        #expect(throws: DatabaseError.self) { try evaluate("SELECT nosuchfunction()", []) }
    }

    @Test func nullInputsGiveNull() throws {
        #expect(try evaluate("SELECT NSCoreDataLike(NULL, 'a', 0)", []) == .null)
        #expect(try evaluate("SELECT NSCoreDataMatches(NULL, 'a', 0)", []) == .null)
    }

    @Test func triggerFunctionsExistSoThatCoreDataTriggersRun() throws {
        try database.execute("CREATE TABLE T (V); CREATE TABLE L (V)")
        try database.execute("CREATE TRIGGER T_AI AFTER INSERT ON T BEGIN SELECT NSCoreDataTriggerUpdateAffectedObjectValue('T', 1, NEW.V, 'V', 0); INSERT INTO L VALUES (NEW.V); END")
        try database.execute("INSERT INTO T VALUES (7)")
        #expect(try evaluate("SELECT V FROM L", []) == .integer(7))
    }

    @Test func collationsOrderAsCoreDataNames() throws {
        try database.execute("CREATE TABLE N (V TEXT)")
        for name in ["item 10", "Item 2", "item 1"] { try database.execute("INSERT INTO N VALUES (?)", [.text(name)]) }
        let numeric = try database.rows("SELECT V FROM N ORDER BY V COLLATE NSCollateNumericallyNoCase").map { $0[0] }
        #expect(numeric == [.text("item 1"), .text("Item 2"), .text("item 10")])
        let noCase = try database.rows("SELECT V FROM N ORDER BY V COLLATE NSCollateNoCase").map { $0[0] }
        #expect(noCase == [.text("item 1"), .text("item 10"), .text("Item 2")])
    }
}
