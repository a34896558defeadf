import Foundation
import Testing
@testable import Strata

/// An import that writes the rows of plain entities straight to the store
/// (``ImportSession/writesRowsDirectly``) must leave the store, the report and the objects
/// seen as the import through objects leaves them.
@Suite struct ImportRowsTests {
    /// A plain entity with every kind of rule: required, ranges, lengths, patterns, defaults,
    /// mapped and nested keys, and a uniqueness constraint on its identity.
    static let people = """
        {"entities": [{"name": "Person", "uniquenessConstraints": [["id"]],
          "attributes": [
            {"name": "id", "type": "integer64"},
            {"name": "name", "type": "string", "optional": false, "min": "2"},
            {"name": "age", "type": "integer16", "min": "0", "max": "150"},
            {"name": "score", "type": "double", "default": "1.5"},
            {"name": "city", "type": "string", "regularExpression": "[A-Z].*", "userInfo": {"mappedKeyName": "address.city"}},
            {"name": "note", "type": "string", "userInfo": {"mappedKeyName": "remark"}},
            {"name": "active", "type": "boolean", "default": "YES"},
            {"name": "bornAt", "type": "date"},
            {"name": "photo", "type": "binary"}]}]}
        """

    /// What an import left: the table and its `Z_MAX`, and the session's report.
    struct Outcome: Equatable, CustomStringConvertible {
        var rows: [String]
        var maximumKey: Int64
        var report: ImportReport
        var deprecated: Int

        var description: String { (rows + ["Z_MAX \(maximumKey)", "\(report)", "invalid \(report.invalid)", "deprecated \(deprecated)"]).joined(separator: "\n") }
    }

    /// Imports `batches` of records into `entity` as `strata import` does (one session, one
    /// outer transaction, a save after each batch), then removes the objects the records did
    /// not hold when `prunes`; first into a store holding `seed`.
    static func importing(
        _ batches: [String], into entity: String = "Person", seed: String? = nil, prunes: Bool = false, writesRows: Bool,
        model: String = people
    ) throws -> Outcome {
        let fixture = try ImportFixture(modelJSON: model)
        let store = fixture.store, context = fixture.context
        if let seed {
            try fixture.importJSON(seed, into: entity)
            context.performAndWait { context.reset() }
        }
        return try context.performAndWait {
            try store.withConnection {
                try store.database.inOuterTransaction {
                    let session = ImportSession(context: context)
                    session.writesRowsDirectly = writesRows
                    var first = 0
                    for batch in batches {
                        guard let records = try JSONReader.parse(Data(batch.utf8)).arrayValue else { throw ImportError("not an array") }
                        try session.import(records: records, into: entity, firstIndex: first)
                        #expect(context.registeredObjects.isEmpty == writesRows, "rows are written without objects")
                        try session.saveAndReset()
                        first += records.count
                    }
                    let deprecated = prunes ? try session.removeDeprecated([entity]) : 0
                    try session.saveAndReset()
                    let table = try #require(store.layout.entity(named: entity)).tableName
                    let rows = try store.database.rows("SELECT * FROM \(table) ORDER BY Z_PK").map { row in
                        row.map { String(describing: $0) }.joined(separator: " | ")
                    }
                    let maximum = try store.database.scalar("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = ?", [.text(entity)])?.int64Value ?? -1
                    return Outcome(rows: rows, maximumKey: maximum, report: session.report, deprecated: deprecated)
                }
            }
        }
    }

    static func bothWays(_ batches: [String], seed: String? = nil, prunes: Bool = false) throws -> (rows: Outcome, objects: Outcome) {
        (try importing(batches, seed: seed, prunes: prunes, writesRows: true), try importing(batches, seed: seed, prunes: prunes, writesRows: false))
    }

    // MARK: - The same result

