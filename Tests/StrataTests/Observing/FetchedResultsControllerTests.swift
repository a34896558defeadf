import Foundation
import Testing
@testable import Strata
import StrataTestSupport

/// A fetched-results controller must show what a new fetch shows after every save, merge and
/// child's save, and tell each change so that a list applying it ends with those results.
@Suite struct FetchedResultsControllerTests {
    static let library = """
        {"entities": [
          {"name": "Author", "attributes": [{"name": "name", "type": "string"}],
           "relationships": [{"name": "books", "destination": "Book", "inverse": "author", "toMany": true}]},
          {"name": "Book", "attributes": [{"name": "title", "type": "string"}, {"name": "rating", "type": "double"},
                                          {"name": "genre", "type": "string"}],
           "relationships": [{"name": "author", "destination": "Author", "inverse": "books"}]}]}
        """

    /// A store of the library model, a context that shows it, and a controller of the books
    /// `format` selects, sorted by title, in sections by genre when `sectioned`.
    final class Fixture: @unchecked Sendable {
        let folder: TemporaryFolder
        let store: PersistentStore
        let viewer: ObjectContext
        let controller: FetchedResultsController
        /// Every change the controller told, with the results before and after it.
        var told: [(before: ResultsSnapshot, change: ResultsChange, after: ResultsSnapshot)] = []
        private var before = ResultsSnapshot()
        private var observations: [DidSaveObservation] = []

        init(_ format: String = "rating >= 3", sectioned: Bool = true) throws {
            folder = try TemporaryFolder()
            store = try PersistentStore.create(at: folder.path("Library.sqlite"), model: JSONModelReader.read(Data(FetchedResultsControllerTests.library.utf8), path: "library.json"))
            viewer = ObjectContext(store: store, name: "viewer")
            let request = FetchRequest(entityName: "Book", predicate: try ObjectPredicate(format: format), sortDescriptors: [ObjectSortDescriptor("title")])
            controller = FetchedResultsController(fetchRequest: request, context: viewer, sectionNameKeyPath: sectioned ? "genre" : nil)
            try viewer.performAndWait {
                try controller.performFetch()
                before = controller.snapshot
            }
            controller.onChange = { [unowned self] change in
                let after = controller.snapshot
                told.append((before, change, after))
                before = after
            }
        }

        /// A context on the store whose saves the viewer merges at once.
        func writer(_ name: String = "writer") -> ObjectContext {
            let writer = ObjectContext(store: store, name: name)
            let viewer = self.viewer
            observations.append(writer.addDidSaveObserver { note in viewer.performAndWait { viewer.mergeChanges(fromContextDidSave: note) } })
            return writer
        }

        /// The results a new fetch gives.
        func fetchedAgain() throws -> ResultsSnapshot {
            try viewer.performAndWait {
                let fresh = FetchedResultsController(fetchRequest: controller.fetchRequest, context: viewer, sectionNameKeyPath: controller.sectionNameKeyPath)
                try fresh.performFetch()
                return fresh.snapshot
            }
        }

        /// Checks every change told: applied to the results before it, it gives those after.
        func expectConsistent(sourceLocation: Testing.SourceLocation = #_sourceLocation) throws {
            for (before, change, after) in told {
                #expect(before.applying(change) == after, "\(change)", sourceLocation: sourceLocation)
            }
            #expect(try viewer.performAndWait { controller.snapshot } == fetchedAgain(), sourceLocation: sourceLocation)
        }

        func titles() -> [[String]] {
            viewer.performAndWait {
                controller.snapshot.sections.map { section in
                    section.objectIDs.map { (try? viewer.object(with: $0).attributeValue(forKey: "title")).flatMap { $0.map(ImportFixture.text) } ?? "?" }
                }
            }
        }
    }

    @discardableResult
    static func book(_ title: String, rating: Double, genre: String, in context: ObjectContext) throws -> ManagedObject {
        let book = try context.insert("Book")
        try book.setValue(title, forKey: "title")
        try book.setValue(rating, forKey: "rating")
        try book.setValue(genre, forKey: "genre")
        return book
    }

    static func book(_ title: String, in context: ObjectContext) throws -> ManagedObject {
        try #require(try context.fetch(FetchRequest(entityName: "Book", predicate: try ObjectPredicate(format: "title == %@", title))).first)
    }

    // MARK: - Each kind of change

