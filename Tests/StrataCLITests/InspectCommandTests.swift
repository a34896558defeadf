import Foundation
import Strata
import Testing
import StrataTestSupport

/// `strata inspect` on the real Core Data stores: what it counts must be what SQLite counts per
/// `Z_ENT`, and the stores must not change.
@Suite(.enabled(if: StrataRunner.fixturesAvailable, "shared/fixtures/coredata not found: fixture test skipped"))
struct InspectCommandTests {
    static let stores = StrataRunner.sharedFixtures.appendingPathComponent("real-stores")
    static let models = StrataRunner.sharedFixtures.appendingPathComponent("models")

    /// Entity row counts as the fixtures README records them.
    static let expectedCounts: [String: [String: Int]] = [
        "CoreDataBooks.sqlite": ["Book": 12],
        "TavantTrade.sqlite": ["FeedbackCategory": 19, "FeedbackSubCategory": 79],
        "FinalCutEvent.sqlite": ["CatalogRoot": 1, "CatalogRootMD": 1, "Collection": 53, "CollectionMD": 23],
        "FinalCutLibrary.sqlite": ["CatalogRoot": 1, "CatalogRootMD": 1, "Collection": 15, "CollectionMD": 11],
    ]

    @Test(arguments: ["CoreDataBooks.sqlite", "TavantTrade.sqlite", "FinalCutEvent.sqlite", "FinalCutLibrary.sqlite"])
    func entityCountsEqualWhatSQLiteCountsPerEntity(name: String) throws {
        let store = Self.stores.appendingPathComponent(name)
        let before = try Data(contentsOf: store)
        var runs = [["inspect", "--format", "json", "--store", store.path]]
        if name == "TavantTrade.sqlite" {
            runs.append(runs[0] + ["--model", Self.models.appendingPathComponent("TavantTrade.xcdatamodeld").path])
        }
        let sqliteCounts = try countsPerEntity(store)
        #expect(sqliteCounts == Self.expectedCounts[name])
        for arguments in runs {
            let result = try StrataRunner.run(arguments)
            #expect(result.status == 0, "\(result.standardError)")
            let report = try JSONReader.parse(Data(result.standardOutput.utf8))
            var counts: [String: Int] = [:]
            for entity in report["entities"]?.arrayValue ?? [] {
                counts[entity["name"]?.stringValue ?? ""] = entity["rows"]?.intValue
            }
            #expect(counts == sqliteCounts, "\(arguments)")
        }
        #expect(try Data(contentsOf: store) == before, "\(name) changed")
        for suffix in ["-wal", "-shm", "-journal"] {
            #expect(!FileManager.default.fileExists(atPath: store.path + suffix), "inspect left \(name)\(suffix)")
        }
    }

    /// Counts rows per `Z_ENT` with SQL of its own, beside Strata's store code.
    private func countsPerEntity(_ store: URL) throws -> [String: Int] {
        let database = try Database(path: store.path, configuration: .readOnly)
        var counts: [String: Int] = [:]
        for row in try database.rows("SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY") {
            let name = row[1].stringValue ?? ""
            let table = "Z" + name.uppercased()
            guard row[2].int64Value == 0 else { continue }
            for count in try database.rows("SELECT Z_ENT, COUNT(*) FROM \(table) GROUP BY Z_ENT") {
                let entity = try database.scalar("SELECT Z_NAME FROM Z_PRIMARYKEY WHERE Z_ENT = ?", [count[0]])?.stringValue ?? ""
                counts[entity] = Int(count[1].int64Value ?? 0)
            }
            counts[name] = counts[name] ?? 0
        }
        return counts
    }

    @Test func summaryNamesTheModelSourceAndMatch() throws {
        let cache = try StrataRunner.run(["inspect", "--store", Self.stores.appendingPathComponent("FinalCutEvent.sqlite").path])
        #expect(cache.standardOutput.contains("model       model cache (Z_MODELCACHE)"))
        #expect(cache.standardOutput.contains("match       the model matches the store"))
        #expect(cache.standardOutput.contains("3      Collection     -       ZCOLLECTION     53"))
        let inferred = try StrataRunner.run(["inspect", "--store", Self.stores.appendingPathComponent("CoreDataBooks.sqlite").path])
        #expect(inferred.standardOutput.contains("model       inferred from the schema"))
        #expect(inferred.standardOutput.contains("journal     delete, page size 2048"))
    }