    @Test func newRecordsGiveTheObjectsRows() throws {
        let outcome = try Self.bothWays([
            """
            [{"id": 1, "name": "Ann", "age": 30, "address": {"city": "Oslo"}, "remark": "first", "bornAt": "1990-05-01", "photo": "AAEC"},
             {"id": 2, "Name": "Bob", "age": 200},
             {"id": 3, "name": "Cy", "extra": true},
             {"id": 1, "score": 9.5, "active": false},
             {"id": 4, "name": "Di", "address": {"city": "lowercase"}},
             {"id": 5, "age": 40},
             {"id": null, "name": "Nobody"},
             {"name": "Nameless too"}]
            """,
        ])
        #expect(outcome.rows == outcome.objects, "rows:\n\(outcome.rows)\nobjects:\n\(outcome.objects)")
        #expect(outcome.rows.report.count("Person", .created) == 4)
        #expect(outcome.rows.report.count("Person", .deleted) == 3, "Bob's age, Di's city and 5's missing name")
        #expect(outcome.rows.report.invalid.map(\.object) == ["2", "4", "5"])
        #expect(outcome.rows.report.ignoredKeys == ["Person.extra"])
        #expect(outcome.rows.rows.count == 4 && outcome.rows.maximumKey == 4)
    }

    @Test func upsertsGiveTheObjectsRows() throws {
        let seed = """
            [{"id": 1, "name": "Ann", "age": 30, "remark": "kept"}, {"id": 2, "name": "Bob", "age": 40},
             {"id": 3, "name": "Cy", "age": 50}, {"id": 4, "name": "Di"}, {"id": 5, "name": "Ed", "age": 7}]
            """
        let outcome = try Self.bothWays([
            """
            [{"id": 1, "name": "Ann", "age": 30},
             {"id": 2, "name": "Bobby", "remark": null},
             {"id": 3, "age": -1},
             {"id": 6, "name": "Fay"},
             {"id": 6, "age": 60},
             {"id": 7, "name": "G"}]
            """,
            """
            [{"id": 6, "name": "Fay", "age": 61}, {"id": 2, "name": "Bobby"}, {"id": 8, "name": "Hal"}]
            """,
        ], seed: seed, prunes: true)
        #expect(outcome.rows == outcome.objects, "rows:\n\(outcome.rows)\nobjects:\n\(outcome.objects)")
        let report = outcome.rows.report
        #expect(report.count("Person", .created) == 2, "6 and 8; 7's name is too short")
        #expect(report.count("Person", .updated) == 1, "2; 1 and the second 2 change nothing")
        #expect(report.count("Person", .unchanged) == 1)
        #expect(report.count("Person", .deleted) == 4, "3 made invalid, 7 invalid when new, and the 2 pruned")
        #expect(outcome.rows.deprecated == 2, "4 and 5 were not in the records")
        #expect(report.invalid.map(\.object) == ["3", "7"])
    }

