import Foundation
import Strata
import Testing
import StrataTestSupport

/// What a Swift program reads from a failed import through the public API alone: the cause and
/// the place as values, not as a sentence to parse.
@Suite struct ImportErrorTests {
    static func shelf(invalidIf: String) -> String {
        """
        {"entities": [{"name": "Book", "userInfo": {"strata.invalidIf": "\(invalidIf)"},
          "attributes": [{"name": "remoteID", "type": "integer64"}, {"name": "title", "type": "string"},
            {"name": "pages", "type": "integer16"}]}]}
        """
    }

    /// A store made from `modelJSON` in `temporary`, and a file holding `records`.
    static func storeAndRecords(_ modelJSON: String, _ records: String, in temporary: TemporaryFolder) throws -> (PersistentStore, URL) {
        let model = try JSONModelReader.read(Data(modelJSON.utf8), path: "Shelf.json")
        let store = try PersistentStore.create(at: temporary.path("Shelf.sqlite"), model: model)
        let file = temporary.url.appendingPathComponent("books.json")
        try records.write(to: file, atomically: true, encoding: .utf8)
        return (store, file)
    }

    @Test func aBadInvalidIfMetByAnImportIsItsParseErrorAsAValue() throws {
        let temporary = try TemporaryFolder("strata-import-error")
        let (store, file) = try Self.storeAndRecords(Self.shelf(invalidIf: "pages <<"), #"[{"id": 1, "title": "A"}]"#, in: temporary)
        defer { store.close() }
        let thrown = #expect(throws: StreamingImportError.self) { try StreamingImport(entity: "Book").run([.file(file)], into: store) }
        guard case .badInput(let source, let cause as ImportError)? = thrown else {
            Issue.record("expected an ImportError inside badInput, got \(String(describing: thrown))")
            return
        }
        #expect(source == file.path)
        #expect(cause.entity == "Book")
        guard case .invalidIf(let rule) = cause.problem else {
            Issue.record("expected .invalidIf, got \(cause.problem)")
            return
        }
        #expect(rule.entity == "Book")
        #expect(rule.syntax.predicate == "pages <<")
        #expect(cause.recordNumber == nil, "the rule stops the import before its first record")
        #expect(try store.count(of: "Book") == 0)
    }

    @Test func aRecordThatDoesNotFitIsNamedByNumberEntityKeyAndPlace() throws {
        let temporary = try TemporaryFolder("strata-import-error")
        let records = "[{\"id\": 1, \"title\": \"A\"},\n {\"id\": 2, \"title\": \"B\", \"pages\": \"many\"}]"
        let (store, file) = try Self.storeAndRecords(Self.shelf(invalidIf: "pages < 0"), records, in: temporary)
        defer { store.close() }
        let thrown = #expect(throws: StreamingImportError.self) { try StreamingImport(entity: "Book").run([.file(file)], into: store) }
        guard case .badInput(_, let cause as ImportError)? = thrown else {
            Issue.record("expected an ImportError inside badInput, got \(String(describing: thrown))")
            return
        }
        #expect(cause.recordNumber == 2)
        #expect(cause.entity == "Book")
        #expect(cause.key == "pages")
        #expect(cause.location == SourceLocation(line: 2, column: 35))
        guard case .doesNotFit = cause.problem else {
            Issue.record("expected .doesNotFit, got \(cause.problem)")
            return
        }
        #expect(try store.count(of: "Book") == 0)
    }
}
