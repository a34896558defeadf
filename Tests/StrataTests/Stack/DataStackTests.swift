import Foundation
import Synchronization
import Testing
@testable import Strata
import StrataTestSupport

@Suite struct DataStackTests {
    static var library: ObjectModel {
        get throws { try ModelLoader.load(Fixtures.exampleModel).currentVersion.model }
    }

    private func tagNames(_ store: PersistentStore) throws -> [String] {
        try store.withConnection { try store.rows("Tag").compactMap { $0.values["name"]?.stringValue } }.sorted()
    }

    /// Waits until the main queue has run what was queued on it before.
    private func drainMainQueue() async {
        await MainActor.run {}
    }

    @Test func threeTierSavesReachTheStoreAndTheMainContextMerges() async throws {
        let folder = try TemporaryFolder()
        let stack = try DataStack(model: Self.library, modelName: "Library", store: .sqlite(folder.url.appendingPathComponent("Library.sqlite")))
        #expect(stack.createdStore)
        let main = stack.mainContext
        let id = try await MainActor.run {
            try main.performAndWait {
                let tag = try main.insert("Tag")
                try tag.setValue("seen", forKey: "name")
                try main.commit()
                return tag.objectID
            }
        }
        #expect(try tagNames(stack.store) == ["seen"])
        try await stack.save(inBackground: { context in
            try context.object(with: id).setValue("changed in background", forKey: "name")
        })
        #expect(try tagNames(stack.store) == ["changed in background"])
        await drainMainQueue()
        let seen = await MainActor.run { main.performAndWait { main.object(with: id)["name"] as? String } }
        #expect(seen == "changed in background")
    }

    @Test func twoTierWorkersSaveToTheRoot() async throws {
        var options = DataStack.Options()
        options.topology = .twoTier
        let stack = try DataStack(model: Self.library, store: .inMemory, options: options)
        #expect(stack.newWorkerContext().parent === stack.rootContext)
        try await stack.save(inBackground: { context in
            try context.insert("Tag").setValue("two-tier", forKey: "name")
        })
        #expect(try tagNames(stack.store) == ["two-tier"])
        let count = try await stack.background { context in context.registeredObjects.count }
        #expect(count == 0)
    }

