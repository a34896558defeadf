import Foundation
import Testing
@testable import Strata
import StrataTestSupport

/// CSV as RFC 4180, `strata export` and `sqlite3 -csv` write it, read a row at a time.
@Suite struct CSVReaderTests {
    private func rows(_ text: String, chunkSize: Int = 64 * 1024) throws -> [[String]] {
        var reader = CSVReader(data: Data(text.utf8))
        var rows: [[String]] = []
        while let row = try reader.nextRow() { rows.append(row.map { $0.isQuoted ? "<\($0.text)>" : $0.text }) }
        return rows
    }

    @Test func quotedFieldsHoldCommasQuotesAndLineBreaks() throws {
        #expect(try rows("a,b,c\r\n1,\"x, y\",\"say \"\"hi\"\"\"\r\n2,\"two\nlines\",\r\n") == [
            ["a", "b", "c"], ["1", "<x, y>", "<say \"hi\">"], ["2", "<two\nlines>", ""],
        ])
        #expect(try rows("a,b\n1,2\n3,4") == [["a", "b"], ["1", "2"], ["3", "4"]], "LF, and no line break at the end")
        #expect(try rows("\u{FEFF}é,b\n,\"\"\n") == [["é", "b"], ["", "<>"]], "a byte order mark is skipped; nil and the empty string differ")
        #expect(try rows("") == [])
        #expect(try rows("a,b\n\n1,2\n") == [["a", "b"], [""], ["1", "2"]])
    }

    @Test func fieldsKnowTheirLineAndColumn() throws {
        var reader = CSVReader(data: Data("name,note\r\nDune,\"two\nlines\"\r\nélan,x\r\n".utf8))
        _ = try reader.nextRow()
        let second = try #require(try reader.nextRow())
        #expect(second.map(\.location) == [SourceLocation(line: 2, column: 1), SourceLocation(line: 2, column: 6)])
        let third = try #require(try reader.nextRow())
        #expect(third.map(\.location) == [SourceLocation(line: 4, column: 1), SourceLocation(line: 4, column: 6)])
    }

    @Test func malformedCSVIsLocated() throws {
        #expect(throws: CSVSyntaxError(message: "a quoted field that starts here never ends (no closing quote before the end of the input)", location: SourceLocation(line: 2, column: 3))) {
            try rows("a,b\n1,\"open\n")
        }
        #expect(throws: CSVSyntaxError(message: "unexpected 'x' after the closing quote of a field (a quote inside a quoted field is written \"\")", location: SourceLocation(line: 1, column: 5))) {
            try rows("\"ab\"x,c\n")
        }
        var reader = CSVReader(data: Data([0x61, 0x0A, 0xFF, 0x0A]))
        _ = try reader.nextRow()
        #expect(throws: CSVSyntaxError(message: "the field is not UTF-8 text", location: SourceLocation(line: 2, column: 1))) { try reader.nextRow() }
    }

    @Test func aFileLargerThanAChunkIsReadWhole() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("big.csv")
        var text = "n,text\n"
        for number in 0..<20_000 { text += "\(number),\"line \(number), with \"\"quotes\"\"\"\n" }
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        var reader = try CSVReader(path: path)
        _ = try reader.nextRow()
        var count = 0
        while let row = try reader.nextRow() {
            #expect(row[1].text == "line \(count), with \"quotes\"")
            count += 1
        }
        #expect(count == 20_000)
        #expect(reader.bytesRead == text.utf8.count)
    }
}
