import Foundation
import Strata
import Testing
import StrataTestSupport

/// `strata import` reads CSV as `strata export --format csv` and `sqlite3 -csv -header` write
/// it, so that an export round-trips (issue 34, point 4).
extension ImportCommandTests {
    /// Every attribute type, a to-one link, a to-many one and a Transformable value.
    static let everyTypeModel = """
        {"entities": [
          {"name": "Author", "attributes": [{"name": "remoteID", "type": "integer64"}, {"name": "name", "type": "string"}],
           "relationships": [{"name": "books", "destination": "Book", "inverse": "author", "toMany": true}]},
          {"name": "Book", "attributes": [
             {"name": "isbn", "type": "string", "userInfo": {"hyper.isPrimaryKey": "YES"}}, {"name": "title", "type": "string"},
             {"name": "rating", "type": "double"}, {"name": "weight", "type": "float"}, {"name": "price", "type": "decimal"},
             {"name": "pageCount", "type": "integer16"}, {"name": "copies", "type": "integer32"}, {"name": "sold", "type": "integer64"},
             {"name": "published", "type": "date"}, {"name": "inPrint", "type": "boolean"}, {"name": "uuid", "type": "uuid"},
             {"name": "cover", "type": "binary"}, {"name": "website", "type": "uri"}, {"name": "extras", "type": "transformable"}],
           "relationships": [{"name": "author", "destination": "Author", "inverse": "books"},
             {"name": "tags", "destination": "Tag", "inverse": "books", "toMany": true}]},
          {"name": "Tag", "attributes": [{"name": "name", "type": "string"}], "uniquenessConstraints": [["name"]],
           "relationships": [{"name": "books", "destination": "Book", "inverse": "tags", "toMany": true}]}
        ]}
        """

    static let everyTypeRecords = """
        {"authors": [{"id": 1, "name": "Le Guin"}, {"id": 2, "name": "Comma, \\"Quoted\\"\\nAuthor"}],
         "tags": [{"name": "sf"}, {"name": "classic"}],
         "books": [
           {"isbn": "1", "title": "The Dispossessed", "rating": 4.8, "weight": 0.5, "price": 12.99, "page_count": 387, "copies": 70000,
            "sold": 9007199254740993, "published": "1974-05-01T10:20:30.250Z", "in_print": true, "uuid": "E621E1F8-C36C-495A-93FC-0C247A3E6E5F",
            "cover": "AAEC/w==", "website": "https://example.org/a?b=c,d", "extras": {"shelf": [1, "two", null]},
            "author_id": 1, "tags_ids": ["sf", "classic"]},
           {"isbn": "2", "title": "", "rating": null, "in_print": false, "author_id": 2, "tags_ids": []},
           {"isbn": "3", "title": "Ünïcödé, \\"quotes\\" and\\r\\nlines", "published": "1899-12-31T23:59:59Z"}]}
        """

    /// The folder's model file and a store of it holding `records`.
    private func everyTypeStore(in folder: TemporaryFolder, named name: String, records: String?) throws -> (store: String, model: String) {
        let model = folder.url.appendingPathComponent("books.json").path
        try Data(Self.everyTypeModel.utf8).write(to: URL(fileURLWithPath: model))
        let store = folder.url.appendingPathComponent(name).path
        let made = try StrataRunner.run(["create", "--store", store, "--model", model])
        #expect(made.status == 0, "\(made.standardError)")
        if let records {
            let imported = try StrataRunner.run(["import", "Book", "-", "--store", store, "--model", model], input: Data(records.utf8))
            #expect(imported.status == 0, "\(imported.standardError)")
        }
        return (store, model)
    }

    @Test func exportedCSVImportsBackAsTheSameObjects() throws {
        let folder = try TemporaryFolder()
        let (source, model) = try everyTypeStore(in: folder, named: "Source.sqlite", records: Self.everyTypeRecords)
        let (copy, _) = try everyTypeStore(in: folder, named: "Copy.sqlite", records: nil)
        // One entity per CSV: the authors' and tags' links to books resolve when the books come.
        for entity in ["Author", "Tag", "Book"] {
            let exported = try StrataRunner.run(["export", entity, "--store", source, "--model", model, "--format", "csv"])
            #expect(exported.status == 0, "\(exported.standardError)")
            let file = folder.url.appendingPathComponent("\(entity).csv")
            try Data(exported.standardOutput.utf8).write(to: file)
            let imported = try StrataRunner.run(["import", entity, file.path, "--store", copy, "--model", model] + (entity == "Book" ? [] : ["--allow-unresolved"]))
            #expect(imported.status == 0, "\(entity): \(imported.standardError)")
        }
        for entity in ["Author", "Tag", "Book"] {
            let original = try StrataRunner.run(["export", entity, "--store", source, "--model", model, "--format", "ndjson"])
            let copied = try StrataRunner.run(["export", entity, "--store", copy, "--model", model, "--format", "ndjson"])
            #expect(copied.status == 0 && !original.standardOutput.isEmpty)
            #expect(copied.standardOutput == original.standardOutput, "\(entity)")
        }
        #expect(try rows(copy, "SELECT ZTITLE IS NULL, ZTITLE FROM ZBOOK WHERE ZISBN = '2'") == [[.integer(0), .text("")]], "\"\" is the empty string")
        #expect(try rows(copy, "SELECT ZRATING FROM ZBOOK WHERE ZISBN = '2'") == [[.null]], "an empty field is nil")
    }

