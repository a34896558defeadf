import Foundation
import Testing
@testable import Strata
import StrataTestSupport

/// A save of many rows of a table records their history itself, that table's history triggers
/// dropped for its writes (PersistentStore+HistorySaveWrites.swift): what it records must be
/// what the triggers record for the same rows in smaller saves, a failed save must leave the
/// triggers as they were, and every write after it must still be recorded.
@Suite struct PersistentHistoryLargeSaveTests {
    /// Above ``PersistentHistoryRecorder/saveWindowThreshold``: the large saves drop triggers.
    static let count = PersistentHistoryRecorder.saveWindowThreshold + 44
    /// Below it: saves of this many rows keep the triggers.
    static let chunk = 100

    /// The changes of every transaction, as Core Data's columns hold them, but for the
    /// transaction they belong to: the same writes in fewer or more transactions compare equal.
    private func changeRows(_ store: PersistentStore) throws -> [[DatabaseValue]] {
        try store.database.rows("SELECT Z_PK, Z_ENT, Z_OPT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZCOLUMNS, ZTOMBSTONE0, ZTOMBSTONE1 FROM ACHANGE ORDER BY Z_PK")
    }

    /// The rows of `rows` that differ from `other`'s at the same place, for a short message.
    private func differences(_ rows: [[DatabaseValue]], _ other: [[DatabaseValue]]) -> [[DatabaseValue]] {
        zip(rows, other).filter { $0.0 != $0.1 }.prefix(5).flatMap { [$0.0, $0.1] }
    }

    private func triggers(_ store: PersistentStore) throws -> [[DatabaseValue]] {
        try store.database.rows("SELECT name, sql FROM sqlite_temp_master WHERE type = 'trigger' ORDER BY name")
    }

    /// Runs `body` on `context` for each of `rows` in saves of `size` rows.
    private func save<T>(_ rows: [T], in context: ObjectContext, by size: Int, _ body: (T) throws -> Void) throws {
        try context.performAndWait {
            for start in stride(from: 0, to: rows.count, by: size) {
                for row in rows[start..<min(start + size, rows.count)] { try body(row) }
                try context.save()
            }
        }
    }

    /// Items and labels inserted alternately, then every item renamed and every other label
    /// retexted in one save, then a tenth of the items deleted with their codes kept.
    private func writeHistory(to store: PersistentStore, savingBy size: Int) throws {
        let context = ObjectContext(store: store, name: "writer")
        try save(Array(0..<Self.count), in: context, by: size) { index in
            try context.insert("Item").setValue("code \(index)", forKey: "code")
            try context.insert("Label").setValue("label \(index)", forKey: "text")
        }
        let (items, labels) = try context.performAndWait {
            (try context.fetch(FetchRequest(entityName: "Item")).sorted { $0.objectID.primaryKey! < $1.objectID.primaryKey! },
             try context.fetch(FetchRequest(entityName: "Label")).sorted { $0.objectID.primaryKey! < $1.objectID.primaryKey! })
        }
        // An update's changes come in the order of the objects' IDs, items before labels.
        let updates: [(ManagedObject, String, String)] = items.map { ($0, "name", "renamed") }
            + labels.enumerated().filter { $0.offset.isMultiple(of: 2) }.map { ($0.element, "text", "retexted") }
        try save(updates, in: context, by: size) { try $0.0.setValue($0.2, forKey: $0.1) }
        try context.performAndWait {
            for item in items.prefix(Self.count / 10) { try context.delete(item) }
            try context.save()
        }
    }

