import Foundation
import Testing
@testable import Strata

/// DKDBManager's and KarthVader's examples, and the import's rules: keys, values, null and
/// missing keys, should-update, invalid objects, deprecated objects, errors.
@Suite struct ImportTests {
    static let books = """
        {"entities": [
          {"name": "Book", "attributes": [{"name": "name", "type": "string", "optional": false},
             {"name": "order", "type": "integer32"}, {"name": "updatedAt", "type": "date"}],
           "relationships": [{"name": "pages", "destination": "Page", "inverse": "book", "toMany": true, "ordered": true, "deleteRule": "cascade"}],
           "uniquenessConstraints": [["name"]],
           "userInfo": {"strata.updatedAtKey": "updatedAt", "strata.invalidIf": "name BEGINSWITH 'DRAFT'"}},
          {"name": "Page", "attributes": [{"name": "text", "type": "string"}, {"name": "pageID", "type": "integer64"}],
           "relationships": [{"name": "book", "destination": "Book", "inverse": "pages"}]}
        ]}
        """

    @Test func dkdbManagerBooksAndPagesWithAReimportThatDropsABook() throws {
        let fixture = try ImportFixture(modelJSON: Self.books)
        let first = try fixture.importJSON("""
            {"books": [
              {"name": "LOTR", "order": 1, "updatedAt": "2024-01-01T00:00:00Z", "pages": [{"pageID": 1, "text": "one"}, {"pageID": 2, "text": "two"}]},
              {"name": "Hobbit", "order": 2, "updated_at": "2024-01-01T00:00:00Z", "pages": [{"pageID": 3, "text": "three"}]},
              {"name": "Silmarillion", "order": 3, "pages": [{"pageID": 4, "text": "four"}]}
            ]}
            """)
        #expect(first.count("Book", .created) == 3)
        #expect(first.count("Page", .created) == 4)
        #expect(try fixture.related("Book", where: "name == 'LOTR'", "pages", "text") == ["one", "two"])

        let second = try fixture.importJSON("""
            [{"name": "LOTR", "order": 1, "updatedAt": "2024-01-01T00:00:00Z", "pages": [{"pageID": 1, "text": "CHANGED BUT NOT VISITED"}]},
             {"name": "Hobbit", "order": 5, "updatedAt": "2024-02-01T00:00:00Z", "pages": [{"pageID": 3, "text": "three, revised"}]}]
            """, into: "Book", prune: ["Book", "Page"])
        #expect(second.count("Book", .unchanged) == 1, "LOTR's updatedAt did not change: it is skipped")
        #expect(second.count("Book", .updated) == 1)
        #expect(second.count("Book", .deleted) == 1, "the Silmarillion is no longer in the payload")
        #expect(second.count("Page", .deleted) == 1, "its page goes by the Cascade rule; LOTR's pages count as seen")
        #expect(try fixture.values("Book", "name") == ["Hobbit", "LOTR"])
        #expect(try fixture.values("Page", "text", sortedBy: "pageID") == ["one", "two", "three, revised"])
        #expect(try fixture.values("Book", "order", sortedBy: "name") == ["5", "1"])
    }

