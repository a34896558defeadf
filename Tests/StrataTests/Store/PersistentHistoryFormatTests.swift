import Foundation
import Testing
@testable import Strata
import StrataTestSupport

/// Persistent history in Core Data's format: what Strata's saves add to a store Core Data
/// wrote with history (`coredataplus/SampleModel2_V1.sqlite`, one transaction of 5,468
/// inserts), and to stores it makes with history tracking on.
@Suite struct PersistentHistoryFormatTests {
    static let corpusStore = Corpus.folder.appendingPathComponent("stores/coredataplus/SampleModel2_V1.sqlite")

    /// A writable copy of the corpus store, opened with the model in its model cache.
    private func corpusCopy(_ folder: TemporaryFolder) throws -> PersistentStore {
        let path = folder.path("SampleModel2_V1.sqlite")
        try FileManager.default.copyItem(atPath: Self.corpusStore.path, toPath: path)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        return try PersistentStore.open(at: path)
    }

    @Test(.enabled(if: Corpus.available, Corpus.skipReason))
    func coreDataHistoryReadsAsCoreDataWroteIt() throws {
        let folder = try TemporaryFolder()
        let store = try corpusCopy(folder)
        defer { store.close() }
        #expect(store.hasPersistentHistory && store.keepsPersistentHistory)
        #expect(!store.model.entities.contains { ["CHANGE", "TRANSACTION", "TRANSACTIONSTRING"].contains($0.name) })
        #expect(store.schema.historyPrimaryKeys.map(\.entityNumber) == [16001, 16002, 16003])
        // A model inferred from the tables alone names no history entity either.
        #expect(SchemaInference.model(from: store.schema).entities.map(\.name).sorted() == ["Author", "Book", "Feedback", "GraphicNovel", "Page", "Writer"])
        let transactions = try store.fetchHistory(after: nil)
        #expect(transactions.count == 1)
        let first = try #require(transactions.first)
        #expect(first.transactionNumber == 1 && first.author == nil && first.contextName == nil)
        #expect(first.bundleID == "com.apple.dt.xctest.tool" && first.processID == "xctest")
        #expect(first.changes.count == 5468 && first.changes.allSatisfy { $0.changeType == .insert && $0.updatedProperties == nil })
        let counts = Dictionary(grouping: first.changes, by: \.entityName).mapValues(\.count)
        #expect(counts == ["Book": 51, "GraphicNovel": 1, "Feedback": 444, "Page": 4970, "Author": 2])
        #expect(try store.currentHistoryToken() == PersistentHistoryToken(storeUUID: store.metadata.uuid, transactionNumber: 1))
    }

    @Test(.enabled(if: Corpus.available, Corpus.skipReason))
    func aSaveAddsOneTransactionAndOneChangePerObject() throws {
        let folder = try TemporaryFolder()
        let store = try corpusCopy(folder)
        defer { store.close() }
        let context = ObjectContext(store: store, name: "format test")
        context.transactionAuthor = "strata-tests"
        let (updatedKey, deletedKey, insertedKey): (Int64, Int64, Int64) = try context.performAndWait {
            let feedback = try context.fetch(FetchRequest(entityName: "Feedback", sortDescriptors: [ObjectSortDescriptor("comment")]))
            try feedback[0].setValue(9.5, forKey: "rating")
            try context.delete(feedback[1])
            let new = try context.insert("Feedback")
            try new.setValue("from Strata", forKey: "comment")
            try new.setValue("Strata", forKey: "authorAlias")
            try new.setValue(UUID(), forKey: "bookID")
            try new.setValue(3.0, forKey: "rating")
            try context.save()
            return (feedback[0].objectID.primaryKey!, feedback[1].objectID.primaryKey!, new.objectID.primaryKey!)
        }
        let database = store.database
        // The transaction, as Core Data writes one: strings interned, VARCHAR twins empty.
        let transaction = try database.rows("""
            SELECT t.Z_PK, t.Z_ENT, t.Z_OPT, a.ZNAME, b.ZNAME, c.ZNAME, p.ZNAME, t.ZAUTHOR, t.ZBUNDLEID, t.ZCONTEXTNAME, t.ZPROCESSID, t.ZTIMESTAMP \
            FROM ATRANSACTION t LEFT JOIN ATRANSACTIONSTRING a ON a.Z_PK = t.ZAUTHORTS LEFT JOIN ATRANSACTIONSTRING b ON b.Z_PK = t.ZBUNDLEIDTS \
            LEFT JOIN ATRANSACTIONSTRING c ON c.Z_PK = t.ZCONTEXTNAMETS LEFT JOIN ATRANSACTIONSTRING p ON p.Z_PK = t.ZPROCESSIDTS WHERE t.Z_PK > 1
            """)
        #expect(transaction.count == 1)
        let row = try #require(transaction.first)
        let head: [DatabaseValue] = [.integer(2), .integer(16002), .null]
        #expect(Array(row[0...2]) == head)
        let names: [DatabaseValue] = [.text("strata-tests"), .text("format test"), .text(ProcessInfo.processInfo.processName)]
        #expect([row[3], row[5], row[6]] == names)
        #expect(row[4].stringValue?.isEmpty == false)
        #expect(row[7...10].allSatisfy { $0 == .null })
        #expect(abs((row[11].doubleValue ?? 0) - Date().timeIntervalSinceReferenceDate) < 60)
        #expect(try database.scalar("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = 16002") == .integer(2))
        #expect(try database.scalar("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = 16001") == .integer(5471))
        let changes = try database.rows("SELECT Z_PK, Z_ENT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZCOLUMNS FROM ACHANGE WHERE ZTRANSACTIONID = 2 ORDER BY ZCHANGETYPE")
        let changeKeys: [Int64] = [5469, 5470, 5471]
        #expect(changes.compactMap { $0[0].int64Value }.sorted() == changeKeys)
        #expect(changes.allSatisfy { $0[1] == .integer(16001) && $0[3] == .integer(3) })
        let changeTypes: [DatabaseValue] = [.integer(0), .integer(1), .integer(2)]
        #expect(changes.map { $0[2] } == changeTypes)
        let objectKeys: [DatabaseValue] = [.integer(insertedKey), .integer(updatedKey), .integer(deletedKey)]
        #expect(changes.map { $0[4] } == objectKeys)
        // Feedback's properties by name: authorAlias, bookID, comment, rating: bit 3 from the top.
        let columns: [DatabaseValue] = [.null, .blob(Data([0x10])), .null]
        #expect(changes.map { $0[5] } == columns)
        // Read back.
        let read = try store.fetchHistory(after: PersistentHistoryToken(storeUUID: store.metadata.uuid, transactionNumber: 1))
        #expect(read.count == 1 && read[0].author == "strata-tests" && read[0].contextName == "format test")
        // In the order the save wrote the rows: its inserts, then its updates, then its deletions
        // (Strata's order; the order of Core Data's own saves is not confirmed on a store).
        #expect(read[0].changes.map(\.changeType) == [.insert, .update, .delete])
        #expect(read[0].changes.first { $0.changeType == .update }?.updatedProperties == ["rating"])
    }

