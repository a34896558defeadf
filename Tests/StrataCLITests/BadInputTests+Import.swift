import Foundation
import Testing

// The catalogue's JSON records for `strata import`: malformed, truncated and empty input,
// values of the wrong type, huge numbers, invalid UTF-8, deep nesting, unknown names.
extension BadInputTests {
    /// A bad payload in `in.json` (or `in.ndjson`), imported as Book into the example store.
    struct Payload: Sendable, CustomTestStringConvertible {
        var name: String
        var file = "in.json"
        var text: String
        var status: Int32 = 3
        /// The message after `strata: <file>: `.
        var error: String
        var testDescription: String { name }
    }

    static let payloads: [Payload] = [
        Payload(name: "a missing comma", text: #"[{"isbn": "9780000000001", "title": "A"} {"isbn": "9780000000002"}]"#,
                error: "line 1, column 42: unexpected '{', expected ',' or ']'"),
        Payload(name: "JSON cut off in a string", text: #"[{"isbn": "9780000000001", "title": "A"}, {"isbn": "97800"#,
                error: "line 1, column 58: unterminated string"),
        Payload(name: "JSON cut off after a key", text: #"[{"isbn": "9780000000001", "title": "A"}, {"isbn""#,
                error: "line 1, column 50: unexpected end of input, expected ':'"),
        Payload(name: "NDJSON cut off", file: "in.ndjson", text: "{\"isbn\": \"9780000000001\", \"title\": \"One\"}\n{\"isbn\": \"9780000000002\", \"title\": \n",
                error: "line 3, column 1: unexpected end of input, expected a value"),
        Payload(name: "an empty file", text: "", error: "the file is empty; expected JSON records ([] for none; an empty .ndjson or .jsonl file imports nothing)"),
        Payload(name: "a file of blank lines", text: "\n  \n\t\n",
                error: "the file is empty; expected JSON records ([] for none; an empty .ndjson or .jsonl file imports nothing)"),
        Payload(name: "a number, not a record", text: "42", error: "record 1 (line 1, column 1): expected an object for Book, found a number"),
        Payload(name: "an array of numbers", text: "[1, 2]", error: "record 1 (line 1, column 2): expected an object for Book, found a number"),
        Payload(name: "an array for a string", text: #"[{"isbn": 9780000000001, "title": ["A"]}]"#,
                error: #"record 1 (line 1, column 35): key 'title' for title (string): ["A"] — an array is not a string"#),
        Payload(name: "an object for a string", text: #"[{"isbn": "9780000000001", "title": {"x": 1}}]"#,
                error: #"record 1 (line 1, column 37): key 'title' for title (string): {"x":1} — an object is not a string"#),
        Payload(name: "a word for a double", text: #"[{"isbn": "9780000000001", "title": "A", "rating": "high"}]"#,
                error: #"record 1 (line 1, column 52): key 'rating' for rating (double): "high" — a string that is not a number"#),
        Payload(name: "a word for a date", text: #"[{"isbn": "9780000000001", "title": "A", "published": "yesterday"}]"#,
                error: #"record 1 (line 1, column 55): key 'published' for published (date): "yesterday" — "yesterday" is not an ISO 8601 date"#),
        Payload(name: "a string for a to-many", text: #"[{"isbn": "9780000000001", "title": "A", "tags": "fantasy"}]"#,
                error: "record 1 (line 1, column 50): key 'tags' for tags: expected an array, found a string"),
        Payload(name: "a word for a to-one's identity", text: #"[{"isbn": "9780000000001", "title": "A", "author": "x"}]"#,
                error: #"record 1 (line 1, column 52): author identity "x" for Author.remoteID — a string that is not a number"#),
        Payload(name: "1e400 for a double", text: #"[{"isbn": "9780000000001", "title": "A", "rating": 1e400}]"#,
                error: "record 1 (line 1, column 52): key 'rating' for rating (double): 1e400 — 1e400 is not a number in the range of double"),
        Payload(name: "1e400 for an Integer 64", text: #"[{"isbn": "9780000000001", "title": "A", "author": {"id": 1e400}}]"#,
                error: "record 1.author[1] (line 1, column 59): key 'id' for remoteID (integer64): 1e400 — 1e400 is not an integer in the range of integer64"),
        Payload(name: "2^66 for an Integer 64", text: #"[{"isbn": "9780000000001", "title": "A", "author": {"id": 73786976294838206464}}]"#,
                error: "record 1.author[1] (line 1, column 59): key 'id' for remoteID (integer64): 73786976294838206464 — 73786976294838206464 is not an integer in the range of integer64"),
        Payload(name: "3e9 for an Integer 32", text: #"[{"isbn": "9780000000001", "title": "A", "pages": [{"number": 3000000000}]}]"#,
                error: "record 1.pages[1] (line 1, column 63): key 'number' for number (integer32): 3000000000 — 3000000000 is not an integer in the range of integer32"),
        Payload(name: "invalid UTF-8 in a string", text: "[{\"isbn\": \"9780000000001\", \"title\": \"A\u{FFFF}\"}]", error: "line 1, column 41: string is not valid UTF-8"),
        Payload(name: "100,000 nested arrays", text: String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000),
                error: "line 1, column 513: arrays and objects nest deeper than 512 levels"),
        Payload(name: "100,000 nested arrays in a value", text: #"[{"isbn": "9780000000001", "title": "#
                + String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000) + "}]",
                error: "line 1, column 547: arrays and objects nest deeper than 512 levels"),
        Payload(name: "a wrapper key that names no entity", text: #"{"books": [{"isbn": "9780000000001", "title": "A"}], "novels": []}"#,
                error: "line 1, column 54: 'novels' names no entity, but the object lists records by entity (its first key, 'books', names one and holds an array)"),
    ]

    @Test(arguments: payloads)
    func aBadPayload(_ payload: Payload) throws {
        let setup = try Setup()
        // U+FFFF stands for the byte 0xFF, which no Swift string holds.
        var bytes = Data(payload.text.utf8)
        if let range = bytes.range(of: Data("\u{FFFF}".utf8)) { bytes.replaceSubrange(range, with: [0xFF]) }
        let file = try setup.write(payload.file, bytes)
        try Self.refuses(
            ["import", "Book", file, "--store", "{store}", "--model", "{model}"], in: setup, status: payload.status,
            error: "strata: \(file): \(payload.error)")
    }

    /// Empty input: an empty file is refused unless it is named as NDJSON, whose empty stream
    /// is no records (as with jq, or sqlite-utils --nl); so is empty standard input, where no
    /// name says which. `[]` is the JSON for no records. (An empty file is a failed download
    /// more often than a page of no records, and with --prune-where a page of no records
    /// deletes every object the predicate selects.)
    @Test func emptyInputIsRefusedUnlessItIsAnNDJSONFile() throws {
        let setup = try Setup()
        try Self.refuses(
            ["import", "Book", "--store", "{store}", "--model", "{model}"], in: setup, status: 3,
            error: "strata: standard input: the input is empty; expected JSON records ([] for none)", input: Data())
        for (name, contents) in [("none.ndjson", ""), ("none.jsonl", "\n"), ("none.json", "[]")] {
            let file = try setup.write(name, contents)
            let before = Self.checksum(setup.store)
            let result = try StrataRunner.run(["import", "Book", file, "--store", setup.store, "--model", Self.model])
            #expect(result.status == 0, "\(name): \(result.standardError)")
            #expect(result.standardOutput == "nothing imported\n", "\(name)")
            #expect(Self.checksum(setup.store) == before, "\(name)")
        }
    }

    /// What the command line names wrongly: the entity, the identity attribute, the file, the
    /// --prune-where predicate.
    @Test(arguments: [
        (["import", "Nope", "{dir}/one.json"], Int32(2), "strata: {store}: no entity 'Nope'; entities: Author, Book, EBook, Page, Tag"),
        (["import", "Book", "{dir}/one.json", "--identity", "nope"], 3, "strata: {dir}/one.json: entity Book has no attribute 'nope' to identify records by"),
        (["import", "Book", "{dir}/missing.json"], 1, "strata: {dir}/missing.json: no such file"),
        (["import", "Book", "{dir}"], 1, "strata: {dir}: is a folder, not a JSON file"),
    ])
    func aBadImportCommand(command: [String], status: Int32, error: String) throws {
        let setup = try Setup()
        try setup.write("one.json", #"{"isbn": "9780000000001", "title": "One"}"#)
        try Self.refuses(command + ["--store", "{store}", "--model", "{model}"], in: setup, status: status, error: error)
    }

    /// A --prune-where predicate that does not parse is a usage error of argument parsing,
    /// before the store is opened.
    @Test func aPrunePredicateThatDoesNotParse() throws {
        let setup = try Setup()
        try setup.write("one.json", #"{"isbn": "9780000000001", "title": "One"}"#)
        let before = Self.checksum(setup.store)
        let result = try StrataRunner.run(["import", "Book", "{dir}/one.json", "--prune-where", "rating >", "--store", "{store}", "--model", "{model}"].map(setup.expand))
        #expect(result.status == 2)
        #expect(
            result.standardError.hasPrefix(
                "Error: The value 'rating >' is invalid for '--prune-where <predicate>': expected a value after '>', found 'the end of the predicate'\n  rating >\n          ^\n"),
            "\(result.standardError)")
        #expect(Self.checksum(setup.store) == before)
    }

    /// A failed import into a store that did not exist leaves no store behind.
    @Test func aFailedImportLeavesNoNewStore() throws {
        let setup = try Setup(store: false)
        let file = try setup.write("bad.json", #"[{"isbn": "9780000000001", "title": "A"}, {"isbn""#)
        let result = try StrataRunner.run(["import", "Book", "--create", file, "--store", setup.store, "--model", Self.model])
        #expect(result.standardError == "strata: \(file): line 1, column 50: unexpected end of input, expected ':'\n")
        #expect(result.status == 3)
        #expect(try FileManager.default.contentsOfDirectory(atPath: setup.path) == ["bad.json"])
    }
}
