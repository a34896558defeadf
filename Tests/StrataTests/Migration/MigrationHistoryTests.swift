import Foundation
import Testing
@testable import Strata
import StrataTestSupport

/// A migration keeps the store's persistent history: the three tables, their rows, indexes and
/// `Z_PRIMARYKEY` rows, each change renumbered for the new model.
@Suite struct MigrationHistoryTests {
    /// The next version of ``TrackedStore/model()``: a new entity `Bin`
    /// sorting first (every other entity's number moves up) and a new attribute of `Item`
    /// (its properties' bits move), with `name` renamed to `title`.
    static func nextModel() -> ObjectModel {
        var model = TrackedStore.model()
        var bin = EntityDescription(name: "Bin")
        bin.attributes = [AttributeDescription(name: "size", type: .integer32)]
        let item = model.entities.firstIndex { $0.name == "Item" }!
        model.entities[item].attributes.append(AttributeDescription(name: "color", type: .string))
        let name = model.entities[item].attributes.firstIndex { $0.name == "name" }!
        model.entities[item].attributes[name].name = "title"
        model.entities[item].attributes[name].renamingIdentifier = "name"
        model.entities.insert(bin, at: 0)
        return model
    }

    @Test func aMigrationKeepsTheHistory() throws {
        let folder = try TemporaryFolder()
        let store = try TrackedStore.create(in: folder)
        let context = ObjectContext(store: store, name: "seed")
        context.transactionAuthor = "seeder"
        try context.performAndWait {
            let item = try context.make("Item", ["code": "X", "serial": 7])
            try context.make("Part", ["item": item])
            try context.save()
            try item.setValue("renamed", forKey: "name")
            try context.save()
            let gone = try context.make("Item", ["code": "Z"])
            try context.save()
            try context.delete(gone)
            try context.save()
        }
        let before = try store.fetchHistory(after: nil)
        let uuid = store.metadata.uuid
        store.close()
        #expect(before.count == 4)
        // A history trigger of the kind Core Data makes for batch deletions, kept in the file.
        let raw = try Database(path: store.path)
        try raw.execute("CREATE TRIGGER ZITEM_HISTORY_PROBE AFTER DELETE ON ZITEM BEGIN SELECT NSPersistentHistoryBatchDeleteUpdateTrigger(OLD.Z_PK); END")
        raw.close()
        let bundle = ModelBundle(
            url: URL(fileURLWithPath: "/models/Tracked.xcdatamodeld"),
            versions: [
                ModelBundle.Version(name: "V1", file: URL(fileURLWithPath: "/models/V1"), model: TrackedStore.model()),
                ModelBundle.Version(name: "V2", file: URL(fileURLWithPath: "/models/V2"), model: Self.nextModel()),
            ],
            currentVersionName: "V2", currentVersionReason: "the last")
        let migrator = try StoreMigrator(storePath: store.path, bundle: bundle)
        let plan = try migrator.plan()
        #expect(!plan.steps[0].leftOut.contains { $0.contains("ACHANGE") || $0.contains("ATRANSACTION") }, "history is not left out")
        try migrator.migrate(plan)

        let migrated = try PersistentStore.open(at: store.path, model: Self.nextModel())
        defer { migrated.close() }
        #expect(migrated.metadata.uuid == uuid)
        let after = try migrated.fetchHistory(after: nil)
        #expect(after.map(\.transactionNumber) == before.map(\.transactionNumber))
        #expect(after.map(\.author) == Array(repeating: "seeder", count: 4) && after.map(\.timestamp) == before.map(\.timestamp))
        // Same objects and kinds of change, under the new entity numbers.
        func described(_ transactions: [PersistentHistoryTransaction]) -> [[String]] {
            transactions.map { transaction in transaction.changes.map { "\($0.entityName)/p\($0.primaryKey) \($0.changeType)" } }
        }
        #expect(described(after) == described(before))
        #expect(try migrated.database.scalar("SELECT DISTINCT ZENTITY FROM ACHANGE WHERE ZENTITYPK = 1 AND ZCHANGETYPE = 1") == .integer(2))
        // The update of name reads as the renamed title; the tombstone survives.
        #expect(after[1].changes.first { $0.entityName == "Item" }?.updatedProperties == ["title"])
        #expect(after[3].changes.first?.tombstone?["code"] == .string("Z"))
        // Z_PRIMARYKEY carries on where the store left off, and the indexes came along.
        #expect(try migrated.database.rows("SELECT Z_ENT, Z_NAME, Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT > 16000").map { $0.map(\.description) }
            == [["16001", "'CHANGE'", "\(after.flatMap(\.changes).count)"], ["16002", "'TRANSACTION'", "4"], ["16003", "'TRANSACTIONSTRING'", try migrated.database.scalar("SELECT count(*) FROM ATRANSACTIONSTRING")?.description ?? ""]])
        #expect(try migrated.database.scalar("SELECT count(*) FROM sqlite_master WHERE type = 'index' AND tbl_name IN ('ACHANGE', 'ATRANSACTION', 'ATRANSACTIONSTRING')") == .integer(8))
        #expect(try migrated.database.scalar("SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND name = 'ZITEM_HISTORY_PROBE'") == .integer(1))
        // And it goes on recording.
        let writer = ObjectContext(store: migrated)
        try writer.performAndWait {
            try writer.make("Bin", ["size": 3])
            try writer.save()
        }
        #expect(try migrated.fetchHistory(after: after.last?.token).first?.changes.map(\.entityName) == ["Bin"])
    }

    @Test(.enabled(if: Corpus.available, Corpus.skipReason))
    func coreDataHistoryComesThroughAMigration() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("SampleModel2_V1.sqlite")
        try FileManager.default.copyItem(atPath: PersistentHistoryFormatTests.corpusStore.path, toPath: path)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        let store = try PersistentStore.open(at: path)
        var next = store.model
        store.close()
        let feedback = try #require(next.entities.firstIndex { $0.name == "Feedback" })
        next.entities[feedback].attributes.append(AttributeDescription(name: "strataNote", type: .string))
        let bundle = ModelBundle(
            url: URL(fileURLWithPath: "/models/Next.xcdatamodeld"), versions: [ModelBundle.Version(name: "Next", file: URL(fileURLWithPath: "/models/Next"), model: next)],
            currentVersionName: "Next", currentVersionReason: "the only one")
        try StoreMigrator(storePath: path, bundle: bundle).migrate()
        let migrated = try PersistentStore.open(at: path, model: next)
        defer { migrated.close() }
        let history = try migrated.fetchHistory(after: nil)
        #expect(history.count == 1 && history[0].changes.count == 5468)
        #expect(history[0].bundleID == "com.apple.dt.xctest.tool" && history[0].processID == "xctest")
        #expect(try migrated.database.scalar("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = 16001") == .integer(5468))
    }
}
