import Foundation
import Testing
@testable import Strata
import StrataTestSupport

/// The Swift API of persistent history: fetching after a token or a date, by author, deleting
/// before a token or a date, merging a transaction into a context, and other processes' saves
/// reaching contexts and fetched-results controllers through history (or, without it, by
/// comparing rows).
@Suite struct PersistentHistoryAPITests {
    /// A store with history tracking on, and a context on it that saves as `author`.
    private struct Tracked {
        let folder: TemporaryFolder
        let store: PersistentStore
        let context: ObjectContext

        init() throws {
            folder = try TemporaryFolder()
            store = try TrackedStore.create(in: folder)
            context = ObjectContext(store: store, name: "app")
        }

        /// Saves an Item with `code` as `author`.
        @discardableResult
        func save(code: String, author: String?) throws -> ObjectID {
            context.transactionAuthor = author
            return try context.performAndWait {
                let item = try context.make("Item", ["code": code])
                try context.save()
                return item.objectID
            }
        }

        /// A second connection to the store, as another process has.
        func otherProcess() throws -> ObjectContext {
            ObjectContext(store: try PersistentStore.open(at: store.path, model: store.model), name: "other")
        }
    }

    @Test func historyIsFetchedAfterATokenOrADate() throws {
        let tracked = try Tracked()
        defer { tracked.store.close() }
        try tracked.save(code: "a", author: "app")
        let middle = Date()
        // The wait is the subject: the clock must move past `middle` before the next save.
        Thread.sleep(forTimeInterval: 0.01)
        try tracked.save(code: "b", author: "widget")
        try tracked.save(code: "c", author: "app")
        let store = tracked.store
        let all = try store.fetchHistory(after: nil)
        #expect(all.map(\.transactionNumber) == [1, 2, 3])
        #expect(try store.fetchHistory(after: all[0].token).map(\.transactionNumber) == [2, 3])
        #expect(try store.execute(.fetchHistory(after: middle)).transactions.map(\.transactionNumber) == [2, 3])
        var byAuthor = PersistentHistoryChangeRequest.fetchHistory(after: nil)
        byAuthor.author = "widget"
        #expect(try store.execute(byAuthor).transactions.map(\.transactionNumber) == [2])
        var limited = PersistentHistoryChangeRequest.fetchHistory(after: nil)
        limited.fetchLimit = 2
        limited.resultType = .transactionsOnly
        let firstTwo = try store.execute(limited).transactions
        #expect(firstTwo.map(\.transactionNumber) == [1, 2] && firstTwo.allSatisfy(\.changes.isEmpty))
        var count = PersistentHistoryChangeRequest.fetchHistory(after: all[0].token)
        count.resultType = .count
        #expect(try store.execute(count).count == 2)
        #expect(try store.currentHistoryToken() == all[2].token)
        #expect(try store.fetchHistory(after: all[2].token).isEmpty)
        // A token is kept between runs as JSON, and names its store.
        let decoded = try JSONDecoder().decode(PersistentHistoryToken.self, from: try JSONEncoder().encode(all[1].token))
        #expect(decoded == all[1].token && decoded.description == "\(store.metadata.uuid):2")
        #expect(PersistentHistoryToken("2", storeUUID: store.metadata.uuid) == all[1].token)
        let foreign = PersistentHistoryToken(storeUUID: "00000000-0000-0000-0000-000000000000", transactionNumber: 1)
        #expect(throws: StoreError.self) { try store.fetchHistory(after: foreign) }
    }

    @Test func historyIsDeletedBeforeATokenOrADate() throws {
        let tracked = try Tracked()
        defer { tracked.store.close() }
        for code in ["a", "b", "c", "d"] { try tracked.save(code: code, author: nil) }
        let store = tracked.store
        let all = try store.fetchHistory(after: nil)
        #expect(try store.execute(.deleteHistory(before: all[1].token)).count == 1)
        #expect(try store.fetchHistory(after: nil).map(\.transactionNumber) == [2, 3, 4])
        #expect(try store.execute(.deleteHistory(before: all[3].timestamp)).count == 2)
        #expect(try store.fetchHistory(after: nil).map(\.transactionNumber) == [4])
        #expect(try store.database.scalar("SELECT count(*) FROM ACHANGE") == .integer(1))
        // Numbers go on rising after a prune.
        try tracked.save(code: "e", author: nil)
        #expect(try store.currentHistoryToken()?.transactionNumber == 5)
        // Without history tables, a request is an error that says so.
        let plain = try PersistentStore.create(at: tracked.folder.path("Plain.sqlite"), model: store.model)
        defer { plain.close() }
        #expect(throws: StoreError.self) { try plain.fetchHistory(after: nil) }
        #expect(try plain.currentHistoryToken() == nil)
    }

