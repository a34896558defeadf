import Foundation
import Testing
@testable import Strata

/// Fetches that look unsaved objects up by one attribute (`name == %@`) go through an index of
/// the inserted objects and a list of the changed ones: they must answer as judging every
/// object would.
@Suite struct PendingLookupTests {
    private func names(_ objects: [ManagedObject]) -> [String] {
        objects.compactMap { $0["name"] as? String }
    }

    private func tags(named name: String, in context: ObjectContext, sortedBy sort: String? = nil) throws -> [ManagedObject] {
        try context.fetch(FetchRequest(
            entityName: "Tag", predicate: try ObjectPredicate(format: "name == %@", name),
            sortDescriptors: sort.map { [ObjectSortDescriptor($0)] } ?? []))
    }

    @Test func aLookUpSeesValuesSetAfterInsertionAndNotValuesLeftBehind() throws {
        let fixture = try LibraryFixture()
        let context = fixture.context
        try context.performAndWait {
            let first = try context.insert("Tag")
            try first.setValue("a", forKey: "name")
            #expect(try tags(named: "a", in: context).map(\.objectID) == [first.objectID])
            // Renamed after the index knew it under "a".
            try first.setValue("b", forKey: "name")
            #expect(try tags(named: "a", in: context).isEmpty)
            #expect(try tags(named: "b", in: context).map(\.objectID) == [first.objectID])
            // Another tag takes "a" after the look-ups began; a third is inserted before it
            // but named "a" only afterwards: insertion order still decides.
            let second = try context.insert("Tag")
            let third = try context.insert("Tag")
            try third.setValue("a", forKey: "name")
            try second.setValue("a", forKey: "name")
            #expect(try tags(named: "a", in: context).map(\.objectID) == [second.objectID, third.objectID])
            #expect(try context.count(for: FetchRequest(entityName: "Tag", predicate: try ObjectPredicate(format: "name == 'a' AND TRUEPREDICATE"))) == 2)
            try context.delete(second)
            #expect(try tags(named: "a", in: context).map(\.objectID) == [third.objectID])
        }
    }

    @Test func aLookUpMixesSavedRowsWithChangedAndInsertedObjects() throws {
        let fixture = try LibraryFixture()
        let context = fixture.context
        try context.performAndWait {
            for name in ["x", "y"] { try context.insert("Tag").setValue(name, forKey: "name") }
            try context.save()
            context.reset()
            let y = try #require(try tags(named: "y", in: context).first)
            try y.setValue("x", forKey: "name")  // the row still says y
            try context.insert("Tag").setValue("x", forKey: "name")
            #expect(names(try tags(named: "x", in: context)) == ["x", "x", "x"])
            #expect(try tags(named: "y", in: context).isEmpty)
            context.rollback()
            #expect(try tags(named: "x", in: context).count == 1)
            #expect(names(try tags(named: "y", in: context)) == ["y"])
        }
    }

    @Test func rollingBackToASavepointForgetsObjectsInsertedSince() throws {
        let fixture = try LibraryFixture()
        let context = fixture.context
        try context.performAndWait {
            let kept = try context.insert("Tag")
            try kept.setValue("same", forKey: "name")
            _ = try tags(named: "same", in: context)
            let savepoint = context.savepoint()
            try context.insert("Tag").setValue("same", forKey: "name")
            try kept.setValue("other", forKey: "name")
            #expect(try tags(named: "same", in: context).count == 1)
            context.rollback(to: savepoint)
            #expect(try tags(named: "same", in: context).map(\.objectID) == [kept.objectID])
            #expect(try tags(named: "other", in: context).isEmpty)
            #expect(context.insertedObjects.count == 1 && context.updatedObjects.isEmpty)
        }
    }

    @Test func integerAndSubentityLookUpsFindTheirObjects() throws {
        let fixture = try LibraryFixture()
        let context = fixture.context
        try context.performAndWait {
            let author = try context.insert("Author")
            try author.setValue("Le Guin", forKey: "name")
            try author.setValue(7, forKey: "remoteID")
            let book = try fixture.book("Earthsea", isbn: "9780000000007")
            // The index of books and e-books is built here, before the e-book is inserted.
            #expect(try context.fetch(FetchRequest(entityName: "Book", predicate: try ObjectPredicate(format: "isbn == '9780000000007'"))).map(\.objectID) == [book.objectID])
            let ebook = try context.insert("EBook")
            try ebook.setValue("9780000000008", forKey: "isbn")
            let found = try context.fetch(FetchRequest(entityName: "Author", predicate: try ObjectPredicate(format: "remoteID == 7")))
            #expect(found.map(\.objectID) == [author.objectID])
            let books = try context.fetch(FetchRequest(entityName: "Book", predicate: try ObjectPredicate(format: "isbn == '9780000000008'")))
            #expect(books.map(\.objectID) == [ebook.objectID])
        }
    }

    @Test func objectsOfSeveralEntitiesComeInTheOrderTheyWereInserted() throws {
        let fixture = try LibraryFixture()
        let context = fixture.context
        try context.performAndWait {
            let ebook = try context.insert("EBook")
            try ebook.setValue("9780000000001", forKey: "isbn")
            let book = try fixture.book("Same", isbn: "9780000000001")
            // The books' index is built first, the e-books' later: the order is still the insertion's.
            var ownBooks = FetchRequest(entityName: "Book", predicate: try ObjectPredicate(format: "isbn == '9780000000001'"))
            ownBooks.includesSubentities = false
            #expect(try context.fetch(ownBooks).map(\.objectID) == [book.objectID])
            let all = try context.fetch(FetchRequest(entityName: "Book", predicate: try ObjectPredicate(format: "isbn == '9780000000001'")))
            #expect(all.map(\.objectID) == [ebook.objectID, book.objectID])
        }
    }

    @Test func aSavedObjectChangedAndSavedAgainIsNoLongerPending() throws {
        let fixture = try LibraryFixture()
        let context = fixture.context
        try context.performAndWait {
            let tag = try context.insert("Tag")
            try tag.setValue("one", forKey: "name")
            try context.save()
            try tag.setValue("two", forKey: "name")
            #expect(context.updatedObjects.map(\.objectID) == [tag.objectID])
            try context.save()
            #expect(context.updatedObjects.isEmpty && !context.hasChanges)
            try tag.setValue("two", forKey: "name")  // its saved value: no change
            #expect(context.updatedObjects.isEmpty)
        }
    }
}