    @Test func fetchesInSectionsSortedAndFindsEachObject() throws {
        let fixture = try Fixture()
        let writer = fixture.writer()
        try writer.performAndWait {
            for (title, rating, genre) in [("Dune", 4.5, "sf"), ("Emma", 4.0, "classic"), ("Ubik", 3.5, "sf"), ("Bad", 1.0, "sf")] {
                try Self.book(title, rating: rating, genre: genre, in: writer)
            }
            try writer.save()
        }
        #expect(fixture.titles() == [["Emma"], ["Dune", "Ubik"]])
        let (names, title, index) = try fixture.viewer.performAndWait {
            let ubik = fixture.controller.object(at: ResultsIndex(item: 1, section: 1))
            return (fixture.controller.sections.map(\.name), try ubik.attributeValue(forKey: "title"), fixture.controller.index(of: ubik))
        }
        #expect(names == ["classic", "sf"])
        #expect(title == .string("Ubik"))
        #expect(index == ResultsIndex(item: 1, section: 1))
        let change = try #require(fixture.told.last?.change)
        #expect(change.insertedSections.map(\.name) == ["classic", "sf"])
        #expect(change.inserted.map(\.index) == [ResultsIndex(item: 0, section: 0), ResultsIndex(item: 0, section: 1), ResultsIndex(item: 1, section: 1)])
        try fixture.expectConsistent()
    }

    @Test func updatesMovesDeletionsAndSectionsAreToldAsAListAppliesThem() throws {
        let fixture = try Fixture()
        let writer = fixture.writer()
        try writer.performAndWait {
            for (title, genre) in [("A", "sf"), ("C", "sf"), ("E", "sf"), ("M", "classic")] { try Self.book(title, rating: 4, genre: genre, in: writer) }
            try writer.save()

            try Self.book("C", in: writer).setValue(4.9, forKey: "rating")
            try writer.save()
            try Self.book("A", in: writer).setValue("Z", forKey: "title")
            try writer.save()
            try Self.book("E", in: writer).setValue(1.0, forKey: "rating")
            try writer.save()
            _ = try writer.delete(try Self.book("M", in: writer))
            try writer.save()
            try Self.book("C", in: writer).setValue("poetry", forKey: "genre")
            try writer.save()
        }
        let changes = fixture.told.map(\.change)
        #expect(changes.count == 6)
        #expect(changes[1].updated.map(\.index) == [ResultsIndex(item: 1, section: 1)], "C's rating: it stays, changed")
        #expect(changes[2].moved.map { [$0.from, $0.to] } == [[ResultsIndex(item: 0, section: 1), ResultsIndex(item: 2, section: 1)]], "A becomes Z")
        #expect(changes[3].deleted.map(\.index) == [ResultsIndex(item: 1, section: 1)], "E falls below the predicate")
        #expect(changes[4].deletedSections == [0] && changes[4].deleted.count == 1, "the last classic goes with its section")
        #expect(changes[5].insertedSections.map(\.name) == ["poetry"] && changes[5].moved.count == 1)
        #expect(fixture.titles() == [["C"], ["Z"]])
        try fixture.expectConsistent()
    }

    @Test func aRelationshipChangeMakesObjectsEnterAndLeave() throws {
        let fixture = try Fixture("author.name == 'Le Guin'", sectioned: false)
        let writer = fixture.writer()
        try writer.performAndWait {
            let leGuin = try writer.insert("Author"), other = try writer.insert("Author")
            try leGuin.setValue("Le Guin", forKey: "name")
            try other.setValue("Herbert", forKey: "name")
            try Self.book("Earthsea", rating: 5, genre: "f", in: writer).setValue(leGuin, forKey: "author")
            try Self.book("Dune", rating: 5, genre: "sf", in: writer).setValue(other, forKey: "author")
            try writer.save()
            #expect(fixture.titles() == [["Earthsea"]])

            try Self.book("Dune", in: writer).setValue(leGuin, forKey: "author")
            try writer.save()
            #expect(fixture.titles() == [["Dune", "Earthsea"]], "the book's own link changed")

            try leGuin.setValue("Ursula K. Le Guin", forKey: "name")
            try writer.save()
            #expect(fixture.titles() == [], "the author's name changed: both books leave")
        }
        try fixture.expectConsistent()
    }

    @Test func aChildsSaveChangesItsParentsResults() throws {
        let fixture = try Fixture(sectioned: false)
        let child = ObjectContext(parent: fixture.viewer, name: "editor")
        try child.performAndWait {
            try Self.book("Kindred", rating: 5, genre: "sf", in: child)
            try child.save()
        }
        #expect(fixture.titles() == [["Kindred"]], "the viewer holds the child's book, unsaved")
        try fixture.viewer.performAndWait { try fixture.viewer.save() }
        #expect(fixture.told.count == 2, "the parent's save gives the book its permanent ID")
        try fixture.expectConsistent()
        #expect(fixture.viewer.performAndWait { fixture.controller.snapshot.objectIDs.allSatisfy { !$0.isTemporary } })
    }

