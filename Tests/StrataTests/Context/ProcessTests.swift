import Foundation
import Testing
@testable import Strata
import StrataTestSupport

/// Behaviour that needs a process of its own: a debug trap, and a second writer.
@Suite(.serialized) struct ProcessTests {
    /// The store the test shares with its child process. Exit-test bodies cannot capture
    /// values, so the path travels in the environment, which the child inherits.
    static let pathVariable = "STRATA_TEST_SHARED_STORE"

    @Test func usingAContextOffItsQueueStopsADebugBuild() async throws {
        // The child stops at the trap and removes nothing: its store is in this process's folder.
        let folder = try TemporaryFolder("strata-off-queue")
        setenv(Self.pathVariable, folder.path("s.sqlite"), 1)
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let path = ProcessInfo.processInfo.environment[ProcessTests.pathVariable]!
            let model = ObjectModel(entities: [EntityDescription(name: "Item")])
            let store = try! PersistentStore.create(at: path, model: model)
            let context = ObjectContext(store: store)
            _ = try? context.insert("Item")
        }
        let message = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(message.contains("used off its context's queue: wrap it in perform or performAndWait"))
        withExtendedLifetime(folder) {}
    }

    @Test(arguments: [MergePolicy.error, .mergeByPropertyObjectTrump, .rollback])
    func aConflictWithAnotherProcessIsFoundAndResolved(policy: MergePolicy) async throws {
        let folder = try TemporaryFolder()
        let path = folder.path("shared.sqlite")
        setenv(Self.pathVariable, path, 1)
        let model = try ModelLoader.load(Fixtures.exampleModel).currentVersion.model
        let store = try PersistentStore.create(at: path, model: model)
        let context = ObjectContext(store: store)
        context.mergePolicy = policy
        let id = try context.performAndWait {
            let tag = try context.insert("Tag")
            try tag.setValue("original", forKey: "name")
            try context.save()
            try tag.setValue("this process", forKey: "name")
            return tag.objectID
        }
        // Another process saves the same row.
        await #expect(processExitsWith: .success) {
            let model = try! ModelLoader.load(Fixtures.exampleModel).currentVersion.model
            let path = ProcessInfo.processInfo.environment[ProcessTests.pathVariable]!
            let other = ObjectContext(store: try! PersistentStore.open(at: path, model: model))
            try! other.performAndWait {
                let id = ObjectID(entityName: "Tag", storeIdentifier: other.store.metadata.uuid, key: .permanent(1))
                try other.existingObject(with: id).setValue("other process", forKey: "name")
                try other.save()
            }
        }
        var failure: ContextError?
        context.performAndWait {
            do { try context.save() } catch let error as ContextError { failure = error } catch {}
        }
        let stored = try store.withConnection { try store.row("Tag", primaryKey: 1)?.values["name"]?.stringValue }
        switch policy {
        case .error:
            #expect(failure == .conflict(object: id, expectedVersion: 1, storeVersion: 2))
            #expect(stored == "other process")
        case .rollback:
            #expect(failure == nil && stored == "other process")
        default:
            #expect(failure == nil && stored == "this process")
        }
    }
}
