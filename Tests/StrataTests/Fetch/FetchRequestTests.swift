import Foundation
import Testing
@testable import Strata

@Suite struct FetchRequestTests {
    @Test func sortsLimitsAndOffsetsInTheStore() throws {
        let library = try FetchTestLibrary()
        let context = library.context
        try context.performAndWait {
            var request = FetchRequest(entityName: "Book", sortDescriptors: [ObjectSortDescriptor("title")])
            #expect(try library.titles(context.fetch(request)) == [
                "A Wizard of Earthsea", "Children of Dune", "Dune", "The Dispossessed", "The Hobbit", "The Lord of the Rings",
                "anonymous notes", "the Silmarillion",
            ])
            request.sortDescriptors = [ObjectSortDescriptor("title", caseInsensitive: true)]
            #expect(try library.titles(context.fetch(request)) == [
                "A Wizard of Earthsea", "anonymous notes", "Children of Dune", "Dune", "The Dispossessed", "The Hobbit",
                "The Lord of the Rings", "the Silmarillion",
            ])
            request.sortDescriptors = [ObjectSortDescriptor("rating", ascending: false), ObjectSortDescriptor("title")]
            request.fetchOffset = 1
            request.fetchLimit = 3
            #expect(try library.titles(context.fetch(request)) == ["Dune", "The Hobbit", "A Wizard of Earthsea"])
            request = FetchRequest(entityName: "Book", sortDescriptors: [ObjectSortDescriptor("author.name"), ObjectSortDescriptor("title", ascending: false)])
            request.predicate = try ObjectPredicate(format: "author != nil")
            #expect(try library.titles(context.fetch(request)) == [
                "Dune", "Children of Dune", "The Dispossessed", "A Wizard of Earthsea", "the Silmarillion", "The Lord of the Rings", "The Hobbit",
            ])
        }
    }

    @Test func subentitiesAreIncludedUnlessExcluded() throws {
        let library = try FetchTestLibrary()
        let context = library.context
        try context.performAndWait {
            var request = FetchRequest(entityName: "Book", predicate: try ObjectPredicate(format: "title BEGINSWITH[c] 'the'"))
            let all = try context.fetch(request)
            #expect(all.count == 4)
            #expect(all.filter { $0.entity.name == "EBook" }.count == 2)
            #expect(try all.first { $0.entity.name == "EBook" }?.value(forKey: "format") as? String == "epub")
            request.includesSubentities = false
            #expect(try library.titles(context.fetch(request)).sorted() == ["The Hobbit", "The Lord of the Rings"])
            #expect(try context.count(for: request) == 2)
            #expect(try context.fetch(FetchRequest(entityName: "EBook")).count == 2)
        }
    }

    @Test func pendingChangesCountUnlessExcluded() throws {
        let library = try FetchTestLibrary()
        let context = library.context
        try context.performAndWait {
            var request = FetchRequest(entityName: "Book", predicate: try ObjectPredicate(format: "rating >= 4.5"))
            request.sortDescriptors = [ObjectSortDescriptor("rating", ascending: false), ObjectSortDescriptor("title")]
            #expect(try library.titles(context.fetch(request)) == ["The Lord of the Rings", "Dune", "The Hobbit"])
            let inserted = try library.fixture.book("Zed", isbn: "9780000000999")
            try inserted.setValue(4.8, forKey: "rating")
            let hobbit = try #require(context.fetch(FetchRequest(entityName: "Book", predicate: try ObjectPredicate(format: "title == 'The Hobbit'"))).first)
            try hobbit.setValue(5.0, forKey: "rating")
            let dune = try #require(context.fetch(FetchRequest(entityName: "Book", predicate: try ObjectPredicate(format: "title == 'Dune'"))).first)
            try context.delete(dune)
            let earthsea = try #require(context.fetch(FetchRequest(entityName: "Book", predicate: try ObjectPredicate(format: "title BEGINSWITH 'A Wiz'"))).first)
            try earthsea.setValue(1.0, forKey: "rating")
            #expect(try library.titles(context.fetch(request)) == ["The Hobbit", "The Lord of the Rings", "Zed"])
            #expect(try context.count(for: request) == 3)
            request.fetchLimit = 2
            #expect(try library.titles(context.fetch(request)) == ["The Hobbit", "The Lord of the Rings"])
            request.fetchOffset = 2
            #expect(try library.titles(context.fetch(request)) == ["Zed"])
            #expect(try context.count(for: request) == 1)
            #expect(try context.fetchObjectIDs(request) == [inserted.objectID])
            request = FetchRequest(entityName: "Book", predicate: try ObjectPredicate(format: "rating >= 4.5"))
            request.includesPendingChanges = false
            request.sortDescriptors = [ObjectSortDescriptor("title")]
            // The saved state, though the registered objects show their changed values.
            #expect(try context.fetch(request).map(\.objectID).contains(dune.objectID))
            #expect(try context.count(for: request) == 3)
        }
    }

    @Test func aChildSeesItsParentsPendingChanges() throws {
        let library = try FetchTestLibrary()
        let parent = library.context
        let (insertedID, duneID) = try parent.performAndWait {
            let inserted = try library.fixture.book("Zed", isbn: "9780000000999")
            try inserted.setValue(4.8, forKey: "rating")
            let dune = try #require(parent.fetch(FetchRequest(entityName: "Book", predicate: try ObjectPredicate(format: "title == 'Dune'"))).first)
            try parent.delete(dune)
            return (inserted.objectID, dune.objectID)
        }
        let child = ObjectContext(parent: parent)
        try child.performAndWait {
            let request = FetchRequest(entityName: "Book", predicate: try ObjectPredicate(format: "rating >= 4.5"), sortDescriptors: [ObjectSortDescriptor("title")])
            let ids = try child.fetchObjectIDs(request)
            #expect(ids.contains(insertedID))
            #expect(!ids.contains(duneID))
            let hobbit = try #require(child.fetch(request).first { try $0.value(forKey: "title") as? String == "The Hobbit" })
            try hobbit.setValue(1.0, forKey: "rating")
            #expect(try library.titles(child.fetch(request)) == ["The Lord of the Rings", "Zed"])
            #expect(try child.count(for: request) == 2)
        }
    }

    @Test func resultTypes() throws {
        let library = try FetchTestLibrary()
        let context = library.context
        try context.performAndWait {
            var request = FetchRequest(entityName: "Author", sortDescriptors: [ObjectSortDescriptor("name")])
            request.resultType = .managedObjectID
            guard case .objectIDs(let ids) = try context.execute(request) else { Issue.record("expected IDs"); return }
            #expect(ids.map(\.entityName) == ["Author", "Author", "Author"])
            #expect(context.registeredObjects.isEmpty)
            request.resultType = .count
            guard case .count(3) = try context.execute(request) else { Issue.record("expected a count of 3"); return }
            request.resultType = .dictionary
            request.propertiesToFetch = [.keyPath("name"), .keyPath("remoteID", as: "id")]
            guard case .dictionaries(let rows) = try context.execute(request) else { Issue.record("expected dictionaries"); return }
            #expect(rows.map { $0["name"] } == [.attribute(.string("Herbert")), .attribute(.string("Le Guin")), .attribute(.string("Tolkien"))])
            #expect(rows.map { $0["id"] } == [.attribute(.integer(3)), .attribute(.integer(2)), .attribute(.integer(1))])
            #expect(rows[0].names == ["name", "id"])
            request.resultType = .managedObject
            guard case .objects(let objects) = try context.execute(request) else { Issue.record("expected objects"); return }
            #expect(try objects.map { try $0.value(forKey: "name") as? String } == ["Herbert", "Le Guin", "Tolkien"])
        }
    }

    @Test func objectsComeAsFaultsThatNeedNoQuery() throws {
        let library = try FetchTestLibrary()
        let context = library.context
        try context.performAndWait {
            let authors = try context.fetch(FetchRequest(entityName: "Author", sortDescriptors: [ObjectSortDescriptor("name")]))
            #expect(authors.allSatisfy { $0.isFault && $0.prefetchedRow != nil })
            // The row read by the fetch is enough: a row deleted through another connection
            // (which the kept row cannot know of) shows that no query runs.
            let other = try PersistentStore.open(at: library.store.path, model: library.store.model)
            try other.withConnection { try other.database.execute("DELETE FROM ZAUTHOR WHERE ZNAME = 'Herbert'") }
            other.close()
            #expect(try authors[0].value(forKey: "name") as? String == "Herbert")
            #expect(!authors[0].isFault)
        }
        let reopened = try library.fixture.otherContext()
        try reopened.performAndWait {
            var request = FetchRequest(entityName: "Author")
            request.returnsObjectsAsFaults = false
            #expect(try reopened.fetch(request).allSatisfy { !$0.isFault })
            request.includesPropertyValues = false
            reopened.reset()
            let faults = try reopened.fetch(request)
            #expect(faults.allSatisfy { $0.isFault && $0.prefetchedRow == nil })
            #expect(try faults[0].value(forKey: "name") != nil)
        }
    }

    @Test func objectsLoadedAsRowsAreReadMatchTheirFaultsAndKeepTheirIdentity() throws {
        let library = try FetchTestLibrary()
        var request = FetchRequest(entityName: "Book", sortDescriptors: [ObjectSortDescriptor("title")])
        request.fetchOffset = 1
        request.fetchLimit = 5
        // What faults read when touched, in a context of their own.
        let other = try library.fixture.otherContext()
        let expected = try other.performAndWait {
            try other.fetch(request).map { book in
                [book.entity.name, try book.value(forKey: "title") as? String, (try book.value(forKey: "author") as? ManagedObject)?.objectID.uriRepresentation().absoluteString,
                 (try? book.value(forKey: "format")) as? String]
            }
        }
        let context = library.context
        try context.performAndWait {
            request.returnsObjectsAsFaults = false
            let books = try context.fetch(request)
            #expect(books.allSatisfy { !$0.isFault })
            let loaded = try books.map { book in
                [book.entity.name, try book.value(forKey: "title") as? String, (try book.value(forKey: "author") as? ManagedObject)?.objectID.uriRepresentation().absoluteString,
                 (try? book.value(forKey: "format")) as? String]
            }
            #expect(loaded == expected)
            #expect(Set(books.map(\.entity.name)) == ["Book", "EBook"])
            // A second fetch hands out the same objects, their values as they were.
            let again = try context.fetch(request)
            #expect(zip(books, again).allSatisfy { $0 === $1 })
        }
    }

    @Test func batchedFetchesLoadOneBatchAtATime() throws {
        let library = try FetchTestLibrary()
        let context = library.context
        try context.performAndWait {
            var request = FetchRequest(entityName: "Book", sortDescriptors: [ObjectSortDescriptor("title")])
            request.fetchBatchSize = 3
            let books = try context.fetch(request)
            #expect(books.count == 8)
            #expect(books.allSatisfy { $0.isFault })
            #expect(try books[4].value(forKey: "title") as? String == "The Hobbit")
            #expect(books.map(\.isFault) == [true, true, true, false, false, false, true, true])
            #expect(try library.titles(books) == library.titles(context.fetch(FetchRequest(entityName: "Book", sortDescriptors: [ObjectSortDescriptor("title")]))))
        }
    }

    /// A fault keeps one way to load without a query of its own, the one given last; clearing
    /// another kind leaves it, and neither replaces fetched results. One field holds them all,
    /// so that an object has 88 usable bytes of its malloc block.
    @Test func aFaultKeepsTheLastShortcutToItsRow() throws {
        let library = try FetchTestLibrary()
        let other = try library.fixture.otherContext()
        let firstTitle = try other.performAndWait {
            try library.titles(other.fetch(FetchRequest(entityName: "Book", sortDescriptors: [ObjectSortDescriptor("title")]))).first
        }
        let context = library.context
        try context.performAndWait {
            var batched = FetchRequest(entityName: "Book", sortDescriptors: [ObjectSortDescriptor("title")])
            batched.fetchBatchSize = 3
            let books = try context.fetch(batched)
            #expect(books[0].faultBatch != nil && books[0].prefetchedRow == nil)
            let again = try context.fetch(FetchRequest(entityName: "Book", sortDescriptors: [ObjectSortDescriptor("title")]))
            #expect(again[0] === books[0])
            #expect(books[0].prefetchedRow != nil && books[0].faultBatch == nil)
            books[0].faultBatch = nil
            books[0].fetchedResults = [:]
            #expect(books[0].prefetchedRow != nil)
            // The second fetch gave every book its row in place of its batch: each loads alone.
            #expect(try books[1].value(forKey: "title") as? String != nil)
            #expect(books[0].isFault)
            #expect(try books[0].value(forKey: "title") as? String == firstTitle)

            let row = try #require(again[2].prefetchedRow)
            again[2].fetchedResults = ["similar": [books[1].objectID]]
            #expect(again[2].prefetchedRow == nil)
            again[2].prefetchedRow = row
            again[2].faultBatch = FaultBatch(entityName: "Book", ids: [again[2].objectID])
            again[2].prefetchedRow = nil
            again[2].faultBatch = nil
            #expect(again[2].fetchedResults["similar"] == [books[1].objectID])
            #expect(again[2].prefetchedRow == nil && again[2].faultBatch == nil)

            #expect(type(of: try context.insert("Author")) == ManagedObject.self)
            let plainSize = try smallestMallocUsableSize { try context.insert("Author") }
            #expect(plainSize == 88)
        }
    }

    /// A fault that a batch loads with others lets go of the row a fetch kept for it, as it
    /// does when it loads alone: a loaded object has no use for it.
    @Test func aFaultLoadedWithOthersLetsGoOfItsRow() throws {
        let library = try FetchTestLibrary()
        var batched = FetchRequest(entityName: "Book", sortDescriptors: [ObjectSortDescriptor("title")])
        batched.fetchBatchSize = 8
        let other = try library.fixture.otherContext()
        let title = try #require(try other.performAndWait { try library.titles(other.fetch(batched)).last })
        let context = library.context
        try context.performAndWait {
            let books = try context.fetch(batched)
            let again = try context.fetch(FetchRequest(entityName: "Book", predicate: try ObjectPredicate(format: "title == %@", title)))
            #expect(again.count == 1 && again[0] === books.last && books.last?.prefetchedRow != nil)
            _ = try books[0].value(forKey: "title")
            #expect(books.allSatisfy { !$0.isFault })
            #expect(books.last?.prefetchedRow == nil)
            #expect(try books.last?.value(forKey: "title") as? String == title)
        }
        // The same when a reset loads the faults the program still holds.
        let held = try context.performAndWait { try context.fetch(FetchRequest(entityName: "Book")) }
        context.performAndWait {
            context.reset()
            #expect(held.allSatisfy { !$0.isFault && $0.prefetchedRow == nil })
        }
    }

    @Test func aMergedSaveReplacesARowKeptOnAFault() throws {
        let library = try FetchTestLibrary()
        let context = library.context
        let other = try library.fixture.otherContext()
        let author = try context.performAndWait { try #require(context.fetch(FetchRequest(entityName: "Author", predicate: try ObjectPredicate(format: "name == 'Herbert'"))).first) }
        let observation = other.addDidSaveObserver { note in context.perform { context.mergeChanges(fromContextDidSave: note) } }
        try other.performAndWait {
            let same = try #require(other.fetch(FetchRequest(entityName: "Author", predicate: try ObjectPredicate(format: "name == 'Herbert'"))).first)
            try same.setValue("Frank Herbert", forKey: "name")
            try other.save()
        }
        let stillFault = context.performAndWait { author.isFault }
        let name = try context.performAndWait { try author.value(forKey: "name") as? String }
        #expect(stillFault)
        #expect(name == "Frank Herbert")
        _ = observation
    }

    @Test func prefetchingLoadsRelationshipsInOneQueryPerLevel() throws {
        let library = try FetchTestLibrary()
        let context = library.context
        try context.performAndWait {
            var request = FetchRequest(entityName: "Book", predicate: try ObjectPredicate(format: "author != nil"))
            request.relationshipKeyPathsForPrefetching = ["author.books", "pages", "tags"]
            let books = try context.fetch(request)
            // Everything below was read by the fetch: rows deleted through another connection,
            // which the kept rows cannot know of, show that no query runs.
            let other = try PersistentStore.open(at: library.store.path, model: library.store.model)
            let joinTable = try #require(other.layout.joinTables.first).name
            try other.withConnection { try other.database.execute("DELETE FROM ZAUTHOR; DELETE FROM ZPAGE; DELETE FROM ZTAG; DELETE FROM \(joinTable)") }
            other.close()
            for book in books {
                let author = try #require(book.value(forKey: "author") as? ManagedObject)
                #expect(try author.objects(forKey: "books").contains { $0 === book })
                #expect(try book.objects(forKey: "pages").allSatisfy { try $0.value(forKey: "number") is Int64 })
                _ = try book.objects(forKey: "tags").map { try $0.value(forKey: "name") }
            }
            let dune = try #require(books.first { try $0.value(forKey: "title") as? String == "Dune" })
            #expect(try dune.objects(forKey: "pages").map { try $0.value(forKey: "number") as? Int64 } == [1, 2, 3, 4])
            #expect(try Set(dune.objects(forKey: "tags").map { try $0.value(forKey: "name") as? String }) == ["Sci-Fi", "Classic"])
        }
    }

    @Test(arguments: [
        ("titel", "entity 'Book' has no property 'titel' (in titel); did you mean 'title'?"),
        ("tags.name", "sort key 'tags.name' of Book: to-many key path 'tags.name' needs ANY, ALL, NONE or an aggregate here"),
    ])
    func badSortKeysNameTheirFault(key: String, message: String) throws {
        let library = try FetchTestLibrary()
        let context = library.context
        let request = FetchRequest(entityName: "Book", sortDescriptors: [ObjectSortDescriptor(key)])
        let failure = context.performAndWait { () -> (any Error)? in
            do {
                _ = try context.fetch(request)
                return nil
            } catch {
                return error
            }
        }
        #expect(failure.map { String(describing: $0).hasPrefix(message) } == true, "\(String(describing: failure))")
    }

    @Test func sortDescriptorsParseTheCommandLineForm() throws {
        #expect(try ObjectSortDescriptor(parsing: "title") == ObjectSortDescriptor("title"))
        #expect(try ObjectSortDescriptor(parsing: "rating:desc") == ObjectSortDescriptor("rating", ascending: false))
        #expect(try ObjectSortDescriptor(parsing: "-author.name:nocase") == ObjectSortDescriptor("author.name", ascending: false, caseInsensitive: true))
        #expect(try ObjectSortDescriptor(parsing: " name : desc ") == ObjectSortDescriptor("name", ascending: false))
        #expect(throws: FetchRequestError("sort key 'title:up': unknown modifier 'up' (use asc, desc or nocase)")) { try ObjectSortDescriptor(parsing: "title:up") }
        #expect(throws: FetchRequestError("sort key ':desc' names no key path")) { try ObjectSortDescriptor(parsing: ":desc") }
    }

    @Test func stringEqualityWithoutOptionsUsesAnIndex() throws {
        let library = try FetchTestLibrary()
        let store = library.store
        let book = try #require(store.model.entity(named: "Book"))
        let plan = try store.withConnection { () -> String in
            let indexes = try store.database.rows("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'ZBOOK' AND sql LIKE '%ZISBN%'")
            #expect(!indexes.isEmpty, "the Library model's unique isbn should have an index")
            let compiled = try PredicateSQL(try ObjectPredicate(format: "isbn == %@", "9780000000003"), entity: book, model: store.model, layout: store.layout)
            return try store.database.rows("EXPLAIN QUERY PLAN SELECT t0.Z_PK FROM ZBOOK t0 WHERE \(compiled.condition)", compiled.arguments)
                .compactMap { $0.last?.stringValue }.joined(separator: "; ")
        }
        #expect(plan.contains("USING INDEX") || plan.contains("USING COVERING INDEX"), "\(plan)")
        let found = try library.context.performAndWait { try library.context.find(.all, "Book", by: "isbn", equalTo: "9780000000003") }
        #expect(found.count == 1)
    }

    @Test func aKeptRowIsNotUsedOnceTheStoreWrote() throws {
        let library = try FetchTestLibrary()
        let reader = library.context
        let writer = ObjectContext(store: library.store, name: "writer")
        let herbert = try reader.performAndWait { try #require(reader.find(.first, "Author", by: "name", equalTo: "Herbert").first) }
        try writer.performAndWait {
            let same = try #require(writer.find(.first, "Author", by: "name", equalTo: "Herbert").first)
            try same.setValue("Frank Herbert", forKey: "name")
            try writer.save()
        }
        let name = try reader.performAndWait { try herbert.value(forKey: "name") as? String }
        #expect(name == "Frank Herbert")
        try reader.performAndWait {
            try herbert.setValue("F. Herbert", forKey: "name")
            try reader.save()
        }
    }

    @Test func aRowReadInARolledBackTransactionIsNotKept() throws {
        struct Abort: Error {}
        let library = try FetchTestLibrary()
        let context = library.context, store = library.store
        var authors: [ManagedObject] = []
        #expect(throws: Abort.self) {
            try store.withConnection {
                try store.database.inTransaction {
                    try store.database.execute("UPDATE ZAUTHOR SET ZNAME = 'rolled back'")
                    authors = try context.performAndWait { try context.fetch(FetchRequest(entityName: "Author")) }
                    throw Abort()
                }
            }
        }
        let names = try context.performAndWait { try authors.map { try $0.value(forKey: "name") as? String } }
        #expect(Set(names) == ["Tolkien", "Le Guin", "Herbert"])
    }

    @Test func anObjectInsertedAndDeletedIsGone() throws {
        let library = try FetchTestLibrary()
        let context = library.context
        try context.performAndWait {
            let request = FetchRequest(entityName: "Book", predicate: try ObjectPredicate(format: "rating >= 4.5"))
            let zed = try library.fixture.book("Zed", isbn: "9780000000999")
            try zed.setValue(4.8, forKey: "rating")
            try context.delete(zed)
            #expect(try context.count(for: request) == 3)
            #expect(try !context.fetch(request).contains { $0 === zed })
            #expect(!context.hasChanges)
            try context.save()
            #expect(!context.registeredObjects.contains { $0 === zed })
            #expect(zed.managedObjectContext == nil)
        }
        #expect(try library.store.count(of: "Book") == 8)
    }

    @Test func sortKeysThroughChangedRelatedObjectsUseTheirCurrentValues() throws {
        let library = try FetchTestLibrary()
        let context = library.context
        try context.performAndWait {
            let herbert = try #require(context.find(.first, "Author", by: "name", equalTo: "Herbert").first)
            try herbert.setValue("Zzz", forKey: "name")
            let dune = try #require(context.find(.first, "Book", by: "title", equalTo: "Dune").first)
            try dune.setValue(1.0, forKey: "rating")
            var request = FetchRequest(entityName: "Book", predicate: try ObjectPredicate(format: "author != nil"))
            request.sortDescriptors = [ObjectSortDescriptor("author.name"), ObjectSortDescriptor("title")]
            #expect(try library.titles(context.fetch(request)) == [
                "A Wizard of Earthsea", "The Dispossessed", "The Hobbit", "The Lord of the Rings", "the Silmarillion", "Children of Dune", "Dune",
            ])
            request.fetchOffset = 5
            request.fetchLimit = 1
            #expect(try library.titles(context.fetch(request)) == ["Children of Dune"])
            request.fetchLimit = .max
            request.fetchOffset = 1
            #expect(try context.fetch(request).count == 6)
        }
    }
}