    @Test func aLargeSaveRecordsWhatSmallSavesRecord() throws {
        let folder = try TemporaryFolder()
        let (large, small) = (try TrackedStore.create(in: folder, name: "Large.sqlite"), try TrackedStore.create(in: folder, name: "Small.sqlite"))
        defer { [large, small].forEach { $0.close() } }
        let before = try triggers(large)
        try writeHistory(to: large, savingBy: Self.count * 2)
        try writeHistory(to: small, savingBy: Self.chunk)
        let (largeRows, smallRows) = (try changeRows(large), try changeRows(small))
        // One change per object: inserts of both, updates of items and half the labels, deletions.
        #expect(largeRows.count == 3 * Self.count + Self.count / 2 + Self.count / 10)
        // A save deletes in no set order: its deletions compare by key, with their tombstones.
        let (changes, deletions) = (largeRows.filter { $0[3] != .integer(2) }, largeRows.filter { $0[3] == .integer(2) })
        #expect(changes == smallRows.filter { $0[3] != .integer(2) }, "\(differences(changes, smallRows))")
        let byKey = { (rows: [[DatabaseValue]]) in rows.map { Array($0.dropFirst()) }.sorted { ($0[4].int64Value ?? 0) < ($1[4].int64Value ?? 0) } }
        #expect(deletions.count == Self.count / 10 && byKey(deletions) == byKey(smallRows.filter { $0[3] == .integer(2) }))
        #expect(try large.database.scalar("SELECT count(*) FROM ATRANSACTION") == .integer(3))
        // The updates name their property: Item's name, bit 2 of code, labels, name, parts, serial.
        let itemNumber = Int64(try #require(large.layout.entity(named: "Item")).number)
        let itemUpdates = largeRows.filter { $0[3] == .integer(1) && $0[4] == .integer(itemNumber) }
        #expect(itemUpdates.count == Self.count && itemUpdates.allSatisfy { $0[6] == .blob(Data([0x20])) })
        #expect(try triggers(large) == before)
        #expect(large.historyRecorder?.savedRuns.isEmpty == true)
    }

    @Test func aLargeSaveWritesNothingThroughTheTriggersLog() throws {
        let folder = try TemporaryFolder()
        let store = try TrackedStore.create(in: folder)
        defer { store.close() }
        let context = ObjectContext(store: store)
        // Inside an outer transaction the log and the noted runs are still there to look at.
        let (logged, runs) = try store.withConnection {
            try store.database.inOuterTransaction {
                try context.performAndWait {
                    for index in 0..<Self.count { try context.insert("Item").setValue("I\(index)", forKey: "code") }
                    try context.save()
                }
                return (try store.database.scalar("SELECT count(*) FROM temp.strata_history_log"),
                        try store.database.scalar("SELECT count(*) FROM temp.strata_history_saved_run"))
            }
        }
        #expect(logged == .integer(0))
        #expect(runs == .integer(1))
        let transactions = try store.fetchHistory(after: nil)
        #expect(transactions.count == 1 && transactions[0].changes.count == Self.count)
        #expect(transactions[0].changes.allSatisfy { $0.changeType == .insert && $0.entityName == "Item" })
    }

    @Test func writesAfterALargeSaveAreStillRecorded() throws {
        let folder = try TemporaryFolder()
        let store = try TrackedStore.create(in: folder)
        defer { store.close() }
        let context = ObjectContext(store: store)
        try context.performAndWait {
            for index in 0..<Self.count { try context.insert("Item").setValue("I\(index)", forKey: "code") }
            try context.save()
            // The statements the large save prepared without triggers are prepared again with them.
            try context.insert("Item").setValue("small", forKey: "code")
            try context.save()
            try context.execute(BatchUpdateRequest(entityName: "Item", propertiesToUpdate: ["name": .string("batch")]))
        }
        _ = try store.withConnection { try store.database.inTransaction { try store.insert("Item", values: ["code": .text("by SQL")]) } }
        let transactions = try store.fetchHistory(after: nil)
        #expect(transactions.map(\.changes.count) == [Self.count, 1, Self.count + 1, 1])
        #expect(transactions[2].changes.allSatisfy { $0.changeType == .update && $0.updatedProperties == ["name"] })
        #expect(transactions[3].changes.map(\.changeType) == [.insert])
    }

    /// The last of many new items clashes with a saved one on a unique code: the save fails,
    /// and the store, its history and the connection's triggers are as they were.
    @Test func aFailedLargeSaveLeavesTriggersAndStoreAsTheyWere() throws {
        var model = TrackedStore.model()
        var item = try #require(model.entity(named: "Item"))
        item.uniquenessConstraints = [["code"]]
        model = ObjectModel(entities: model.entities.map { $0.name == "Item" ? item : $0 })
        let folder = try TemporaryFolder()
        var configuration = Database.Configuration()
        configuration.tracksPersistentHistory = true
        let store = try PersistentStore.create(at: folder.path("Unique.sqlite"), model: model, configuration: configuration)
        defer { store.close() }
        let context = ObjectContext(store: store)
        try context.performAndWait {
            try context.insert("Item").setValue("taken", forKey: "code")
            try context.save()
        }
        let (before, changes) = (try triggers(store), try changeRows(store))
        try context.performAndWait {
            for index in 0..<Self.count { try context.insert("Item").setValue(index == Self.count - 1 ? "taken" : "I\(index)", forKey: "code") }
            #expect(throws: ContextError.self) { try context.save() }
            context.rollback()
        }
        #expect(try triggers(store) == before)
        #expect(try changeRows(store) == changes)
        #expect(try store.database.scalar("SELECT count(*) FROM ZITEM") == .integer(1))
        #expect(try store.database.scalar("SELECT count(*) FROM ATRANSACTION") == .integer(1))
        #expect(try store.database.scalar("SELECT count(*) FROM temp.strata_history_saved_run") == .integer(0))
        #expect(store.historyRecorder?.saveWindow == nil && store.historyRecorder?.savedRuns.isEmpty == true)
        _ = try context.performAndWait {
            try context.execute(BatchUpdateRequest(entityName: "Item", propertiesToUpdate: ["name": .string("batch")]))
        }
        let last = try #require(try store.fetchHistory(after: nil).last)
        #expect(last.changes.count == 1 && last.changes[0].changeType == .update && last.changes[0].updatedProperties == ["name"])
    }

    /// Another connection saved one of many items a large update changes: the update fails
    /// on the conflict (its transaction rolled back and run again reading versions first),
    /// and records nothing; the triggers are as they were and record the next write.
    @Test func aLargeUpdateThatConflictsRecordsNothing() throws {
        let folder = try TemporaryFolder()
        let store = try TrackedStore.create(in: folder)
        defer { store.close() }
        let context = ObjectContext(store: store)
        let items = try context.performAndWait {
            let items = try (0..<Self.count).map { index in
                let item = try context.insert("Item")
                try item.setValue("I\(index)", forKey: "code")
                return item
            }
            try context.save()
            return items
        }
        let other = try PersistentStore.open(at: store.path)
        defer { other.close() }
        let writer = ObjectContext(store: other)
        try writer.performAndWait {
            try writer.existingObject(with: items[Self.count / 2].objectID).setValue("first", forKey: "name")
            try writer.save()
        }
        let (before, changes) = (try triggers(store), try changeRows(store))
        try context.performAndWait {
            for item in items { try item.setValue("renamed", forKey: "name") }
            #expect(throws: ContextError.self) { try context.save() }
        }
        #expect(try triggers(store) == before)
        #expect(try changeRows(store) == changes)
        #expect(try store.database.scalar("SELECT count(*) FROM ZITEM WHERE ZNAME = 'renamed'") == .integer(0))
        try context.performAndWait {
            context.rollback()
            try context.insert("Item").setValue("after", forKey: "code")
            try context.save()
        }
        let last = try #require(try store.fetchHistory(after: nil).last)
        #expect(last.changes.map(\.changeType) == [.insert])
    }

    /// Core Data's store with history: a large save of Feedback (whose table no trigger of
    /// the store writes) continues its history as the small saves do.
    @Test(.enabled(if: Corpus.available, Corpus.skipReason))
    func coreDataStoreGetsTheRowsOfALargeSave() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("SampleModel2_V1.sqlite")
        try FileManager.default.copyItem(atPath: PersistentHistoryFormatTests.corpusStore.path, toPath: path)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        let store = try PersistentStore.open(at: path)
        defer { store.close() }
        let context = ObjectContext(store: store, name: "large")
        let feedback = try context.performAndWait { try context.fetch(FetchRequest(entityName: "Feedback")) }
        #expect(feedback.count == 444)
        let inserted: [ManagedObject] = try context.performAndWait {
            for object in feedback { try object.setValue(9.5, forKey: "rating") }
            let inserted = try (0..<Self.count).map { index in
                let object = try context.insert("Feedback")
                try object.setValue("large \(index)", forKey: "comment")
                try object.setValue("Strata", forKey: "authorAlias")
                try object.setValue(UUID(), forKey: "bookID")
                try object.setValue(3.0, forKey: "rating")
                return object
            }
            try context.save()
            return inserted
        }
        let number = Int64(try #require(store.layout.entity(named: "Feedback")).number)
        let rows = try store.database.rows("SELECT Z_PK, Z_ENT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZCOLUMNS FROM ACHANGE WHERE ZTRANSACTIONID = 2 ORDER BY Z_PK")
        let total = 444 + Self.count
        #expect(rows.map { $0[0] } == (5469..<Int64(5469 + total)).map(DatabaseValue.integer))
        #expect(rows.allSatisfy { $0[1] == .integer(16001) && $0[3] == .integer(number) })
        // Inserts first, in the order inserted; then the updates by key, with rating's bit (bit 3).
        let insertedKeys = inserted.map { DatabaseValue.integer($0.objectID.primaryKey!) }
        #expect(rows.prefix(Self.count).map { $0[4] } == insertedKeys)
        #expect(rows.prefix(Self.count).allSatisfy { $0[2] == .integer(0) && $0[5] == .null })
        let updatedKeys = feedback.map { $0.objectID.primaryKey! }.sorted().map(DatabaseValue.integer)
        #expect(rows.dropFirst(Self.count).map { $0[4] } == updatedKeys)
        #expect(rows.dropFirst(Self.count).allSatisfy { $0[2] == .integer(1) && $0[5] == .blob(Data([0x10])) })
        #expect(try store.database.scalar("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = 16001") == .integer(Int64(5468 + total)))
        let transaction = try #require(try store.fetchHistory(after: PersistentHistoryToken(storeUUID: store.metadata.uuid, transactionNumber: 1)).first)
        #expect(transaction.contextName == "large" && transaction.changes.count == total)
        #expect(transaction.changes.filter { $0.changeType == .update }.allSatisfy { $0.updatedProperties == ["rating"] })
    }
}