    @Test func entityDetailShowsColumnsJoinTablesIndexesAndRows() throws {
        let result = try StrataRunner.run(
            ["inspect", "Collection", "--limit", "2", "--store", Self.stores.appendingPathComponent("FinalCutEvent.sqlite").path])
        #expect(result.status == 0)
        let output = result.standardOutput
        #expect(output.contains("Collection  (Z_ENT 3, table ZCOLLECTION, 53 rows)"))
        #expect(output.contains("flags       Integer 32  ZFLAGS"))
        #expect(output.contains("childCollections   Collection    parentCollections  to-many      join table Z_3CHILDCOLLECTIONS"))
        #expect(output.contains("CREATE INDEX Z_Collection_identifier ON ZCOLLECTION (ZIDENTIFIER COLLATE BINARY ASC)"))
        #expect(output.contains("first 2 rows"))
        let json = try StrataRunner.run(
            ["inspect", "FeedbackSubCategory", "--format", "json", "--limit", "1", "--store", Self.stores.appendingPathComponent("TavantTrade.sqlite").path,
             "--model", Self.models.appendingPathComponent("TavantTrade.xcdatamodeld").path])
        let entity = try JSONReader.parse(Data(json.standardOutput.utf8))
        #expect(entity["rows"]?.intValue == 79)
        let category = entity["relationships"]?.arrayValue?.first
        #expect(category?["table"]?.stringValue == "ZFEEDBACKSUBCATEGORY")
        #expect(category?["columns"]?.arrayValue?.map(\.stringValue) == ["ZCATEGORY"])
        #expect(category?["joinTable"]?.boolValue == false)
        #expect(entity["firstRows"]?.arrayValue?.count == 1)
    }

    @Test func aStoreOfAnotherModelIsRefusedNamingTheEntities() throws {
        let result = try StrataRunner.run([
            "inspect", "--store", Self.stores.appendingPathComponent("TavantTrade.sqlite").path,
            "--model", Self.models.appendingPathComponent("Sync-113.xcdatamodeld").path,
        ])
        #expect(result.status == 3)
        #expect(result.standardError.contains("the store was made with another model; entities that differ: AwesomeComment (only in the model)"))
        #expect(result.standardError.contains("leave out --model to use the store's own model"))
        #expect(result.standardOutput.isEmpty)
    }

    @Test func unknownEntityIsAUsageErrorWithASuggestion() throws {
        let result = try StrataRunner.run(["inspect", "FeedbackCategry", "--store", Self.stores.appendingPathComponent("TavantTrade.sqlite").path])
        #expect(result.status == 2)
        #expect(result.standardError.hasSuffix("no entity 'FeedbackCategry'; did you mean 'FeedbackCategory'?; entities: FeedbackCategory, FeedbackSubCategory\n"))
    }
}

/// Bad input to `strata inspect`: each a clear message and exit status, and nothing written.
@Suite struct InspectBadInputTests {
    /// Removed when the suite's instance goes away, after its test.
    private let temporary: TemporaryFolder
    var folder: URL { temporary.url }

    init() throws {
        temporary = try TemporaryFolder()
    }

    @Test func missingStoreOptionAndMissingFile() throws {
        let missing = try StrataRunner.run(["inspect"])
        #expect(missing.status == 2)
        #expect(missing.standardError == "strata: no store given: pass --store PATH or set STRATA_STORE\n")
        let path = folder.appendingPathComponent("nothing.sqlite").path
        let notFound = try StrataRunner.run(["inspect", "--store", path])
        #expect(notFound.status == 1)
        #expect(notFound.standardError == "strata: \(path): no such store\n")
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func aFileThatIsNotSQLite() throws {
        let path = folder.appendingPathComponent("notes.sqlite").path
        try Data("just some notes, long enough to look like it could be a database header".utf8).write(to: URL(fileURLWithPath: path))
        let result = try StrataRunner.run(["inspect", "--store", path])
        #expect(result.status == 3)
        #expect(result.standardError == "strata: \(path): not an SQLite database\n")
    }

    @Test func anSQLiteFileThatIsNotACoreDataStore() throws {
        let path = folder.appendingPathComponent("plain.sqlite").path
        try Database(path: path).execute("CREATE TABLE T (V); INSERT INTO T VALUES (1)")
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let result = try StrataRunner.run(["inspect", "--store", path])
        #expect(result.status == 3)
        #expect(result.standardError == "strata: \(path): not a Core Data store: it has no Z_PRIMARYKEY or Z_METADATA table\n")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test func aLockedStoreFailsAfterTheBusyTimeout() throws {
        let path = folder.appendingPathComponent("locked.sqlite").path
        var configuration = Database.Configuration()
        configuration.journalMode = .delete
        let model = ObjectModel(entities: [EntityDescription(name: "Item")])
        let store = try PersistentStore.create(at: path, model: model, configuration: configuration)
        try store.database.execute("BEGIN EXCLUSIVE")
        try store.database.execute("INSERT INTO ZITEM (Z_PK, Z_ENT, Z_OPT) VALUES (1, 1, 1)")
        let result = try StrataRunner.run(["inspect", "--store", path, "--busy-timeout", "0.2"])
        try store.database.execute("ROLLBACK")
        #expect(result.status == 1)
        #expect(result.standardError == "strata: \(path): the store is locked by another connection\n")
    }
}