    /// A controller on a child context: its commit through the parent gives the child's
    /// objects permanent IDs, and the results follow.
    @Test func aCommitFromAChildGivesItsResultsPermanentIDs() throws {
        let fixture = try Fixture(sectioned: false)
        let child = ObjectContext(parent: fixture.viewer, name: "editor")
        let controller = FetchedResultsController(fetchRequest: fixture.controller.fetchRequest, context: child)
        var changes = 0
        try child.performAndWait {
            try controller.performFetch()
            controller.onChange = { _ in changes += 1 }
            try Self.book("Kindred", rating: 5, genre: "sf", in: child)
            try child.commit()
        }
        let ids = child.performAndWait { controller.snapshot.objectIDs }
        #expect(ids.count == 1 && ids.allSatisfy { !$0.isTemporary }, "\(ids)")
        #expect(changes == 1, "inserted once, under the permanent ID the commit gave it")
        #expect(try fixture.fetchedAgain().objectIDs == ids)
    }

    /// Another connection to the store (another process) saves; the viewer hears nothing
    /// until it merges external changes, and then its results are those of a new fetch.
    @Test func savesThroughAnotherConnectionArriveAtTheNextExternalMerge() throws {
        let fixture = try Fixture(sectioned: false)
        let writer = fixture.writer()
        try writer.performAndWait {
            for (title, rating) in [("Dune", 5.0), ("Emma", 4.0), ("Ubik", 4.0)] { try Self.book(title, rating: rating, genre: "x", in: writer) }
            try writer.save()
        }
        let other = try PersistentStore.open(at: fixture.folder.path("Library.sqlite"), model: fixture.store.model)
        let outsider = ObjectContext(store: other, name: "another process")
        try outsider.performAndWait {
            try Self.book("Kindred", rating: 5, genre: "x", in: outsider)
            try Self.book("Dune", in: outsider).setValue("Dune Messiah", forKey: "title")
            try Self.book("Ubik", in: outsider).setValue(1.0, forKey: "rating")
            _ = try outsider.delete(try Self.book("Emma", in: outsider))
            try outsider.save()
        }
        #expect(fixture.titles() == [["Dune", "Emma", "Ubik"]], "nothing merged yet")
        let viewer = fixture.viewer
        let change = try viewer.performAndWait { try viewer.mergeExternalChanges() }
        #expect(change.storeChangedElsewhere && change.updated.count == 2 && change.deleted.count == 1)
        #expect(fixture.titles() == [["Dune Messiah", "Kindred"]])
        try fixture.expectConsistent()
        #expect(try viewer.performAndWait { try viewer.mergeExternalChanges() }.isEmpty, "nothing new since")
        other.close()
    }

    @Test func aResetReadsTheResultsAgain() throws {
        let fixture = try Fixture(sectioned: false)
        let writer = fixture.writer()
        try writer.performAndWait {
            try Self.book("Kindred", rating: 5, genre: "sf", in: writer)
            try writer.save()
        }
        fixture.viewer.performAndWait { fixture.viewer.reset() }
        let reload = try #require(fixture.told.last?.change)
        #expect(reload.deleted.count == 1 && reload.inserted.count == 1)
        try fixture.expectConsistent()
    }

    // MARK: - Delivery

    @Test func changesArriveAsAnAsynchronousSequenceAndThroughTheDelegate() async throws {
        final class Delegate: FetchedResultsControllerDelegate {
            var count = 0
            func controller(_ controller: FetchedResultsController, didChange change: ResultsChange) { count += 1 }
        }
        let fixture = try Fixture(sectioned: false)
        let delegate = Delegate()
        fixture.controller.delegate = delegate
        let changes = fixture.controller.changes
        let writer = fixture.writer()
        try writer.performAndWait {
            try Self.book("Kindred", rating: 5, genre: "sf", in: writer)
            try writer.save()
        }
        var iterator = changes.makeAsyncIterator()
        let first = try #require(await iterator.next())
        #expect(first.inserted.count == 1)
        #expect(delegate.count == 1)
    }

    @Test func theSequenceEndsWhenTheControllerGoes() async throws {
        var fixture: Fixture? = try Fixture(sectioned: false)
        let changes = try #require(fixture).controller.changes
        fixture = nil
        var count = 0
        for await _ in changes { count += 1 }
        #expect(count == 0)
    }

    // MARK: - Stress

