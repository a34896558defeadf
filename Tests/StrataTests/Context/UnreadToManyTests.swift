import Foundation
import Testing
@testable import Strata

/// Keeping an inverse in step without reading the to-many it lands in: the changes are
/// recorded and apply to the members when they are read, saved, pushed or merged.
@Suite struct UnreadToManyTests {
    /// A store with one author holding `books` books and one tag on all of them; returns the IDs.
    private func seeded(_ fixture: LibraryFixture, books: Int = 2) throws -> (author: ObjectID, tag: ObjectID, books: [ObjectID]) {
        let context = fixture.context
        return try context.performAndWait {
            let author = try context.insert("Author")
            try author.setValue("Le Guin", forKey: "name")
            let tag = try context.insert("Tag")
            try tag.setValue("fantasy", forKey: "name")
            let books = try (0..<books).map { index in
                let book = try fixture.book("Book \(index)", isbn: String(format: "978%010d", index))
                try book.setValue(author, forKey: "author")
                try book.setValue([tag], forKey: "tags")
                return book
            }
            try context.save()
            let ids = (author.objectID, tag.objectID, books.map(\.objectID))
            context.reset()
            return ids
        }
    }

    private func titles(_ objects: [ManagedObject]) -> [String] {
        objects.compactMap { $0["title"] as? String }.sorted()
    }

    @Test func aLinkToAnUnreadToManyAppliesToTheMembersTheStoreHasWhenRead() throws {
        let fixture = try LibraryFixture()
        let seed = try seeded(fixture)
        let context = fixture.context
        try context.performAndWait {
            let book = try fixture.book("New", isbn: "9780000000100")
            try book.setValue(context.existingObject(with: seed.author), forKey: "author")
        }
        // Another process adds a book after the link: the author's books, read afterwards,
        // are the store's as of the read, with this context's link on top.
        let other = try fixture.otherContext()
        try other.performAndWait {
            let book = try other.insert("Book")
            try book.setValue("Elsewhere", forKey: "title")
            try book.setValue("9780000000200", forKey: "isbn")
            try book.setValue(other.existingObject(with: seed.author), forKey: "author")
            try other.save()
        }
        try context.performAndWait {
            let author = try context.existingObject(with: seed.author)
            #expect(titles(try author.objects(forKey: "books")) == ["Book 0", "Book 1", "Elsewhere", "New"])
            #expect(author.changedKeys == ["books"])
            // The other save changed the author's books too: merged property by property,
            // the links of both stand.
            context.mergePolicy = .mergeByPropertyObjectTrump
            try context.save()
        }
        let stored = try fixture.store.database.rows("SELECT ZTITLE FROM ZBOOK WHERE ZAUTHOR = ? ORDER BY ZTITLE", [.integer(seed.author.primaryKey!)])
        #expect(stored.compactMap { $0[0].stringValue } == ["Book 0", "Book 1", "Elsewhere", "New"])
    }

    @Test func movingAMemberBetweenUnreadToManysSavesBothSidesAndMergesIntoReadOnes() throws {
        let fixture = try LibraryFixture()
        let seed = try seeded(fixture)
        let context = fixture.context
        let newAuthor = try context.performAndWait {
            let author = try context.insert("Author")
            try author.setValue("Tolkien", forKey: "name")
            try author.setValue(2, forKey: "remoteID")
            try context.save()
            context.reset()
            return author.objectID
        }
        // A context that has read both authors' books merges the save.
        let reader = try fixture.otherContext()
        try reader.performAndWait { () throws in
            #expect(try reader.existingObject(with: seed.author).objects(forKey: "books").count == 2)
            #expect(try reader.existingObject(with: newAuthor).objects(forKey: "books").isEmpty)
        }
        let observation = context.addDidSaveObserver { note in reader.performAndWait { reader.mergeChanges(fromContextDidSave: note) } }
        try context.performAndWait {
            try context.existingObject(with: seed.books[0]).setValue(context.existingObject(with: newAuthor), forKey: "author")
            try context.save()
        }
        observation.cancel()
        try reader.performAndWait { () throws in
            #expect(titles(try reader.existingObject(with: seed.author).objects(forKey: "books")) == ["Book 1"])
            #expect(titles(try reader.existingObject(with: newAuthor).objects(forKey: "books")) == ["Book 0"])
        }
        let fresh = try fixture.otherContext()
        try fresh.performAndWait { () throws in
            #expect(titles(try fresh.existingObject(with: seed.author).objects(forKey: "books")) == ["Book 1"])
            #expect(titles(try fresh.existingObject(with: newAuthor).objects(forKey: "books")) == ["Book 0"])
        }
    }