    @Test(.enabled(if: Corpus.available, Corpus.skipReason))
    func aFailedSaveLeavesNoHistory() throws {
        let folder = try TemporaryFolder()
        let store = try corpusCopy(folder)
        defer { store.close() }
        let other = try PersistentStore.open(at: store.path)
        defer { other.close() }
        let (first, second) = (ObjectContext(store: store), ObjectContext(store: other))
        var request = FetchRequest(entityName: "Feedback", predicate: try ObjectPredicate(format: "comment != nil"))
        request.fetchLimit = 1
        let a = try first.performAndWait { try first.fetch(request)[0] }
        let b = try second.performAndWait { try second.fetch(request)[0] }
        try second.performAndWait {
            try b.setValue(1.0, forKey: "rating")
            try second.save()
        }
        #expect(try store.database.scalar("SELECT count(*) FROM ATRANSACTION") == .integer(2))
        try first.performAndWait {
            try a.setValue(2.0, forKey: "rating")
            _ = try first.insert("Feedback")
            #expect(throws: ContextError.self) { try first.save() }
        }
        #expect(try store.database.scalar("SELECT count(*) FROM ATRANSACTION") == .integer(2))
        #expect(try store.database.scalar("SELECT count(*) FROM ACHANGE") == .integer(5469))
        #expect(try store.database.scalar("SELECT count(*) FROM temp.strata_history_log") == .integer(0))
    }

    // MARK: - Stores Strata makes

