import Foundation
import Testing
@testable import Strata
import StrataTestSupport

/// The design card's "reset the store on user logout": after ``DataStack/resetStore()`` nothing
/// of the old user's store shows anywhere, and what the app still holds fails clearly.
@Suite struct LogoutResetTests {
    /// A stack on a file with three saved tags of the first user, a controller and a monitor
    /// on the main context, and a worker with an unsaved draft.
    final class Session: @unchecked Sendable {
        let folder: TemporaryFolder
        let url: URL
        let stack: DataStack
        let controller: FetchedResultsController
        let monitor: ObjectMonitor
        let worker: ObjectContext
        let held: Tag
        var monitorChanges: [ObjectMonitor.Change] = []

        init() async throws {
            folder = try TemporaryFolder()
            url = folder.url.appendingPathComponent("Library.sqlite")
            stack = try DataStack(model: DataStackTests.library, modelName: "Library", store: .sqlite(url))
            stack.register([Tag.self])
            try await stack.save(inBackground: { context in
                for name in ["alice 1", "alice 2", "alice 3"] { try context.insert("Tag").setValue(name, forKey: "name") }
            })
            let main = stack.mainContext
            let request = FetchRequest(entityName: "Tag", sortDescriptors: [ObjectSortDescriptor("name")])
            (controller, monitor, held) = try await MainActor.run {
                try main.performAndWait {
                    let controller = FetchedResultsController(fetchRequest: request, context: main)
                    try controller.performFetch()
                    let first = try #require(controller.fetchedObjects.first as? Tag)
                    return (controller, try ObjectMonitor(first), first)
                }
            }
            worker = stack.newWorkerContext()
            try worker.performAndWait { try worker.insert("Tag").setValue("alice's draft", forKey: "name") }
            monitor.onChange = { [unowned self] change in monitorChanges.append(change) }
        }

        func listed() async -> [String] {
            await MainActor.run { stack.mainContext.performAndWait { controller.fetchedObjects.map { $0["name"] as? String ?? "?" } } }
        }
    }

    @Test func everyListMonitorAndContextIsToldAndEmptyAndTheNextUserSeesOnlyTheirObjects() async throws {
        let session = try await Session()
        #expect(await session.listed() == ["alice 1", "alice 2", "alice 3"])
        let oldStore = session.stack.store.metadata.uuid

        try session.stack.resetStore()
        #expect(session.stack.store.metadata.uuid != oldStore)
        #expect(await session.listed().isEmpty)
        #expect(session.monitorChanges == [.deleted(session.monitor.objectID)])
        #expect(session.worker.performAndWait { !session.worker.hasChanges && session.worker.registeredObjects.isEmpty })
        #expect(await MainActor.run { session.stack.mainContext.performAndWait { session.stack.mainContext.registeredObjects.isEmpty } })

        try await session.stack.save(inBackground: { context in
            for name in ["bob 1", "bob 2"] { try context.insert("Tag").setValue(name, forKey: "name") }
        })
        await MainActor.run {}
        #expect(await session.listed() == ["bob 1", "bob 2"])
        #expect(session.monitorChanges.count == 1)
    }

