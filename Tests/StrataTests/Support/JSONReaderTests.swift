import Foundation
import Testing
@testable import Strata

@Suite struct JSONReaderTests {
    private func parse(_ text: String) throws -> JSONValue {
        try JSONReader.parse(Data(text.utf8))
    }

    private func syntaxError(_ text: String) -> JSONSyntaxError? {
        do {
            _ = try JSONReader.parse(Data(text.utf8))
            return nil
        } catch {
            return error
        }
    }

    @Test func readsEveryKindOfValueWithItsLocation() throws {
        let value = try parse("{\n  \"a\": [1, -2.5e3, true, false, null],\n  \"b\": \"x\"\n}")
        let array = try #require(value["a"]?.arrayValue)
        #expect(array.count == 5)
        #expect(array[0].intValue == 1)
        #expect(array[1].doubleValue == -2500)
        #expect(array[2].boolValue == true)
        #expect(array[4].isNull)
        #expect(value["b"]?.stringValue == "x")
        #expect(value["b"]?.location == SourceLocation(line: 3, column: 8))
    }

    @Test func keepsNumbersAsWrittenAndMembersInOrder() throws {
        let value = try parse(#"{"z": 12345678901234567890, "a": 0.10}"#)
        #expect(value.objectMembers?.map(\.key) == ["z", "a"])
        if case .number(let text) = value["z"]?.kind { #expect(text == "12345678901234567890") } else { Issue.record("not a number") }
    }

    @Test func decodesEscapesAndSurrogatePairs() throws {
        let value = try parse(#"["a\"b\\c\/\n\t", "\u00e9\ud83d\ude00"]"#)
        #expect(value.arrayValue?[0].stringValue == "a\"b\\c/\n\t")
        #expect(value.arrayValue?[1].stringValue == "é😀")
    }

    @Test func countsColumnsInCharactersNotBytes() {
        let error = syntaxError("[\"é\", x]")
        #expect(error?.location == SourceLocation(line: 1, column: 7))
    }

    @Test(arguments: [
        ("[1, 2", "expected ',' or ']'", 1, 6),
        ("{\"a\" 1}", "expected ':'", 1, 6),
        ("{\"a\": 1,}", "expected a string key", 1, 9),
        ("[01]", "expected ',' or ']'", 1, 3),
        ("[tru]", "expected 'true'", 1, 2),
        ("\"abc", "unterminated string", 1, 5),
        ("[1]\n x", "after the end of the JSON value", 2, 2),
        ("[\"a\u{1}\"]", "control character", 1, 4),
        ("[\"\\x\"]", "invalid escape", 1, 3),
        ("", "unexpected end of input", 1, 1),
    ])
    func syntaxErrorsSayWhatAndWhere(text: String, message: String, line: Int, column: Int) {
        let error = syntaxError(text)
        #expect(error?.message.contains(message) == true, "\(String(describing: error))")
        #expect(error?.location == SourceLocation(line: line, column: column))
    }

    @Test func deepNestingIsAnErrorNotACrash() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(syntaxError(deep)?.message.contains("nest deeper than") == true)
        let allowed = String(repeating: "[", count: JSONReader.maximumDepth) + String(repeating: "]", count: JSONReader.maximumDepth)
        #expect(syntaxError(allowed) == nil)
    }

    @Test func invalidUTF8InAStringIsAnError() {
        var bytes = Array("[\"a".utf8)
        bytes += [0xFF, 0xFE]
        bytes += Array("\"]".utf8)
        let error = #expect(throws: JSONSyntaxError.self) { try JSONReader.parse(Data(bytes)) }
        #expect(error?.location == SourceLocation(line: 1, column: 7), "after the string's closing quote")
    }

    @Test func plainAndEscapedStringsAreLocatedAlike() throws {
        // Plain strings are read in one step, strings with escapes byte by byte: both count columns in characters.
        let value = try parse(#"["ab", "é😀", "a\"b", "x", 1]"#)
        #expect(value.arrayValue?.map { $0.location?.column } == [2, 8, 14, 22, 27])
        #expect(value.arrayValue?.compactMap(\.stringValue) == ["ab", "é😀", "a\"b", "x"])
    }

    @Test func writerOutputReadsBackEqual() throws {
        let text = #"{"name": "a \"quoted\"\nline\u0001", "list": [1, 2.5, true, null, {}], "empty": []}"#
        let value = try parse(text)
        for pretty in [true, false] {
            let written = JSONWriter.string(from: value, pretty: pretty)
            #expect(JSONWriter.string(from: try parse(written), pretty: pretty) == written)
        }
        #expect(JSONWriter.string(from: value, pretty: false)
            == #"{"name":"a \"quoted\"\nline\u0001","list":[1,2.5,true,null,{}],"empty":[]}"#)
    }
}