    @Test func trackingMakesTheTablesAsCoreDataDoes() throws {
        let folder = try TemporaryFolder()
        let store = try TrackedStore.create(in: folder)
        defer { store.close() }
        let schema = try normalizedSchema(of: store.database)
        #expect(schema["ACHANGE"] == "CREATE TABLE ACHANGE (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCHANGETYPE INTEGER, ZENTITY INTEGER, ZENTITYPK INTEGER, ZTRANSACTIONID INTEGER, ZCOLUMNS BLOB, ZTOMBSTONE0 BLOB, ZTOMBSTONE1 BLOB)")
        #expect(schema["Z_TRANSACTIONSTRING_UNIQUE_NAME"] == "CREATE UNIQUE INDEX Z_TRANSACTIONSTRING_UNIQUE_NAME ON ATRANSACTIONSTRING (ZNAME COLLATE BINARY ASC)")
        #expect(schema.keys.filter { $0.hasPrefix("ATRANSACTION_") }.count == 4)
        #expect(try store.database.rows("SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT > 16000").map { $0.map(\.description) }
            == [["16001", "'CHANGE'", "0", "0"], ["16002", "'TRANSACTION'", "0", "0"], ["16003", "'TRANSACTIONSTRING'", "0", "0"]])
        // The triggers are the connection's own: nothing of them in the file.
        #expect(try store.database.scalar("SELECT count(*) FROM sqlite_master WHERE type = 'trigger'") == .integer(0))
        // A store without tracking gets no tables.
        let plain = try PersistentStore.create(at: folder.path("Plain.sqlite"), model: TrackedStore.model())
        defer { plain.close() }
        #expect(!plain.hasPersistentHistory && !plain.keepsPersistentHistory)
    }

    @Test func deletionsKeepTombstonesAndToManyMembersMarkTheirOwners() throws {
        let folder = try TemporaryFolder()
        let store = try TrackedStore.create(in: folder)
        defer { store.close() }
        let context = ObjectContext(store: store, name: "writer")
        let (itemID, labelID) = try context.performAndWait {
            let item = try context.insert("Item")
            try item.setValue("A-1", forKey: "code")
            try item.setValue(42, forKey: "serial")
            let label = try context.insert("Label")
            try context.save()
            return (item.objectID, label.objectID)
        }
        try context.performAndWait {
            let item = context.object(with: itemID)
            let part = try context.insert("Part")
            try part.setValue(item, forKey: "item")
            try item.add(context.object(with: labelID), toKey: "labels")
            try context.save()
        }
        var transactions = try store.fetchHistory(after: nil)
        #expect(transactions.count == 2)
        let second = transactions[1].changes
        #expect(second.count == 3)
        #expect(second.first { $0.entityName == "Part" }?.changeType == .insert)
        #expect(second.first { $0.entityName == "Item" }?.updatedProperties == ["labels", "parts"])
        #expect(second.first { $0.entityName == "Label" }?.updatedProperties == ["items"])
        try context.performAndWait {
            let item = context.object(with: itemID)
            try item.setValue("A-2", forKey: "code")
            try context.delete(item)
            try context.save()
        }
        transactions = try store.fetchHistory(after: transactions[1].token)
        let deletion = try #require(transactions.first?.changes.first { $0.entityName == "Item" })
        #expect(deletion.changeType == .delete)
        // The values the row held: the unsaved change died with the object.
        #expect(deletion.tombstone == ["code": .string("A-1"), "serial": .integer(42)])
        // Its part loses its item (Nullify), and the label a member.
        #expect(transactions[0].changes.first { $0.entityName == "Part" }?.updatedProperties == ["item"])
        #expect(transactions[0].changes.contains { $0.entityName == "Label" && $0.changeType == .update })
        #expect(try store.database.scalar("SELECT ZTOMBSTONE0 FROM ACHANGE WHERE ZCHANGETYPE = 2 AND ZENTITY = 1") == .text("A-1"))
    }

    @Test func batchRequestsAreRecordedToo() throws {
        let folder = try TemporaryFolder()
        let store = try TrackedStore.create(in: folder)
        defer { store.close() }
        let context = ObjectContext(store: store)
        try context.performAndWait {
            for index in 0..<3 {
                let item = try context.insert("Item")
                try item.setValue("C\(index)", forKey: "code")
            }
            try context.save()
            try context.execute(BatchDeleteRequest(entityName: "Item", predicate: try ObjectPredicate(format: "code != 'C1'")))
        }
        let last = try #require(try store.fetchHistory(after: nil).last)
        #expect(last.changes.map(\.changeType) == [.delete, .delete])
        #expect(Set(last.changes.compactMap { $0.tombstone?["code"] }) == [.string("C0"), .string("C2")])
    }

    /// An update's trigger logs the columns it changed as bits of an integer, or by name in a
    /// table of more columns than an integer has bits: both come out as the same properties.
    @Test(arguments: [3, 70])
    func updatesNameTheChangedPropertiesWhateverTheWidthOfTheTable(attributeCount: Int) throws {
        var wide = EntityDescription(name: "Wide")
        wide.attributes = (0..<attributeCount).map { AttributeDescription(name: "value\($0)", type: .integer64) }
        let folder = try TemporaryFolder()
        var configuration = Database.Configuration()
        configuration.tracksPersistentHistory = true
        let store = try PersistentStore.create(at: folder.path("Wide.sqlite"), model: ObjectModel(entities: [wide]), configuration: configuration)
        defer { store.close() }
        let context = ObjectContext(store: store)
        try context.performAndWait {
            let object = try context.insert("Wide")
            try object.setValue(Int64(1), forKey: "value0")
            try context.save()
            try object.setValue(Int64(2), forKey: "value1")
            try object.setValue(Int64(3), forKey: "value\(attributeCount - 1)")
            try context.save()
        }
        let update = try #require(try store.fetchHistory(after: nil).last?.changes.first)
        #expect(update.changeType == .update)
        #expect(update.updatedProperties == ["value1", "value\(attributeCount - 1)"])
    }

    @Test func bitmapsReadMostSignificantBitFirst() {
        let order = ["a", "b", "c", "d", "e", "f", "g", "h", "i"]
        #expect(PersistentHistory.bitmap(["a", "i"], order: order) == Data([0x80, 0x80]))
        #expect(PersistentHistory.properties(in: Data([0x41, 0x00]), order: order) == ["b", "h"])
        #expect(PersistentHistory.properties(in: Data([0x00, 0x40]), order: order) == nil, "a bit past the properties")
    }
}
