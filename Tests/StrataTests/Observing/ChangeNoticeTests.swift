import Foundation
import Testing
@testable import Strata
import StrataTestSupport

/// Notices as Core Data's controller and CoreStore's monitors give them: one per object per
/// save, whatever path the save takes through a stack's contexts.
@Suite struct ChangeNoticeTests {
    /// A three-tier stack with a controller of the tags and a monitor of one, on the main
    /// context, recording what they tell.
    final class Screen: @unchecked Sendable {
        let folder: TemporaryFolder
        let stack: DataStack
        let controller: FetchedResultsController
        let monitor: ObjectMonitor
        let watched: ObjectID
        var listChanges: [ResultsChange] = []
        var objectChanges: [ObjectMonitor.Change] = []

        init(topology: DataStack.Topology) async throws {
            folder = try TemporaryFolder()
            var options = DataStack.Options()
            options.topology = topology
            stack = try DataStack(model: DataStackTests.library, store: .sqlite(folder.url.appendingPathComponent("Library.sqlite")), options: options)
            try await stack.save(inBackground: { try $0.insert("Tag").setValue("watched", forKey: "name") })
            await MainActor.run {}
            let main = stack.mainContext
            let request = FetchRequest(entityName: "Tag", sortDescriptors: [ObjectSortDescriptor("name")])
            (controller, monitor, watched) = try await MainActor.run {
                try main.performAndWait {
                    let controller = FetchedResultsController(fetchRequest: request, context: main)
                    try controller.performFetch()
                    let watched = try #require(controller.fetchedObjects.first)
                    return (controller, try ObjectMonitor(watched), watched.objectID)
                }
            }
            controller.onChange = { [unowned self] change in listChanges.append(change) }
            monitor.onChange = { [unowned self] change in objectChanges.append(change) }
        }

        /// Lets the main queue run what saves queued on it.
        func settle() async {
            for _ in 0..<3 { await MainActor.run {} }
        }
    }

    @Test(arguments: [DataStack.Topology.threeTier, .twoTier])
    func aBackgroundInsertIsOneNoticeAndAnIDBecomingPermanentIsNoMove(topology: DataStack.Topology) async throws {
        let screen = try await Screen(topology: topology)
        try await screen.stack.save(inBackground: { try $0.insert("Tag").setValue("new", forKey: "name") })
        await screen.settle()
        #expect(screen.listChanges.count == 1, "\(screen.listChanges)")
        #expect(screen.listChanges.first.map { $0.inserted.count == 1 && $0.moved.isEmpty && $0.updated.isEmpty } == true)
        #expect(screen.listChanges.first?.inserted.first.map { !$0.id.isTemporary } == true, "the list learns the object by its permanent ID")
        #expect(screen.objectChanges.isEmpty)
    }

    @Test(arguments: [DataStack.Topology.threeTier, .twoTier])
    func aBackgroundUpdateIsOneNoticeNamingTheChangedKeys(topology: DataStack.Topology) async throws {
        let screen = try await Screen(topology: topology)
        let id = screen.watched
        for round in 1...3 {
            try await screen.stack.save(inBackground: { try $0.object(with: id).setValue("watched \(round)", forKey: "name") })
        }
        await screen.settle()
        #expect(screen.objectChanges == Array(repeating: .updated(id, keys: ["name"]), count: 3))
        #expect(screen.listChanges.count == 3)
        // The name is the sort key: a renamed object is moved, in its place.
        #expect(screen.listChanges.allSatisfy { ($0.updated.map(\.id) + $0.moved.map(\.id)) == [id] && $0.inserted.isEmpty && $0.deleted.isEmpty })
    }
}

/// A screen of the app, on the main actor, that adopts the delegate protocol as the
/// controller's documentation shows: with a `@preconcurrency` conformance, which checks at run
/// time that the calls come on the main actor, as a main-queue context's do.
@MainActor final class TagListScreen {
    var told: [ResultsChange] = []
}

extension TagListScreen: @preconcurrency FetchedResultsControllerDelegate {
    func controller(_ controller: FetchedResultsController, didChange change: ResultsChange) {
        told.append(change)
    }
}

extension ChangeNoticeTests {
    @Test @MainActor func aMainActorScreenAdoptsTheDelegateAndHearsEachSaveOnce() async throws {
        let screen = try await Screen(topology: .threeTier)
        let list = TagListScreen()
        screen.controller.delegate = list
        try await screen.stack.save(inBackground: { try $0.insert("Tag").setValue("new", forKey: "name") })
        await screen.settle()
        #expect(list.told.count == 1)
        #expect(list.told.first?.inserted.count == 1)
    }

    @Test func anObjectReturnedFromABackgroundBlockIsRefusedAndItsIDIsUsable() async throws {
        let screen = try await Screen(topology: .threeTier)
        await #expect {
            _ = try await screen.stack.background { context in (1, [try context.insert("Tag")]) }
        } throws: { error in
            guard case ContextError.objectOutlivesItsContext = error else { return false }
            return String(describing: error).contains("return its objectID")
        }
        let id = try await screen.stack.background { context in
            let tag = try context.insert("Tag")
            try tag.setValue("made in the background", forKey: "name")
            try context.commit()
            return tag.objectID
        }
        let main = screen.stack.mainContext
        #expect(await MainActor.run { main.performAndWait { main.object(with: id)["name"] as? String } } == "made in the background")
    }
}