    @Test func csvAsSQLite3WritesItImportsFromStandardInput() throws {
        let folder = try TemporaryFolder()
        let (store, model) = try everyTypeStore(in: folder, named: "Books.sqlite", records: nil)
        // sqlite3 -csv -header: LF line ends, "" for the empty string, nothing for NULL.
        let csv = "isbn,title,rating,in_print,published\n7,\"Seven, the \"\"novel\"\"\",4.5,1,2020-02-03T04:05:06Z\n8,\"\",,0,\n"
        let imported = try StrataRunner.run(["import", "Book", "-", "--format", "csv", "--store", store, "--model", model], input: Data(csv.utf8))
        #expect(imported.status == 0, "\(imported.standardError)")
        #expect(imported.standardOutput == "Book: 2 created\n")
        #expect(try rows(store, "SELECT ZISBN, ZTITLE, ZRATING, ZINPRINT, CAST(ZPUBLISHED AS REAL) FROM ZBOOK ORDER BY ZISBN") == [
            [.text("7"), .text("Seven, the \"novel\""), .real(4.5), .integer(1), .real(602_395_506)],
            [.text("8"), .text(""), .null, .integer(0), .null],
        ])
    }

    @Test func badCSVIsLocatedAndLeavesTheStoreAsItWas() throws {
        let folder = try TemporaryFolder()
        let (store, model) = try everyTypeStore(in: folder, named: "Books.sqlite", records: Self.everyTypeRecords)
        let before = BadInputTests.checksum(store)
        let cases: [(csv: String, message: String)] = [
            ("isbn,rating\n9,4.5\n10,lots\n", "strata: bad.csv: record 2 (line 3, column 4): "),
            ("isbn,title\n9,\"open\n", "strata: bad.csv: line 2, column 3: a quoted field that starts here never ends"),
            ("isbn,title\n9\n", "strata: bad.csv: line 2, column 1: 1 field, but the header has 2"),
            ("isbn,extras\n9,{not json\n", "strata: bad.csv: line 2, column 3: extras: a Transformable value is written as JSON"),
            ("", "strata: bad.csv: the CSV input is empty; expected a header row naming the keys"),
        ]
        for (csv, message) in cases {
            let file = folder.url.appendingPathComponent("bad.csv")
            try Data(csv.utf8).write(to: file)
            let result = try StrataRunner.run(["import", "Book", "bad.csv", "--store", store, "--model", model], in: folder.url)
            #expect(result.status == 3, "\(csv): \(result.standardError)")
            #expect(result.standardError.hasPrefix(message), "\(result.standardError)")
            #expect(BadInputTests.checksum(store) == before)
        }
    }

    /// A real Core Data store's books, exported as CSV, deleted and imported back: the same
    /// CSV comes out again (its Book has no identity attribute, so the import creates them).
    @Test func aRealStoreRoundTripsThroughCSV() throws {
        let original = StrataRunner.repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared/fixtures/coredata/real-stores/CoreDataBooks.sqlite")
        guard FileManager.default.fileExists(atPath: original.path) else {
            Issue.record("skipped: \(original.path) is missing (the shared fixtures are not next to the checkout)")
            return
        }
        let folder = try TemporaryFolder()
        let copy = folder.url.appendingPathComponent("CoreDataBooks.sqlite").path
        try FileManager.default.copyItem(atPath: original.path, toPath: copy)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: copy)
        let exported = try StrataRunner.run(["export", "Book", "--store", copy, "--format", "csv"])
        #expect(exported.status == 0, "\(exported.standardError)")
        #expect(exported.standardOutput.components(separatedBy: "\r\n").count == 14, "a header, 12 books and the last line break")
        let file = folder.url.appendingPathComponent("books.csv")
        try Data(exported.standardOutput.utf8).write(to: file)
        let deleted = try StrataRunner.run(["delete", "Book", "--all", "--yes", "--store", copy])
        #expect(deleted.status == 0, "\(deleted.standardError)")
        let imported = try StrataRunner.run(["import", "Book", file.path, "--store", copy])
        #expect(imported.status == 0, "\(imported.standardError)")
        #expect(imported.standardOutput == "Book: 12 created\n")
        let again = try StrataRunner.run(["export", "Book", "--store", copy, "--format", "csv"])
        #expect(again.standardOutput == exported.standardOutput)
    }
}
