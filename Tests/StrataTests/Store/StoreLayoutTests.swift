import Foundation
import Testing
@testable import Strata

/// Core Data's layout rules, pinned on the example model and on cases the fixtures lack.
@Suite struct StoreLayoutTests {
    @Test func libraryModelGetsCoreDataTablesColumnsAndIndexes() throws {
        let model = try ModelLoader.load(Fixtures.exampleModel).currentVersion.model
        let layout = StoreLayout(model: model)
        #expect(layout.entities.map { "\($0.number) \($0.name) \($0.superNumber) \($0.numberRange)" } == [
            "1 Author 0 1...1", "2 Book 0 2...3", "3 EBook 2 3...3", "4 Page 0 4...4", "5 Tag 0 5...5",
        ])
        #expect(layout.createStatements == [
            "CREATE TABLE ZAUTHOR ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZREMOTEID INTEGER, ZBORN TIMESTAMP, ZNAME VARCHAR )",
            "CREATE TABLE ZBOOK ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZAUTHOR INTEGER, ZFILESIZE INTEGER, ZPUBLISHED TIMESTAMP, ZRATING FLOAT, ZISBN VARCHAR, ZTITLE VARCHAR, ZFORMAT VARCHAR )",
            "CREATE TABLE Z_2TAGS ( Z_2BOOKS INTEGER, Z_5TAGS INTEGER, PRIMARY KEY (Z_2BOOKS, Z_5TAGS) )",
            "CREATE TABLE ZPAGE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNUMBER INTEGER, ZBOOK INTEGER, Z2_BOOK INTEGER, Z_FOK_BOOK INTEGER, ZTEXT VARCHAR )",
            "CREATE TABLE ZTAG ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR )",
            "CREATE UNIQUE INDEX Z_Author_UNIQUE_remoteID ON ZAUTHOR (ZREMOTEID COLLATE BINARY ASC)",
            "CREATE INDEX ZBOOK_ZAUTHOR_INDEX ON ZBOOK (ZAUTHOR)",
            "CREATE INDEX Z_2TAGS_Z_5TAGS_INDEX ON Z_2TAGS (Z_5TAGS, Z_2BOOKS)",
            "CREATE INDEX Z_Book_byTitleIndex ON ZBOOK (ZTITLE COLLATE BINARY ASC)",
            "CREATE UNIQUE INDEX Z_Book_UNIQUE_isbn ON ZBOOK (ZISBN COLLATE BINARY ASC)",
            "CREATE INDEX ZBOOK_Z_ENT_INDEX ON ZBOOK (Z_ENT)",
            "CREATE INDEX ZPAGE_ZBOOK_INDEX ON ZPAGE (ZBOOK)",
            "CREATE UNIQUE INDEX Z_Tag_UNIQUE_name ON ZTAG (ZNAME COLLATE BINARY ASC)",
        ])
        let page = try #require(layout.entity(named: "Page"))
        #expect(page.toOneColumns["book"] == StoreLayout.ToOneColumns(key: "ZBOOK", entity: "Z2_BOOK", order: "Z_FOK_BOOK"))
        #expect(layout.entity(named: "EBook")?.column(for: "title") == "ZTITLE")
    }

    @Test func collidingColumnNamesAreNumberedInTableOrder() {
        var event = EntityDescription(name: "Event")
        event.attributes = [AttributeDescription(name: "timeStamp", type: .date)]
        var meeting = EntityDescription(name: "Meeting")
        meeting.superentityName = "Event"
        meeting.attributes = [AttributeDescription(name: "timestamp", type: .date), AttributeDescription(name: "TIMESTAMP", type: .string)]
        let layout = StoreLayout(model: ObjectModel(entities: [event, meeting]))
        #expect(layout.tables[0].columns.map(\.name) == ["Z_PK", "Z_ENT", "Z_OPT", "ZTIMESTAMP", "ZTIMESTAMP1", "ZTIMESTAMP2"])
        #expect(layout.entity(named: "Meeting")?.attributeColumns == ["timeStamp": "ZTIMESTAMP", "timestamp": "ZTIMESTAMP1", "TIMESTAMP": "ZTIMESTAMP2"])
    }

    @Test func aRelationshipThatIsItsOwnInverseGetsTwoColumns() throws {
        let model = try ModelLoader.load(Fixtures.repositoryRoot.appendingPathComponent("examples/Library/Library.xcdatamodeld")).currentVersion.model
        var friends = RelationshipDescription(name: "friends", destination: "Author", isToMany: true)
        friends.inverseName = "friends"
        var withFriends = model
        withFriends.entities[0].relationships.append(friends)
        let join = try #require(StoreLayout(model: withFriends).joinTable(for: "Author", relationship: "friends"))
        #expect([join.name, join.sourceColumn, join.destinationColumn] == ["Z_1FRIENDS", "Z_1FRIENDS", "Z_1FRIENDS1"])
    }
}