    @Test func aTransactionMergesIntoAContext() throws {
        let tracked = try Tracked()
        defer { tracked.store.close() }
        let kept = try tracked.save(code: "kept", author: nil)
        let gone = try tracked.save(code: "gone", author: nil)
        let context = tracked.context
        try context.performAndWait {
            _ = try context.existingObject(with: kept)["code"]
            _ = try context.existingObject(with: gone)["code"]
        }
        let token = try tracked.store.currentHistoryToken()
        let other = try tracked.otherProcess()
        defer { other.store.close() }
        try other.performAndWait {
            try other.existingObject(with: kept).setValue("changed", forKey: "code")
            try other.delete(try other.existingObject(with: gone))
            try other.make("Item", ["code": "new"])
            try other.save()
        }
        let transactions = try context.execute(.fetchHistory(after: token)).transactions
        #expect(transactions.count == 1)
        let heard = Locked<[ObjectsDidChange]>([])
        let observation = context.addObjectsDidChangeObserver { change in heard.withLock { $0.append(change) } }
        let change = context.performAndWait { context.mergeChanges(from: transactions[0]) }
        #expect(change.updated == [kept] && change.deleted == [gone] && change.inserted.count == 1)
        try context.performAndWait {
            #expect(try context.existingObject(with: kept)["code"] as? String == "changed")
            #expect(!context.registeredObjects.contains { $0.objectID == gone })
            let inserted = try #require(change.inserted.first)
            #expect(context.objectID(for: transactions[0].changes.first { $0.changeType == .insert }!) == inserted)
        }
        #expect(heard.withLock(\.count) == 1)
        withExtendedLifetime(observation) {}
    }

    // MARK: - Other processes' saves

    /// A three-tier stack on a store, with history when `tracked`.
    private static func stack(_ folder: TemporaryFolder, tracked: Bool) throws -> DataStack {
        var options = DataStack.Options()
        options.tracksPersistentHistory = tracked
        return try DataStack(
            model: TrackedStore.model(), modelName: "Tracked", store: .sqlite(folder.url.appendingPathComponent("Tracked.sqlite")),
            options: options)
    }

    @Test(arguments: [true, false])
    func anotherProcessSaveReachesTheMainContextAndItsLists(tracked: Bool) throws {
        let folder = try TemporaryFolder()
        let stack = try Self.stack(folder, tracked: tracked)
        defer { stack.cleanUp() }
        #expect(stack.store.keepsPersistentHistory == tracked)
        let main = stack.mainContext
        let existing = try main.performAndWait {
            let item = try main.make("Item", ["code": "old"])
            try main.commit()
            return item.objectID
        }
        let controller = FetchedResultsController(
            fetchRequest: FetchRequest(entityName: "Item", sortDescriptors: [ObjectSortDescriptor("code")]), context: main)
        let changes = Locked<[ResultsChange]>([])
        try main.performAndWait {
            try controller.performFetch()
            controller.onChange = { change in changes.withLock { $0.append(change) } }
        }
        let other = ObjectContext(store: try PersistentStore.open(at: stack.store.path, model: stack.model), name: "other process")
        defer { other.store.close() }
        try other.performAndWait {
            try other.make("Item", ["code": "new"])
            try other.existingObject(with: existing).setValue("older", forKey: "code")
            try other.save()
        }
        let change = try main.performAndWait { try main.mergeExternalChanges() }
        #expect(change.storeChangedElsewhere == !tracked)
        #expect(change.updated.contains(existing))
        if tracked { #expect(change.inserted.count == 1) }
        main.performAndWait {
            #expect(controller.fetchedObjects.map { $0["code"] as? String } == ["new", "older"])
        }
        #expect(changes.withLock { $0.count == 1 && $0[0].inserted.count == 1 })
        #expect(try main.performAndWait { try main.mergeExternalChanges() }.isEmpty, "nothing new since")
        // The root took the change in too, and a worker of the main context asks through it.
        let root = stack.rootContext
        #expect(try root.performAndWait { try root.existingObject(with: existing)["code"] as? String } == "older")
        try other.performAndWait {
            try other.make("Item", ["code": "third"])
            try other.save()
        }
        let worker = stack.newWorkerContext()
        #expect(try worker.performAndWait { try worker.mergeExternalChanges() }.isEmpty == false)
        main.performAndWait { #expect(controller.fetchedObjects.count == 3) }
    }

    @Test func theStackPostsRemoteChanges() throws {
        let folder = try TemporaryFolder()
        var options = DataStack.Options()
        options.tracksPersistentHistory = true
        let stack = try DataStack(
            model: TrackedStore.model(), modelName: "Tracked", store: .sqlite(folder.url.appendingPathComponent("Tracked.sqlite")),
            options: options)
        defer { stack.cleanUp() }
        #expect(!stack.checkForRemoteChanges(), "the first look notes where the store stands")
        let other = ObjectContext(store: try PersistentStore.open(at: stack.store.path, model: stack.model))
        defer { other.store.close() }
        try other.performAndWait {
            try other.make("Item", ["code": "elsewhere"])
            try other.save()
        }
        let posted = Locked<[Notification]>([])
        let observer = NotificationCenter.default.addObserver(forName: DataStack.remoteChangeNotification, object: stack, queue: nil) { note in
            posted.withLock { $0.append(note) }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        #expect(stack.checkForRemoteChanges())
        stack.mainContext.performAndWait {}
        let note = try #require(posted.withLock { $0.first })
        #expect(note.userInfo?[DataStack.storeUUIDKey] as? String == stack.store.metadata.uuid)
        #expect((note.userInfo?[DataStack.historyTokenKey] as? PersistentHistoryToken)?.transactionNumber == 1)
        #expect(!stack.checkForRemoteChanges())
    }
}