    @Test func aBatchBiggerThanALookUpQueryFindsEveryRow() throws {
        let count = PersistentStore.lookupChunkSize * 2 + 7
        let seed = "[" + (1...count).map { #"{"id": \#($0), "name": "P\#($0)"}"# }.joined(separator: ",") + "]"
        let changes = "[" + (1...(count + 3)).map { #"{"id": \#($0), "name": "P\#($0 % 3 == 0 ? $0 + 1 : $0)"}"# }.joined(separator: ",") + "]"
        let outcome = try Self.bothWays([changes], seed: seed)
        #expect(outcome.rows == outcome.objects)
        #expect(outcome.rows.report.count("Person", .created) == 3)
        #expect(outcome.rows.report.count("Person", .updated) == count / 3)
    }

    // MARK: - Which way

    @Test func rowsAreInTheStoreAtOnceWithNoObjectMade() throws {
        let fixture = try ImportFixture(modelJSON: Self.people)
        try fixture.context.performAndWait {
            let session = ImportSession(context: fixture.context)
            session.writesRowsDirectly = true
            try session.import(try JSONReader.parse(Data(#"[{"id": 1, "name": "Ann"}]"#.utf8)), into: "Person")
            #expect(fixture.context.registeredObjects.isEmpty)
            #expect(!fixture.context.hasChanges)
            #expect(try fixture.store.count(of: "Person") == 1)
        }
    }

    @Test func objectsTheContextHoldsOrACallbackWantsGoThroughObjects() throws {
        let fixture = try ImportFixture(modelJSON: Self.people)
        try fixture.importJSON(#"[{"id": 1, "name": "Ann"}]"#, into: "Person")
        try fixture.context.performAndWait {
            let ann = try #require(try fixture.context.fetch(FetchRequest(entityName: "Person")).first)
            let session = ImportSession(context: fixture.context)
            session.writesRowsDirectly = true
            try session.import(try JSONReader.parse(Data(#"[{"id": 1, "name": "Anne"}, {"id": 2, "name": "Bob"}]"#.utf8)), into: "Person")
            #expect(try ann.attributeValue(forKey: "name") == .string("Anne"), "the held object sees the change")
            #expect(try fixture.store.count(of: "Person") == 1, "nothing written before the save")
            try fixture.context.save()
            fixture.context.reset()

            var called = 0
            let counted = ImportSession(context: fixture.context)
            counted.writesRowsDirectly = true
            counted.onObject = { _, _ in called += 1 }
            try counted.import(try JSONReader.parse(Data(#"[{"id": 3, "name": "Cy"}]"#.utf8)), into: "Person")
            #expect(called == 1)
            #expect(fixture.context.hasChanges)
        }
    }

    @Test func entitiesWithLinksGoThroughObjects() throws {
        let fixture = try ImportFixture(modelJSON: ImportTests.books)
        try fixture.context.performAndWait {
            let session = ImportSession(context: fixture.context)
            session.writesRowsDirectly = true
            try session.import(try JSONReader.parse(Data(#"[{"name": "LOTR", "pages": [{"pageID": 1, "text": "one"}]}]"#.utf8)), into: "Book")
            #expect(fixture.context.hasChanges)
            try fixture.context.save()
        }
        #expect(try fixture.related("Book", where: "name == 'LOTR'", "pages", "text") == ["one"])
    }

    // MARK: - Nothing lost

    @Test func aBadRecordWritesNothingOfItsBatch() throws {
        let fixture = try ImportFixture(modelJSON: Self.people)
        try fixture.context.performAndWait {
            let session = ImportSession(context: fixture.context)
            session.writesRowsDirectly = true
            let records = try JSONReader.parse(Data(#"[{"id": 1, "name": "Ann"}, {"id": 2, "name": "Bob", "age": "old"}]"#.utf8))
            #expect(throws: ImportError.self) { try session.import(records, into: "Person") }
        }
        #expect(try fixture.store.count(of: "Person") == 0)
    }

    @Test func anOuterRollBackTakesTheRowsBack() throws {
        let fixture = try ImportFixture(modelJSON: Self.people)
        try fixture.importJSON(#"[{"id": 1, "name": "Ann"}]"#, into: "Person")
        struct Abandon: Error {}
        let store = fixture.store
        let context = ObjectContext(store: store, name: "abandoned import")
        #expect(throws: Abandon.self) {
            try context.performAndWait {
                try store.withConnection {
                    try store.database.inOuterTransaction {
                        let session = ImportSession(context: context)
                        session.writesRowsDirectly = true
                        try session.import(try JSONReader.parse(Data(#"[{"id": 1, "name": "Anne"}, {"id": 2, "name": "Bob"}]"#.utf8)), into: "Person")
                        #expect(try store.count(of: "Person") == 2)
                        throw Abandon()
                    }
                }
            }
        }
        #expect(try fixture.values("Person", "name", sortedBy: "id") == ["Ann"])
        #expect(try store.database.scalar("SELECT Z_MAX FROM Z_PRIMARYKEY")?.int64Value == 1)
    }

    @Test func contextsThatMergeHearOfTheRows() throws {
        let fixture = try ImportFixture(modelJSON: Self.people)
        try fixture.importJSON(#"[{"id": 1, "name": "Ann"}]"#, into: "Person")
        let viewer = ObjectContext(store: fixture.store, name: "viewer")
        let ann = try viewer.performAndWait { try #require(try viewer.fetch(FetchRequest(entityName: "Person")).first) }
        let importer = ObjectContext(store: fixture.store, name: "importer")
        let observation = importer.addDidSaveObserver { note in viewer.performAndWait { viewer.mergeChanges(fromContextDidSave: note) } }
        try importer.performAndWait {
            let session = ImportSession(context: importer)
            session.writesRowsDirectly = true
            try session.import(try JSONReader.parse(Data(#"[{"id": 1, "name": "Anne"}]"#.utf8)), into: "Person")
        }
        let name = try viewer.performAndWait { try ann.attributeValue(forKey: "name") }
        #expect(name == .string("Anne"))
        withExtendedLifetime(observation) {}
    }
}