    @Test func karthVaderUsersFollowingWithAMappedKey() throws {
        let fixture = try ImportFixture(modelJSON: """
            {"entities": [{"name": "User",
              "attributes": [{"name": "id", "type": "integer64"}, {"name": "name", "type": "string"},
                             {"name": "gender", "type": "string", "userInfo": {"mappedKeyName": "sex"}}],
              "relationships": [{"name": "following", "destination": "User", "inverse": "followers", "toMany": true},
                                {"name": "followers", "destination": "User", "inverse": "following", "toMany": true}]}]}
            """)
        let report = try fixture.importJSON("""
            [{"id": 1, "name": "Ann", "sex": "female", "following": [{"id": 2, "name": "Bob", "sex": "male"}, {"id": 3, "name": "Cid"}]},
             {"id": 2, "following": [{"id": 1}]}]
            """, into: "User")
        #expect(report.count("User", .created) == 3)
        #expect(try fixture.values("User", "gender", sortedBy: "id") == ["female", "male", nil])
        #expect(try fixture.related("User", where: "id == 1", "following", "name") == ["Bob", "Cid"])
        #expect(try fixture.related("User", where: "id == 1", "followers", "name") == ["Bob"])
        #expect(try fixture.values("User", "name", sortedBy: "id") == ["Ann", "Bob", "Cid"], "a missing key leaves the name")
        #expect(report.ignoredKeys.isEmpty, "sex is read through mappedKeyName: \(report.ignoredKeys)")
        let typo = try fixture.importJSON(#"[{"id": 1, "nmae": "Anne", "following_ids": [2]}]"#, into: "User")
        #expect(typo.ignoredKeys == ["User.nmae"])
    }

    @Test func nullClearsAndAMissingKeyLeavesAsItIs() throws {
        let fixture = try ImportFixture(modelJSON: Self.books)
        try fixture.importJSON(#"[{"name": "LOTR", "order": 1, "pages": [{"pageID": 1, "text": "one"}]}]"#, into: "Book")
        try fixture.importJSON(#"[{"name": "LOTR", "order": null}]"#, into: "Book")
        #expect(try fixture.values("Book", "order") == [nil])
        #expect(try fixture.related("Book", where: "name == 'LOTR'", "pages", "text") == ["one"], "pages were not in the record")
        try fixture.importJSON(#"[{"name": "LOTR", "pages": null}]"#, into: "Book")
        #expect(try fixture.related("Book", where: "name == 'LOTR'", "pages", "text") == [])
    }

    @Test func invalidObjectsAreDeletedWithTheirReason() throws {
        let fixture = try ImportFixture(modelJSON: Self.books)
        let report = try fixture.importJSON(#"[{"name": "DRAFT notes", "order": 1}, {"order": 2}, {"name": "Kept"}]"#, into: "Book")
        #expect(report.count("Book", .created) == 1)
        #expect(report.count("Book", .deleted) == 2)
        #expect(report.invalid.map(\.reason).sorted() == [#"matches strata.invalidIf name BEGINSWITH "DRAFT""#, "name is required"])
        #expect(try fixture.values("Book", "name") == ["Kept"])
    }

    @Test(arguments: [
        (#"[{"name": "A", "order": "seven"}]"#, #"record 1 (line 1, column 25): key 'order' for order (integer32): "seven" — a string that is not a number"#),
        (#"[{"name": "A"}, {"name": "B", "order": 4.5}]"#, "record 2 (line 1, column 40): key 'order' for order (integer32): 4.5 — 4.5 is not an integer in the range of integer32"),
        (#"[{"name": "A", "updatedAt": "yesterday"}]"#, #"record 1 (line 1, column 29): key 'updatedAt' for updatedAt (date): "yesterday" — "yesterday" is not an ISO 8601 date"#),
        (#"[{"name": "A", "pages": {"pageID": 1}}]"#, "record 1 (line 1, column 25): key 'pages' for pages: expected an array, found an object"),
        (#"[{"name": "A"}, 7]"#, "record 2 (line 1, column 17): expected an object for Book, found a number"),
        (#"[{"name": "A", "pages": [{"pageID": "x"}]}]"#, #"record 1.pages[1] (line 1, column 37): key 'pageID' for pageID (integer64): "x" — a string that is not a number"#),
    ])
    func aRecordThatDoesNotFitStopsTheImportAndChangesNothing(payload: String, message: String) throws {
        let fixture = try ImportFixture(modelJSON: Self.books)
        try fixture.importJSON(#"[{"name": "Kept", "order": 1}]"#, into: "Book")
        let error = try #require(throws: ImportError.self) { try fixture.importJSON(payload, into: "Book") }
        #expect(error.description == message)
        #expect(error.record.map { message.hasPrefix($0 + " (") } == true && error.location.map { message.contains("(\($0)): ") } == true)
        #expect(try fixture.values("Book", "name") == ["Kept"])
        #expect(try fixture.store.count(of: "Page") == 0)
    }

    @Test func valuesConvertWithoutLoss() throws {
        let fixture = try ImportFixture(modelJSON: """
            {"entities": [{"name": "Event", "attributes": [{"name": "remoteID", "type": "integer64"}, {"name": "at", "type": "date"},
              {"name": "day", "type": "date", "userInfo": {"dateFormat": "dd/MM/yyyy"}}, {"name": "flag", "type": "boolean"},
              {"name": "score", "type": "double"}, {"name": "label", "type": "string"}]}]}
            """)
        try fixture.importJSON("""
            [{"id": "1", "at": "2024-05-01T12:30:15.250+02:00", "day": "03/01/1892", "flag": 1, "score": "2.5", "label": 42},
             {"id": 2.0, "at": 1714566615, "flag": "no"},
             {"id": 3, "at": "2024-05-01"}, {"id": 4, "at": "2024-05-01T12:30"}]
            """, into: "Event")
        #expect(try fixture.values("Event", "at", sortedBy: "remoteID") == [
            "2024-05-01T10:30:15Z", "2024-05-01T12:30:15Z", "2024-05-01T00:00:00Z", "2024-05-01T12:30:00Z",
        ])
        #expect(try fixture.values("Event", "day", sortedBy: "remoteID") == ["1892-01-03T00:00:00Z", nil, nil, nil])
        #expect(try fixture.values("Event", "flag", sortedBy: "remoteID") == ["true", "false", nil, nil])
        #expect(try fixture.values("Event", "score", sortedBy: "remoteID") == ["2.5", nil, nil, nil])
        #expect(try fixture.values("Event", "label", sortedBy: "remoteID") == ["42", nil, nil, nil])
    }

    @Test func identityOverridesAndTheEntitysConventions() throws {
        let model = try JSONModelReader.read(Data(Self.books.utf8), path: "books.json")
        #expect(ImportIdentity.conventional(for: try #require(model.entity(named: "Book")), in: model) == .attribute("name"))
        #expect(ImportIdentity.conventional(for: try #require(model.entity(named: "Page")), in: model) == .attribute("pageID"))
        let fixture = try ImportFixture(model: model)
        try fixture.importJSON(#"[{"name": "A", "pages": [{"text": "x"}, {"text": "x"}]}]"#, into: "Book", identities: ["Page": .neverMatch])
        #expect(try fixture.store.count(of: "Page") == 2)
        // One object for the entity, updated by every record: the first page takes the last text.
        try fixture.importJSON(#"[{"text": "one"}, {"text": "two"}]"#, into: "Page", identities: ["Page": .singleton])
        #expect(try fixture.store.count(of: "Page") == 2)
        #expect(try fixture.values("Page", "text").sorted { ($0 ?? "") < ($1 ?? "") } == ["two", "x"])
        let unknown = try #require(throws: ImportError.self) {
            try fixture.importJSON(#"[{"name": "A"}]"#, into: "Book", identities: ["Book": .attribute("title")])
        }
        #expect(unknown.entity == "Book")
        guard case .unknownIdentity("Book", "title", let known) = unknown.problem else {
            Issue.record("expected .unknownIdentity, got \(unknown.problem)")
            return
        }
        #expect(known.contains("name"))
        #expect(unknown.description == "entity Book has no attribute 'title' to identify records by")
    }

    @Test func recordsKeyedDifferentlyEachReadTheirOwnKeys() throws {
        // Records keyed alike share their key tables: a record keyed otherwise, in another
        // order or another case, must not read through the tables of the one before it.
        let fixture = try ImportFixture(modelJSON: Self.books)
        let report = try fixture.importJSON("""
            [{"name": "A", "order": 1}, {"order": 2, "name": "B"}, {"name": "C", "ORDER": 3, "nmae": "typo"},
             {"name": "D", "Order": 4, "order": 5}, {"name": "E", "order": 6}]
            """, into: "Book")
        #expect(try fixture.values("Book", "order", sortedBy: "name") == ["1", "2", "3", "5", "6"])
        #expect(report.ignoredKeys == ["Book.nmae"])
        #expect(report.readKeys == ["Book.name", "Book.order", "Book.ORDER", "Book.Order"] && !report.readsNoKey, "\(report.readKeys)")
    }

    /// Records fed to the wrong entity: none of their keys is read, which the report says, so
    /// that `strata import` can refuse them.
    @Test func aReportSaysWhenNoKeyOfTheRecordsFitsTheirEntity() throws {
        let fixture = try ImportFixture(modelJSON: Self.books)
        let wrong = try fixture.importJSON(#"[{"title": "A", "chapters": 3}, {"title": "B"}]"#, into: "Book")
        #expect(wrong.readsNoKey && wrong.readKeys.isEmpty && wrong.ignoredKeys == ["Book.title", "Book.chapters"])
        let empty = try fixture.importJSON(#"[{}]"#, into: "Book")
        #expect(!empty.readsNoKey, "a record without keys has no key that fails to fit")
    }

    @Test func snakeCaseNames() {
        #expect(ImportKeys.snakeCase("userID") == "user_id")
        #expect(ImportKeys.snakeCase("createdAt") == "created_at")
        #expect(ImportKeys.snakeCase("URLString") == "url_string")
        #expect(ImportKeys.snakeCase("page2Text") == "page2_text")
    }
}