    @Test func saveWithACompletionReportsOnTheMainQueue() async throws {
        let stack = try DataStack(model: Self.library, store: .inMemory)
        let mainQueue = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: mainQueue, value: true)
        let outcome: String = await withCheckedContinuation { continuation in
            stack.save(inBackground: { context in
                try context.insert("Tag")  // no name: fails validation
            }, completion: { error in
                let onMain = DispatchQueue.getSpecific(key: mainQueue) == true
                continuation.resume(returning: "\(onMain) \(String(describing: error).contains("is required"))")
            })
        }
        #expect(outcome == "true true")
        #expect(try tagNames(stack.store).isEmpty)
    }

    @Test func aBatchContextHasItsOwnConnectionAndItsSavesAreObserved() async throws {
        let folder = try TemporaryFolder()
        let stack = try DataStack(model: Self.library, store: .sqlite(folder.url.appendingPathComponent("L.sqlite")))
        let commits = Locked(0)
        let observation = stack.observeCommit { _ in commits.withLock { $0 += 1 } }
        let batch = try stack.newBatchContext()
        #expect(batch.store !== stack.store)
        try await batch.perform {
            for index in 0..<50 { try batch.insert("Tag").setValue("t\(index)", forKey: "name") }
            try batch.save()
        }
        #expect(try tagNames(stack.store).count == 50)
        #expect(commits.withLock { $0 } == 1)
        _ = observation
    }

    @Test func resetStoreStartsEmptyAndKeepsContextsAndObserversWorking() async throws {
        let folder = try TemporaryFolder()
        let url = folder.url.appendingPathComponent("Reset.sqlite")
        let stack = try DataStack(model: Self.library, store: .sqlite(url))
        let commits = Locked(0)
        let observation = stack.observeCommit { _ in commits.withLock { $0 += 1 } }
        try await stack.save(inBackground: { try $0.insert("Tag").setValue("before", forKey: "name") })
        let root = stack.rootContext
        let worker = stack.newWorkerContext()
        try worker.performAndWait { try worker.insert("Tag").setValue("pending at reset", forKey: "name") }
        let removed = try stack.resetStore()
        #expect(removed.contains(url.path))
        #expect(stack.rootContext === root && stack.createdStore)
        #expect(try tagNames(stack.store).isEmpty)
        #expect(worker.performAndWait { !worker.hasChanges && worker.registeredObjects.isEmpty })
        try worker.performAndWait {
            try worker.insert("Tag").setValue("after", forKey: "name")
            try worker.commit()
        }
        #expect(try tagNames(stack.store) == ["after"])
        #expect(commits.withLock { $0 } == 2)
        _ = observation
    }

    @Test func aStoreOfAnotherModelIsRefusedOrResetAsAsked() throws {
        let folder = try TemporaryFolder()
        let url = folder.url.appendingPathComponent("Other.sqlite")
        _ = try DataStack(model: ObjectModel(entities: [EntityDescription(name: "Other")]), store: .sqlite(url))
        #expect {
            _ = try DataStack(model: Self.library, store: .sqlite(url))
        } throws: { error in
            String(describing: error).contains("cannot find the model the store was made with: it is none of the versions")
        }
        var manual = DataStack.Options()
        manual.automigrates = false
        #expect {
            _ = try DataStack(model: Self.library, store: .sqlite(url), options: manual)
        } throws: { error in
            String(describing: error).hasSuffix("(automatic migration is off)")
                && String(describing: error).contains("entities that differ: Author (only in the model)")
        }
        var options = DataStack.Options()
        options.resetsOnFailure = true
        let stack = try DataStack(model: Self.library, store: .sqlite(url), options: options)
        #expect(stack.createdStore)
        #expect(stack.store.comparison.isMatch)
    }

    @Test func registeredClassesReachEveryContextAndSurviveAReset() async throws {
        let stack = try DataStack(model: Self.library, store: .inMemory)
        stack.register([Tag.self])
        try await stack.save(inBackground: { context in
            let tag = try #require(try context.insert("Tag") as? Tag)
            tag.name = "typed"
        })
        try stack.resetStore()
        let isTyped = try await stack.background { context in try context.insert("Tag") is Tag }
        #expect(isTyped)
    }

    @Test func aLockedStoreIsNeverResetEvenWhenResetOnFailureIsOn() throws {
        let folder = try TemporaryFolder()
        let url = folder.url.appendingPathComponent("Locked.sqlite")
        var journal = Database.Configuration()
        journal.journalMode = .delete
        let holder = try PersistentStore.create(at: url.path, model: Self.library, configuration: journal)
        try holder.database.execute("BEGIN EXCLUSIVE")
        try holder.database.execute("INSERT INTO ZTAG (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (1, 5, 1, 'kept')")
        var options = DataStack.Options()
        options.resetsOnFailure = true
        options.configuration.busyTimeout = .milliseconds(50)
        #expect { _ = try DataStack(model: Self.library, store: .sqlite(url), options: options) } throws: { error in
            String(describing: error).hasSuffix("the store is locked by another connection")
        }
        try holder.database.execute("COMMIT")
        #expect(try tagNames(holder).count == 1)
    }

    @Test func descriptionNamesStoreModelAndTopology() throws {
        let stack = try DataStack(model: Self.library, modelName: "Library", store: .inMemory)
        #expect(stack.description.contains("store     in memory (created, UUID \(stack.store.metadata.uuid))"))
        #expect(stack.description.contains("model     Library: 5 entities"))
        #expect(stack.description.contains("topology  three-tier"))
        #expect(DataStack.defaultStoreURL(modelName: "Library", in: URL(fileURLWithPath: "/data")).path == "/data/Library.sqlite")
    }
}

extension DataStackTests {
    /// Workers on many threads add books to one author and commit; the main-queue context,
    /// which only merges, ends up holding exactly every book.
    @Test func theMainContextMergesEveryWorkersCommit() async throws {
        var options = DataStack.Options()
        options.topology = .twoTier
        let stack = try DataStack(model: Self.library, store: .inMemory, options: options)
        let authorID = try stack.rootContext.performAndWait {
            let author = try stack.rootContext.insert("Author")
            try author.setValue("Prolific", forKey: "name")
            try stack.rootContext.save()
            return author.objectID
        }
        let main = stack.mainContext
        let before = await MainActor.run { main.performAndWait { (try? main.object(with: authorID).objects(forKey: "books").count) ?? -1 } }
        #expect(before == 0)
        let workers = 8, booksEach = 10
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<workers {
                group.addTask {
                    let context = stack.newWorkerContext()
                    for index in 0..<booksEach {
                        try await context.perform {
                            let book = try context.insert("Book")
                            try book.setValue("Book \(worker)-\(index)", forKey: "title")
                            try book.setValue(String(format: "978000000%02d%02d", worker, index), forKey: "isbn")
                            try book.setValue(context.object(with: authorID), forKey: "author")
                            try context.commit()
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        await MainActor.run {}
        let merged = await MainActor.run { main.performAndWait { (try? main.object(with: authorID).objects(forKey: "books").count) ?? -1 } }
        #expect(merged == workers * booksEach)
        #expect(try stack.store.withConnection { try stack.store.rowCountsExcludingSubentities()["Book"] } == workers * booksEach)
    }
}