    @Test func idsAndURIsOfTheOldStoreOrOfNoStoreAreRefusedWhereTheyWouldOpenTheNextUsersRows() async throws {
        let session = try await Session()
        let oldID = session.monitor.objectID
        let uri = oldID.uriRepresentation()
        try session.stack.resetStore()
        try await session.stack.save(inBackground: { try $0.insert("Tag").setValue("bob 1", forKey: "name") })
        let madeUp = try #require(ObjectID(uri: URL(string: "x-coredata://00000000-0000-0000-0000-000000000000/Tag/p1")!))
        let root = session.stack.rootContext
        let newStore = session.stack.store.metadata.uuid
        for id in [oldID, try #require(ObjectID(uri: uri)), madeUp] {
            #expect(throws: ContextError.objectOfAnotherStore(id, contextStore: newStore)) {
                try root.performAndWait { _ = try root.existingObject(with: id) }
            }
            let worker = session.stack.newWorkerContext()
            #expect(throws: ContextError.objectOfAnotherStore(id, contextStore: newStore)) {
                try worker.performAndWait { _ = try worker.object(with: id).value(forKey: "name") }
            }
        }
        // Linked, such an ID would write the old row's key into the new store.
        let background = session.stack.newWorkerContext()
        try background.performAndWait {
            let book = try background.insert("Book")
            #expect(throws: ContextError.objectOfAnotherStore(oldID, contextStore: newStore)) {
                try book.add(background.object(with: oldID), toKey: "tags")
            }
        }
    }

    @Test func anObjectHeldAcrossTheResetReadsAsLastSeenAndRefusesChangesWithoutStopping() async throws {
        let session = try await Session()
        try session.stack.resetStore()
        let held = session.held
        let id = held.objectID
        await MainActor.run {
            #expect(held.managedObjectContext == nil)
            #expect(held.name == "alice 1")
            #expect(held.books.isEmpty)
            #expect(held["name"] == nil)
            #expect(throws: ContextError.forgottenObject(id)) { try held.setValue("changed", forKey: "name") }
            #expect(throws: ContextError.forgottenObject(id)) { try held.value(forKey: "name") }
        }
    }

    /// A tag whose name a screen reads as a non-optional `String`.
    final class NamedTag: ManagedObject, @unchecked Sendable {
        override class var entityName: String { "Tag" }
        @Attribute("name") var name: String
    }

    /// A fault the app holds but never read cannot load once its context forgot it, and a
    /// non-optional typed property cannot throw: the reset loads such faults first, in the main
    /// context and in a worker below it, so that they read as the old user's data.
    @Test func aHeldFaultNeverReadReadsThroughANonOptionalTypedPropertyAfterTheReset() async throws {
        let folder = try TemporaryFolder()
        let stack = try DataStack(model: DataStackTests.library, modelName: "Library", store: .sqlite(folder.url.appendingPathComponent("Library.sqlite")))
        stack.register([NamedTag.self])
        try await stack.save(inBackground: { context in
            for name in ["alice 1", "alice 2", "alice 3"] { try context.insert("Tag").setValue(name, forKey: "name") }
        })
        let ids = try await stack.background { try $0.fetchObjectIDs(FetchRequest(entityName: "Tag", sortDescriptors: [ObjectSortDescriptor("name")])) }
        let main = stack.mainContext
        // Turned into faults, as objects are that a context refreshed or that came with a merge.
        let onMain = await MainActor.run {
            main.performAndWait {
                ids.map { id in
                    let tag = main.object(with: id) as! NamedTag
                    main.refresh(tag, mergeChanges: false)
                    return tag
                }
            }
        }
        let worker = stack.newWorkerContext()
        let inWorker = worker.performAndWait {
            let tag = worker.object(with: ids[2]) as! NamedTag
            worker.refresh(tag, mergeChanges: false)
            return tag
        }
        #expect((onMain + [inWorker]).allSatisfy { $0.isFault })

        try stack.resetStore()
        await MainActor.run {
            #expect(onMain.map(\.name) == ["alice 1", "alice 2", "alice 3"])
            #expect(onMain.allSatisfy { $0.managedObjectContext == nil })
        }
        #expect(inWorker.name == "alice 3")
        #expect(throws: ContextError.forgottenObject(ids[2])) { try inWorker.setValue("changed", forKey: "name") }
    }

    @Test func aResetRefusesWhileAnotherConnectionWritesAndTheStackGoesOnWithTheOldStore() async throws {
        let session = try await Session()
        var configuration = Database.Configuration()
        configuration.busyTimeout = .milliseconds(50)
        let other = try PersistentStore.open(at: session.url.path, model: session.stack.model, configuration: configuration)
        try other.database.execute("BEGIN IMMEDIATE")
        try other.database.execute("UPDATE ZTAG SET ZNAME = 'written elsewhere' WHERE ZNAME = 'alice 2'")
        #expect {
            try session.stack.resetStore()
        } throws: { error in
            guard case StoreError.inUse(let path, _) = error else { return false }
            return path == session.url.path && String(describing: error).contains("the store is open in another connection")
        }
        try other.database.execute("COMMIT")
        other.close()
        let store = session.stack.store
        let names = try store.withConnection { try store.rows("Tag").compactMap { $0.values["name"]?.stringValue } }.sorted()
        #expect(names == ["alice 1", "alice 3", "written elsewhere"])
        try await session.stack.save(inBackground: { try $0.insert("Tag").setValue("alice 4", forKey: "name") })
        try session.stack.resetStore()
        #expect(try await session.stack.background { try $0.count(for: FetchRequest(entityName: "Tag")) } == 0)
    }

    @Test func aStoreReachedThroughASymbolicLinkIsResetWhereItLivesAndTheLinkKept() async throws {
        let folder = try TemporaryFolder()
        let real = folder.url.appendingPathComponent("Real.sqlite")
        let link = folder.url.appendingPathComponent("Link.sqlite")
        _ = try PersistentStore.create(at: real.path, model: DataStackTests.library)
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: real.path)
        let stack = try DataStack(model: DataStackTests.library, store: .sqlite(link))
        try await stack.save(inBackground: { try $0.insert("Tag").setValue("kept?", forKey: "name") })
        try stack.resetStore()
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == real.path)
        let reopened = try PersistentStore.open(at: real.path, model: DataStackTests.library)
        #expect(try reopened.withConnection { try reopened.rows("Tag") }.isEmpty)
        #expect(reopened.metadata.uuid == stack.store.metadata.uuid)
    }
}
