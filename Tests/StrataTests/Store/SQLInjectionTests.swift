import Foundation
import Testing
@testable import Strata
import StrataTestSupport

/// No name or value from input becomes SQL text: hostile names are refused by the model's
/// validation (names become table and column names), SQL keywords are fine as names, and
/// hostile values go through insert, fetch, predicates and import unchanged, with no effect.
@Suite struct SQLInjectionTests {
    /// Text that would change a statement if it were pasted into SQL, or into a format string.
    static let hostileValues = [
        "'", "\"", "''", "'; DROP TABLE ZBOOK; --", "\" OR 1=1 --", "x' OR '1'='1", "`; DELETE FROM Z_PRIMARYKEY; --",
        "[ZBOOK]", "%@", "%d %s %%", "?", "?1", ":name", "@p", "$p", "\\'", "line\nbreak\r\n", "tab\there",
        "zero\u{0}byte", "Bücher 📚 \u{202E}reversed", "ATTACH DATABASE '/tmp/x' AS x", String(repeating: "'", count: 10_000),
    ]

    static let bookModel = """
        {"entities": [{"name": "Book", "attributes": [{"name": "title", "type": "string"}, {"name": "n", "type": "integer64"}]}]}
        """

    // MARK: - Names

    @Test(arguments: [
        "Book\"; DROP TABLE ZBOOK; --", "Bo'ok", "Bo`ok`", "[Book]", "Book%@", "Bücher", "Book Shelf", "Book;", "1Book", "",
    ])
    func hostileEntityAndPropertyNamesAreRefusedNamingThem(name: String) throws {
        var entity = EntityDescription(name: name)
        entity.attributes = [AttributeDescription(name: "title", type: .string)]
        var other = EntityDescription(name: "Shelf")
        other.attributes = [AttributeDescription(name: name, type: .string)]
        var relationship = RelationshipDescription(name: name, destination: "Shelf")
        relationship.inverseName = nil
        other.relationships = [relationship]
        let model = ObjectModel(entities: [entity, other])
        let rule = "must start with a letter or _ and hold only letters, digits and _"
        let issues = model.validate().map(\.description)
        #expect(issues.contains("error: entity '\(name)': the entity name \(rule)") || name.isEmpty, "\(issues)")
        #expect(issues.contains("error: entity 'Shelf', property '\(name)': the property name \(rule)") || name.isEmpty, "\(issues)")
        let folder = try TemporaryFolder()
        #expect(throws: StoreError.self) { try PersistentStore.create(at: folder.path("hostile.sqlite"), model: model) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).isEmpty)
    }

