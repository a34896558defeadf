import Foundation
import Testing
@testable import Strata
import StrataTestSupport

/// Reads of the main context while background saves land: what a read through a child sees
/// of its parents' pending changes and of the store must be one moment of the stack.
@Suite struct ContextConcurrencyTests {
    static func stack(_ topology: DataStack.Topology) throws -> DataStack {
        var options = DataStack.Options()
        options.topology = topology
        let folder = try TemporaryFolder()
        return try DataStack(
            model: ModelLoader.load(Fixtures.exampleModel).currentVersion.model, modelName: "Library",
            store: .sqlite(folder.url.appendingPathComponent("Library.sqlite")), options: options)
    }

    /// Once, 1,200 counted for 1,000 saved: a save landing between the reading of the root's
    /// pending inserts and the reading of the store showed its objects under both IDs.
    @Test(arguments: [DataStack.Topology.threeTier, .twoTier])
    func mainContextReadsDuringBackgroundSavesSeeEachSaveWholeAndOnce(_ topology: DataStack.Topology) async throws {
        let stack = try Self.stack(topology)
        let main = stack.mainContext
        let (rounds, saves, perSave) = (25, 4, 10)
        for round in 0..<rounds {
            let before = round * saves * perSave
            let finished = Locked(false)
            let writers = Task.detached {
                defer { finished.withLock { $0 = true } }
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for save in 0..<saves {
                        group.addTask {
                            try await stack.save(inBackground: { context in
                                for index in 0..<perSave {
                                    try context.insert("Tag").setValue("r\(round)-s\(save)-\(index)", forKey: "name")
                                }
                            })
                        }
                    }
                    try await group.waitForAll()
                }
            }
            var reads = 0
            repeat {
                let (counted, fetched, names) = try main.performAndWait {
                    let fetched = try main.fetch(FetchRequest(entityName: "Tag"))
                    return (try main.count(for: FetchRequest(entityName: "Tag")), fetched, fetched.compactMap { $0["name"] as? String })
                }
                let ids = fetched.map(\.objectID)
                #expect(Set(ids).count == ids.count, "round \(round): an object fetched twice")
                #expect(Set(names).count == names.count && names.count == ids.count, "round \(round): a row fetched under two IDs")
                #expect(counted >= before && counted <= before + saves * perSave && counted % perSave == 0, "round \(round): counted \(counted)")
                #expect(fetched.count >= before && fetched.count % perSave == 0, "round \(round): fetched \(fetched.count)")
                reads += 1
                await Task.yield()
            } while !finished.withLock({ $0 })
            try await writers.value
            let total = try main.performAndWait { try main.count(for: FetchRequest(entityName: "Tag")) }
            #expect(total == before + saves * perSave, "round \(round) after \(reads) reads")
        }
        #expect(try stack.store.count(of: "Tag") == rounds * saves * perSave)
    }

    /// A child that saved into its parent keeps its objects after the parent's save to the
    /// store: a read through the child finds the same instance, with its permanent ID, rather
    /// than a second object for the row.
    @Test func aChildKeepsOneObjectPerRowAfterItsParentSaves() throws {
        let stack = try Self.stack(.threeTier)
        let worker = stack.newWorkerContext()
        let tag = try worker.performAndWait {
            let tag = try worker.insert("Tag")
            try tag.setValue("pushed", forKey: "name")
            try worker.save()
            return tag
        }
        try stack.mainContext.performAndWait { try stack.mainContext.commit() }
        let saved = try stack.rootContext.performAndWait { try stack.rootContext.fetchObjectIDs(FetchRequest(entityName: "Tag")) }
        try worker.performAndWait {
            #expect(worker.object(with: saved[0]) === tag, "looked up by its permanent ID")
            let fetched = try worker.fetch(FetchRequest(entityName: "Tag"))
            #expect(fetched.count == 1)
            #expect(fetched.first === tag)
            #expect(!tag.objectID.isTemporary)
            #expect(worker.registeredObjectCount == 1)
        }
        // And the other way: the main context takes the worker's object without waiting for it.
        let shown = try stack.mainContext.performAndWait { try stack.mainContext.use(tag) }
        #expect(shown.objectID == saved[0])
    }

    /// A block of a child that calls into its parent runs the parent's work on the thread
    /// that holds the child; the parent's block may call back into the child.
    @Test func blocksNestAcrossAChainInBothDirections() throws {
        let stack = try Self.stack(.threeTier)
        let worker = stack.newWorkerContext()
        let root = stack.rootContext
        #expect(!worker.isOnQueue && !root.isOnQueue)
        let seen = worker.performAndWait {
            root.performAndWait { (root.isOnQueue, worker.isOnQueue, worker.performAndWait { worker.isOnQueue }) }
        }
        #expect(seen == (true, true, true))
        #expect(!worker.isOnQueue, "a finished block leaves nothing held")
    }

    /// A nested update of a serial stack: it runs at once rather than wait, on the queue of
    /// updates, for the update that waits for it.
    @Test func aSerialStackRunsAnUpdateNestedInAnotherAtOnce() async throws {
        var options = DataStack.Options()
        options.runsUpdatesSerially = true
        let stack = try DataStack(model: ModelLoader.load(Fixtures.exampleModel).currentVersion.model, store: .inMemory, options: options)
        let failure: String? = await withCheckedContinuation { continuation in
            stack.beginUpdate({ outer in
                try stack.beginUpdateAndWait { inner in
                    try inner.insert("Tag").setValue("inner", forKey: "name")
                    try inner.commit()
                }
                try outer.insert("Tag").setValue("outer", forKey: "name")
                try outer.commit()
            }, completion: { error in continuation.resume(returning: error.map { "\($0)" }) })
        }
        #expect(failure == nil)
        #expect(try stack.store.count(of: "Tag") == 2)
    }

    /// Contexts on several threads read typed properties of one entity at once, through names
    /// the entity's slots have not met (the books are made by name, and the model is loaded
    /// for this test alone): the threads remember the addresses they meet in the table they
    /// share while the others read it, and every read finds its own attribute.
    @Test func typedReadsOnSeveralThreadsAtOnceFindTheirAttributes() throws {
        let fixture = try LibraryFixture()
        try fixture.context.performAndWait {
            for index in 0..<50 {
                let book = try fixture.book("Title \(index)", isbn: "9780000000\(100 + index)")
                try book.setValue(Double(index % 5), forKey: "rating")
            }
            try fixture.context.save()
        }
        let slots = fixture.store.model.propertySlots(of: try #require(fixture.store.model.entity(named: "Book")))
        let names = ["isbn", "published", "rating", "title", "author", "nope"]
        let numbers = names.map { slots.number(of: $0) }
        let contexts = try (0..<4).map { _ in try fixture.otherContext() }
        let failures = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: contexts.count) { thread in
            let context = contexts[thread]
            context.register([Author.self, Book.self, EBook.self, Page.self, Tag.self])
            context.performAndWait {
                do {
                    var titles = Set<String>()
                    for case let book as Book in try context.fetch(FetchRequest(entityName: "Book")) {
                        let title = book.title ?? ""
                        let number = Int(title.dropFirst("Title ".count)) ?? -1
                        if book.isbn != "9780000000\(100 + number)" || book.rating != Double(number % 5) {
                            failures.withLock { $0.append("thread \(thread): \(title) read wrong") }
                        }
                        titles.insert(title)
                        for (name, number) in zip(names, numbers)
                        where slots.number(of: PropertyName(interning: name)) != number || slots.number(of: PropertyName(interning: "\(name)\(thread)")) != nil {
                            failures.withLock { $0.append("thread \(thread): \(name) found wrong") }
                        }
                    }
                    if titles != Set((0..<50).map { "Title \($0)" }) { failures.withLock { $0.append("thread \(thread): \(titles.count) titles") } }
                } catch {
                    failures.withLock { $0.append("thread \(thread): \(error)") }
                }
            }
        }
        #expect(failures.withLock { $0 } == [])
    }
}
