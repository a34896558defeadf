import Foundation
import Strata
import Testing

/// `strata sql`: the user's own SQL on a store, read-only unless --write, printed as fetch prints.
@Suite final class SQLCommandTests {
    let library = try! SeededLibraryStore()

    private func sql(_ arguments: [String], input: Data? = nil) throws -> StrataRunner.Result {
        try StrataRunner.run(["sql", "--store", library.path] + arguments, input: input)
    }

    @Test func rowsPrintInEveryFormatOfFetch() throws {
        let query = "SELECT ZTITLE AS title, ZRATING AS rating FROM ZBOOK ORDER BY ZTITLE"
        let json = try sql([query, "--format", "json"])
        #expect(json.status == 0, "\(json.standardError)")
        let rows = try JSONReader.parse(Data(json.standardOutput.utf8)).arrayValue ?? []
        #expect(rows.map { $0["title"]?.stringValue } == ["A", "B", "C"])
        #expect(rows.map { $0["rating"]?.doubleValue } == [0.5, 1.5, 4.5])
        #expect(try sql([query, "--format", "csv"]).standardOutput == "title,rating\r\nA,0.5\r\nB,1.5\r\nC,4.5\r\n")
        #expect(try sql([query, "--format", "ndjson"]).standardOutput == "{\"title\":\"A\",\"rating\":0.5}\n{\"title\":\"B\",\"rating\":1.5}\n{\"title\":\"C\",\"rating\":4.5}\n")
        let table = try sql([query + " LIMIT 1", "--format", "table"]).standardOutput
        #expect(table.contains("title") && table.contains("rating") && table.contains("0.5"), "\(table)")
        // A table shows doubles as sqlite3 does, and binary data as its size.
        let values = try sql(["SELECT 1.6 * 3 AS x, X'00FF10' AS data", "--format", "table"]).standardOutput
        #expect(values.contains("4.8") && !values.contains("4.800000000000001") && values.contains("<3 bytes>"), "\(values)")
    }

    @Test func theSQLComesFromTheArgumentAFileOrStandardInput() throws {
        let query = "SELECT count(*) AS n FROM ZPAGE;"
        let expected = "n\r\n7\r\n"
        #expect(try sql([query, "--csv"]).standardOutput == expected)
        #expect(try sql(["--csv"], input: Data(query.utf8)).standardOutput == expected)
        #expect(try sql(["-", "--csv"], input: Data(query.utf8)).standardOutput == expected)
        let file = library.folder.appendingPathComponent("count.sql")
        try Data("-- pages\n\(query)\n".utf8).write(to: file)
        #expect(try sql(["--file", file.path, "--csv"]).standardOutput == expected)
        let both = try sql([query, "--file", file.path])
        #expect(both.status == 2)
        let missing = try sql(["--file", library.folder.appendingPathComponent("none.sql").path])
        #expect(missing.status == 2 && missing.standardError.contains("none.sql"), "\(missing.standardError)")
        let empty = try sql([], input: Data("  \n".utf8))
        #expect(empty.status == 2 && empty.standardError.contains("no SQL given"), "\(empty.standardError)")
    }

    @Test func everyStatementOfAScriptRunsInOrder() throws {
        let result = try sql(["SELECT 1 AS a; -- between\n SELECT 'x;y' AS b;", "--csv"])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput == "a\r\n1\r\nb\r\nx;y\r\n")
    }

    @Test(arguments: [
        "UPDATE ZBOOK SET ZTITLE = 'X'", "DELETE FROM ZPAGE", "INSERT INTO ZTAG (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (99, 5, 1, 'x')",
        "CREATE TABLE T (a)", "SELECT 1; DROP TABLE ZPAGE", "PRAGMA user_version = 3",
    ])
    func aWriteIsRefusedNamingWriteAndChangesNothing(statement: String) throws {
        let before = try library.contents()
        let result = try sql([statement])
        #expect(result.status == 2)
        #expect(result.standardError.contains("--write"), "\(result.standardError)")
        #expect(try library.contents() == before)
    }

    @Test func writeRunsInOneTransactionAndSaysWhatItBypasses() throws {
        let result = try sql(["UPDATE ZBOOK SET ZTITLE = ZTITLE || '!' WHERE ZRATING > 1; UPDATE ZPAGE SET ZNUMBER = ZNUMBER + 10 WHERE ZNUMBER = 1", "--write"])
        #expect(result.status == 0, "\(result.standardError)")
        for word in ["Z_OPT", "Z_PRIMARYKEY", "history", "validation", "derived"] {
            #expect(result.standardError.contains(word), "\(result.standardError)")
        }
        #expect(result.standardError.contains("5 rows changed"), "\(result.standardError)")
        #expect(try library.rows("SELECT ZTITLE FROM ZBOOK ORDER BY ZTITLE").map { $0[0] } == [.text("A"), .text("B!"), .text("C!")])
        // A statement that fails rolls back those before it.
        let before = try library.contents()
        let failed = try sql(["UPDATE ZBOOK SET ZTITLE = 'lost'; SELECT ZNOPE FROM ZBOOK", "--write"])
        #expect(failed.status == 3, "\(failed.standardError)")
        #expect(try library.rows("SELECT count(*) FROM ZBOOK WHERE ZTITLE = 'lost'") == [[.integer(0)]])
        #expect(try library.contents() == before)
    }

    @Test func anSQLiteErrorKeepsItsCodeAndPointsAtTheToken() throws {
        let unknown = try sql(["SELECT ZTITLE\nFROM ZBOOK WHERE ZNOPE = 1"])
        #expect(unknown.status == 3)
        #expect(unknown.standardError.contains("SQLite error 1"), "\(unknown.standardError)")
        #expect(unknown.standardError.contains("no such column: ZNOPE"), "\(unknown.standardError)")
        #expect(unknown.standardError.contains("  FROM ZBOOK WHERE ZNOPE = 1\n" + String(repeating: " ", count: 2 + "FROM ZBOOK WHERE ".count) + "^\n"), "\(unknown.standardError)")
        let syntax = try sql(["SELECT 1; SELEC 2"])
        #expect(syntax.status == 3)
        #expect(syntax.standardError.contains("syntax error") && syntax.standardError.contains("  SELEC 2\n  ^"), "\(syntax.standardError)")
        #expect(syntax.standardOutput.contains("1"), "the statement before the error ran: \(syntax.standardOutput)")
    }

    @Test func writeCannotGoWithReadOnly() throws {
        let result = try sql(["SELECT 1", "--write", "--read-only"])
        #expect(result.status == 2)
        #expect(result.standardError.contains("--read-only"), "\(result.standardError)")
    }
}