    @Test func aHostileFetchIndexNameIsRefused() throws {
        var book = EntityDescription(name: "Book")
        book.attributes = [AttributeDescription(name: "title", type: .string)]
        book.fetchIndexes = [FetchIndexDescription(name: "x ON ZBOOK (ZTITLE); DROP TABLE Z_METADATA; --", elements: [.init(property: "title")])]
        let model = ObjectModel(entities: [book])
        #expect(model.validate().map(\.description) == [
            "error: entity 'Book': the fetch index name 'x ON ZBOOK (ZTITLE); DROP TABLE Z_METADATA; --' must start with a letter or _ and hold only letters, digits and _",
        ])
        let folder = try TemporaryFolder()
        #expect(throws: StoreError.self) { try PersistentStore.create(at: folder.path("index.sqlite"), model: model) }
    }

    /// SQL keywords are valid names: every table and column name Strata makes starts with `Z`.
    @Test func sqlKeywordsAsNamesWorkEverywhere() throws {
        let fixture = try ImportFixture(modelJSON: """
            {"entities": [
              {"name": "Order", "attributes": [{"name": "select", "type": "string"}, {"name": "where", "type": "integer32"},
                 {"name": "from", "type": "string"}, {"name": "order", "type": "integer32"}, {"name": "group", "type": "string"}],
               "relationships": [{"name": "table", "destination": "Group", "inverse": "index", "toMany": true},
                 {"name": "values", "destination": "Group", "inverse": "by", "toMany": true, "ordered": true}]},
              {"name": "Group", "attributes": [{"name": "having", "type": "string"}],
               "relationships": [{"name": "index", "destination": "Order", "inverse": "table", "toMany": true},
                 {"name": "by", "destination": "Order", "inverse": "values"}]}
            ]}
            """)
        try fixture.importJSON("""
            [{"select": "a", "where": 2, "from": "x", "order": 1, "group": "g", "table": [{"having": "h1"}, {"having": "h2"}], "values": [{"having": "v"}]},
             {"select": "b", "where": 1, "from": "y", "order": 2, "group": "g", "table": [{"having": "h3"}]}]
            """, into: "Order")
        let context = fixture.context
        try context.performAndWait {
            let request = FetchRequest(
                entityName: "Order", predicate: try ObjectPredicate.where("where > %@ AND group == 'g' AND ANY table.having == 'h1'", 1),
                sortDescriptors: [ObjectSortDescriptor("order")])
            let found = try context.fetch(request)
            #expect(try found.map { try $0.value(forKey: "select") as? String } == ["a"])
            #expect(try context.count("Group", where: ObjectPredicate(format: "ANY index.from == 'y'")) == 1)
            #expect(try context.count("Group", where: ObjectPredicate(format: "by.select == 'a'")) == 1)
        }
    }

    // MARK: - Values

    @Test func hostileValuesRoundTripThroughInsertFetchAndPredicates() throws {
        let fixture = try ImportFixture(modelJSON: Self.bookModel)
        let context = fixture.context
        let schema = try normalizedSchema(of: fixture.store.database)
        try context.performAndWait {
            for (index, value) in Self.hostileValues.enumerated() {
                let book = try context.insert("Book")
                try book.setValue(value, forKey: "title")
                try book.setValue(Int64(index), forKey: "n")
            }
            try context.save()
        }
        let reader = ObjectContext(store: try PersistentStore.open(at: fixture.store.path, model: fixture.store.model), name: "reader")
        try reader.performAndWait {
            for (index, value) in Self.hostileValues.enumerated() {
                let found = try reader.fetch(FetchRequest(entityName: "Book", predicate: try ObjectPredicate.where("title == %@", value)))
                #expect(try found.map { try $0.value(forKey: "n") as? Int64 } == [Int64(index)], "\(value.debugDescription)")
                #expect(try found.first?.value(forKey: "title") as? String == value)
                #expect(try reader.count("Book", where: ObjectPredicate.where("title BEGINSWITH %@ AND n == %@", value, Int64(index))) == 1)
            }
            #expect(try reader.count("Book", where: nil) == Self.hostileValues.count)
            // A quoted literal holding SQL in the predicate's own text is a value too.
            #expect(try reader.count("Book", where: ObjectPredicate(format: #"title == "'; DROP TABLE ZBOOK; --" OR title == 'x\' OR \'1\'=\'1'"#)) == 2)
            #expect(try reader.count("Book", where: ObjectPredicate.where("title LIKE %@", "%")) == 0)
            #expect(try reader.count("Book", where: ObjectPredicate.where("title CONTAINS %@", "'; DROP")) == 1)
        }
        #expect(try normalizedSchema(of: fixture.store.database) == schema)
    }

    @Test func hostileValuesAndKeysRoundTripThroughImport() throws {
        let fixture = try ImportFixture(modelJSON: Self.bookModel)
        let records = Self.hostileValues.enumerated().map { index, value in
            JSONValue.object([JSONMember("title", .string(value)), JSONMember("n", .number(Int64(index))), JSONMember("n'; DROP TABLE ZBOOK; --", .number(1))])
        }
        let tablesBefore = try fixture.store.database.tableNames().sorted()
        try fixture.importJSON(JSONWriter.string(from: .array(records), pretty: false), into: "Book")
        let titles = try fixture.values("Book", "title", sortedBy: "n")
        #expect(titles == Self.hostileValues.map { Optional($0) })
        let tables = try fixture.store.database.tableNames().sorted()
        #expect(tables == tablesBefore)
    }
}