    @Test func manyToManyLinksMadeFromTheReadSideWriteJoinRowsOnce() throws {
        let fixture = try LibraryFixture()
        let seed = try seeded(fixture)
        let context = fixture.context
        try context.performAndWait {
            let tag = try context.existingObject(with: seed.tag)
            let book = try fixture.book("New", isbn: "9780000000100")
            try book.setValue([tag], forKey: "tags")
            // Taken away and given back: the tag's books end as they were, plus the new one.
            let first = try context.existingObject(with: seed.books[0])
            try first.setValue([ManagedObject](), forKey: "tags")
            try first.setValue([tag], forKey: "tags")
            try context.existingObject(with: seed.books[1]).setValue([ManagedObject](), forKey: "tags")
            try context.save()
        }
        let rows = try fixture.store.database.rows("SELECT count(*), count(DISTINCT Z_2BOOKS) FROM Z_2TAGS")
        #expect(rows.first?.map(\.int64Value) == [2, 2])
        let fresh = try fixture.otherContext()
        try fresh.performAndWait { () throws in
            #expect(titles(try fresh.existingObject(with: seed.tag).objects(forKey: "books")) == ["Book 0", "New"])
        }
    }

    @Test func aChildsLinksToUnreadToManysReachTheParentAndTheStore() throws {
        let fixture = try LibraryFixture()
        let seed = try seeded(fixture)
        let root = fixture.context
        let child = ObjectContext(parent: root, name: "child")
        try child.performAndWait {
            let book = try child.insert("Book")
            try book.setValue("From the child", forKey: "title")
            try book.setValue("9780000000300", forKey: "isbn")
            try book.setValue(child.existingObject(with: seed.author), forKey: "author")
            try child.existingObject(with: seed.books[1]).setValue(nil, forKey: "author")
            try child.save()
            #expect(titles(try child.existingObject(with: seed.author).objects(forKey: "books")) == ["Book 0", "From the child"])
        }
        try root.performAndWait {
            let author = try root.existingObject(with: seed.author)
            #expect(titles(try author.objects(forKey: "books")) == ["Book 0", "From the child"])
            try root.save()
        }
        let fresh = try fixture.otherContext()
        try fresh.performAndWait { () throws in
            #expect(titles(try fresh.existingObject(with: seed.author).objects(forKey: "books")) == ["Book 0", "From the child"])
        }
    }

    @Test func rollingBackForgetsChangesRecordedAgainstUnreadToManys() throws {
        let fixture = try LibraryFixture()
        let seed = try seeded(fixture)
        let context = fixture.context
        try context.performAndWait {
            let author = try context.existingObject(with: seed.author)
            let savepoint = context.savepoint()
            try fixture.book("Kept out", isbn: "9780000000400").setValue(author, forKey: "author")
            context.rollback(to: savepoint)
            #expect(!author.hasChanges)
            #expect(titles(try author.objects(forKey: "books")) == ["Book 0", "Book 1"])

            try fixture.book("Thrown away", isbn: "9780000000500").setValue(author, forKey: "author")
            context.rollback()
            #expect(titles(try author.objects(forKey: "books")) == ["Book 0", "Book 1"])
        }
    }

    @Test func aLinkUndoneBeforeTheReadLeavesNoChange() throws {
        let fixture = try LibraryFixture()
        let seed = try seeded(fixture)
        let context = fixture.context
        try context.performAndWait {
            let author = try context.existingObject(with: seed.author)
            let other = try context.insert("Author")
            try other.setValue("Other", forKey: "name")
            let book = try context.existingObject(with: seed.books[0])
            try book.setValue(other, forKey: "author")
            try book.setValue(author, forKey: "author")
            #expect(!author.hasChanges)
            #expect(titles(try author.objects(forKey: "books")) == ["Book 0", "Book 1"])
        }
    }

    @Test func prefetchingAToManyAppliesTheChangesRecordedAgainstIt() throws {
        let fixture = try LibraryFixture()
        let seed = try seeded(fixture)
        let context = fixture.context
        try context.performAndWait {
            try fixture.book("New", isbn: "9780000000100").setValue(context.existingObject(with: seed.author), forKey: "author")
            try context.existingObject(with: seed.books[0]).setValue(nil, forKey: "author")
            var request = FetchRequest(entityName: "Author")
            request.relationshipKeyPathsForPrefetching = ["books"]
            let authors = try context.fetch(request)
            #expect(authors.count == 1)
            #expect(titles(try authors[0].objects(forKey: "books")) == ["Book 1", "New"])
        }
    }
}
