import Foundation
import Testing
@testable import Strata

/// Sync's payloads from its own tests, imported into its models in the shared fixtures.
@Suite(.enabled(if: Fixtures.available, Fixtures.skipReason))
struct SyncImportTests {
    @Test func manyToManyLinksByIdentityKeysAndReimportReplacesTheSets() throws {
        let fixture = try ImportFixture(sharedModel: "Sync-151-many-to-many")
        try fixture.importJSON(#"[{"id": "0", "name": "Tag 0"}, {"id": "1", "name": "Tag 1"}]"#, into: "Tag")
        try fixture.importJSON(#"[{"id": 0, "name": "Note 0", "tags_ids": ["0", "1"]}, {"id": 3, "name": "Note 3", "tags_ids": ["1"]}]"#, into: "Note")
        let report = try fixture.importFile("151-many-to-many-notes-update.json", into: "Note")
        #expect(report.count("Note", .created) == 2)
        #expect(report.count("Note", .updated) == 2)
        #expect(try fixture.related("Note", where: "noteID == 0", "tags", "name") == ["Tag 0"])
        #expect(try fixture.related("Note", where: "noteID == 1", "tags", "name") == [])
        #expect(try fixture.related("Note", where: "noteID == 2", "tags", "name") == ["Tag 0", "Tag 1"])
        #expect(try fixture.related("Note", where: "noteID == 3", "tags", "name") == [], "tags_ids: null clears the set")
        #expect(try fixture.related("Tag", where: "tagID == '1'", "notes", "name") == ["Note 2"], "inverses follow")
        #expect(try fixture.values("Note", "name", sortedBy: "noteID") == ["Note 0", "Note 1", "Note 2", "Note 3"])
        #expect(try fixture.store.count(of: "Note") == 4)
    }

    @Test func nestedCommentsWithoutIDsAndACustomRelationshipKey() throws {
        let fixture = try ImportFixture(sharedModel: "Sync-113")
        let report = try fixture.importFile("bug-113-stories-comments-no-ids.json", into: "AwesomeStory")
        #expect(report.count("AwesomeStory", .created) == 3)
        #expect(report.count("AwesomeComment", .created) == 9)
        #expect(try fixture.related("AwesomeStory", where: "remoteID == 0", "awesomeComments", "body") == ["comment 1", "comment 2", "comment 3"])
        #expect(try fixture.related("AwesomeStory", where: "remoteID == 1", "awesomeComments", "body") == ["comment 4", "comment 5", "comment 6"])
        // The comments are identified by their body (hyper.isPrimaryKey): importing again finds them.
        let again = try fixture.importFile("bug-113-stories-comments-no-ids.json", into: "AwesomeStory")
        #expect(again.count("AwesomeComment", .unchanged) == 9)
        #expect(again.count("AwesomeStory", .unchanged) == 3)
        #expect(again.counts.values.allSatisfy { $0[.created] == nil && $0[.updated] == nil })
        #expect(try fixture.store.count(of: "AwesomeComment") == 9)

        try fixture.importFile("bug-113-custom_relationship_key_to_one.json", into: "AwesomeStory")
        #expect(try fixture.related("AwesomeStory", where: "remoteID == 50", "awesomeSummarize", "body") == ["Body of tale"])
    }

    @Test func snakeAndCamelCaseKeysAndARecordRepeatedInThePayload() throws {
        let fixture = try ImportFixture(modelJSON: """
            {"entities": [{"name": "User", "attributes": [
                {"name": "remoteID", "type": "string"}, {"name": "numberOfChildren", "type": "integer32"},
                {"name": "fullName", "type": "string"}, {"name": "firstName", "type": "string"}, {"name": "lastName", "type": "string"}]}]}
            """)
        let report = try fixture.importFile("camelcase.json", into: "User")
        #expect(report.count("User", .created) == 1)
        #expect(try fixture.values("User", "firstName") == ["Elvis"])
        #expect(try fixture.values("User", "lastName") == ["Nuñez"])
        #expect(try fixture.values("User", "fullName") == ["Elvis Nuñez"])
        #expect(try fixture.values("User", "numberOfChildren") == ["1"])
    }

    @Test func remoteKeysAndMappedKeyNames() throws {
        let fixture = try ImportFixture(modelJSON: """
            {"entities": [{"name": "Entity", "attributes": [
                {"name": "remoteID", "type": "integer64"},
                {"name": "current", "type": "string", "userInfo": {"hyper.remoteKey": "custom_current"}},
                {"name": "old", "type": "string", "userInfo": {"mappedKeyName": "missing", "mappedKeyName.1": "custom_old"}}]}]}
            """)
        try fixture.importFile("remote_key.json", into: "Entity")
        #expect(try fixture.values("Entity", "current") == ["current"])
        #expect(try fixture.values("Entity", "old") == ["old"])
        #expect(try fixture.values("Entity", "remoteID") == ["1"])
    }
}