    /// Contexts one after another save random inserts, edits and deletions; the viewer merges
    /// each save.
    @Test func manySavesFromBackgroundContextsKeepTheResultsRight() throws {
        let fixture = try Fixture("rating >= 2")
        var random = SystemRandomNumberGenerator()
        let genres = ["sf", "classic", "poetry", "crime"]
        for round in 0..<60 {
            let writer = fixture.writer("writer \(round)")
            try writer.performAndWait {
                let existing = try writer.fetch(FetchRequest(entityName: "Book"))
                for _ in 0..<Int.random(in: 1...6, using: &random) {
                    switch Int.random(in: 0..<4, using: &random) {
                    case 0 where !existing.isEmpty:
                        let book = existing.randomElement(using: &random)!
                        if !book.isDeleted { _ = try writer.delete(book) }
                    case 1 where !existing.isEmpty:
                        let book = existing.randomElement(using: &random)!
                        if !book.isDeleted {
                            try book.setValue(Double.random(in: 0...5, using: &random).rounded(), forKey: "rating")
                            try book.setValue(genres.randomElement(using: &random)!, forKey: "genre")
                        }
                    case 2 where !existing.isEmpty:
                        let book = existing.randomElement(using: &random)!
                        if !book.isDeleted { try book.setValue("T\(Int.random(in: 0..<40, using: &random))", forKey: "title") }
                    default:
                        try Self.book("T\(Int.random(in: 0..<40, using: &random))", rating: Double.random(in: 0...5, using: &random).rounded(),
                                      genre: genres.randomElement(using: &random)!, in: writer)
                    }
                }
                try writer.save()
            }
        }
        #expect(fixture.told.count > 30)
        try fixture.expectConsistent()
    }

    /// Workers of a stack save at once; each save reaches the main context (through it, in
    /// three tiers; merged from the root, in two) or a view context, whose controller must end
    /// with what a new fetch shows.
    @Test(arguments: [(DataStack.Topology.threeTier, false), (.twoTier, false), (.threeTier, true)])
    func concurrentWorkerSavesOfAStackReachTheResults(topology: DataStack.Topology, inViewContext: Bool) async throws {
        let folder = try TemporaryFolder()
        let model = try JSONModelReader.read(Data(Self.library.utf8), path: "library.json")
        var options = DataStack.Options()
        options.topology = topology
        let stack = try DataStack(model: model, store: .sqlite(folder.url.appendingPathComponent("Library.sqlite")), options: options)
        let main = inViewContext ? stack.newViewContext() : stack.mainContext
        let request = FetchRequest(entityName: "Book", predicate: try ObjectPredicate(format: "rating >= 2"), sortDescriptors: [ObjectSortDescriptor("title")])
        let controller = FetchedResultsController(fetchRequest: request, context: main, sectionNameKeyPath: "genre")
        let told = Locked<[(ResultsSnapshot, ResultsChange, ResultsSnapshot)]>([])
        try await MainActor.run {
            try main.performAndWait { try controller.performFetch() }
            var before = controller.snapshot
            controller.onChange = { change in
                let after = controller.snapshot
                told.withLock { $0.append((before, change, after)) }
                before = after
            }
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<4 {
                group.addTask {
                    for round in 0..<8 {
                        try await stack.save(inBackground: { context in
                            try Self.book("W\(worker)-\(round)", rating: Double(round % 5), genre: round % 2 == 0 ? "even" : "odd", in: context)
                            if round > 0 {
                                let earlier = try Self.book("W\(worker)-\(round - 1)", in: context)
                                try earlier.setValue(Double((round + 2) % 5), forKey: "rating")
                            }
                        })
                    }
                }
            }
            try await group.waitForAll()
        }
        // Merges into main-queue contexts come as blocks on the main queue: these run after them.
        await MainActor.run {}
        await MainActor.run {}
        let (shown, fetched) = try await MainActor.run {
            try main.performAndWait {
                let fresh = FetchedResultsController(fetchRequest: request, context: main, sectionNameKeyPath: "genre")
                try fresh.performFetch()
                return (controller.snapshot, fresh.snapshot)
            }
        }
        #expect(shown == fetched)
        #expect(shown.objectIDs.allSatisfy { !$0.isTemporary })
        for (before, change, after) in told.withLock({ $0 }) {
            #expect(before.applying(change) == after, "\(change)")
        }
        // Commits that pass through the main context at once are told together, as one
        // notice, as are a view context's merges of the root's commits.
        #expect(told.withLock { !$0.isEmpty }, "rounds 1 to 7 of each worker change the results")
    }
}

