import Foundation
import Testing
@testable import Strata

/// Writes check what they link and where new rows go: a relationship holds only objects of its
/// destination entity (or its sub-entities), and new keys never reuse one in the table.
@Suite struct LinkCheckTests {
    @Test func aToOneRefusesAnObjectOfAnotherEntityAndKeepsItsValue() throws {
        let fixture = try LibraryFixture()
        let context = fixture.context
        try context.performAndWait {
            let book = try fixture.book("Dune", isbn: "9780441172719")
            let author = try context.insert("Author")
            try book.setValue(author, forKey: "author")
            let tag = try context.insert("Tag")
            #expect(throws: ContextError.wrongType(
                entity: "Book", property: "author", value: "a Tag object (\(tag.objectID))", expected: "a Author object")
            ) { try book.setValue(tag, forKey: "author") }
            #expect(try book.value(forKey: "author") as? ManagedObject === author)
            #expect(try tag.objects(forKey: "books").isEmpty)
        }
    }

    @Test func aToManyRefusesAnObjectOfAnotherEntityWhetherSetOrAdded() throws {
        let fixture = try LibraryFixture()
        let context = fixture.context
        try context.performAndWait {
            let book = try fixture.book("Dune", isbn: "9780441172719")
            let tag = try context.insert("Tag")
            try tag.setValue("classic", forKey: "name")
            let author = try context.insert("Author")
            #expect(throws: ContextError.self) { try book.add(author, toKey: "tags") }
            #expect(throws: ContextError.self) { try book.setValue([tag, author], forKey: "tags") }
            #expect(try book.objects(forKey: "tags").isEmpty)
            try book.add(tag, toKey: "tags")
            _ = try context.delete(author)
            try context.save()
        }
        let reader = try fixture.otherContext()
        try reader.performAndWait {
            let book = try #require(try reader.fetch(FetchRequest(entityName: "Book")).first)
            #expect(try book.objects(forKey: "tags").map(\.entity.name) == ["Tag"])
        }
    }

    @Test func aRelationshipTakesObjectsOfItsDestinationsSubentities() throws {
        let fixture = try LibraryFixture()
        let context = fixture.context
        try context.performAndWait {
            let ebook = try context.insert("EBook")
            try ebook.setValue("Neuromancer", forKey: "title")
            try ebook.setValue("9780441569595", forKey: "isbn")
            let tag = try context.insert("Tag")
            try tag.setValue("cyberpunk", forKey: "name")
            try tag.add(ebook, toKey: "books")
            let page = try context.insert("Page")
            try page.setValue(ebook, forKey: "book")
            try context.save()
            #expect(try page.value(forKey: "book") as? ManagedObject === ebook)
        }
    }

    /// A store damaged elsewhere: `Z_MAX` below the table's largest `Z_PK`, or negative. New
    /// rows take keys above both, where they used to take keys in use (and the save failed).
    @Test(arguments: [Int64(0), -5])
    func newKeysGoAboveTheLargestKeyInUseWhateverZMaxSays(zMax: Int64) throws {
        let fixture = try LibraryFixture()
        let context = fixture.context
        try context.performAndWait {
            for number in 1...3 { _ = try fixture.book("Book \(number)", isbn: "978000000000\(number)") }
            try context.save()
        }
        try fixture.store.database.execute(
            "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_NAME = 'Book'", [.integer(zMax)])
        let id = try context.performAndWait {
            let book = try fixture.book("Book 4", isbn: "9780000000004")
            try context.save()
            return book.objectID
        }
        #expect(id.primaryKey == 4)
        let reader = try fixture.otherContext()
        #expect(try reader.performAndWait { try reader.count(for: FetchRequest(entityName: "Book")) } == 4)
        #expect(try fixture.store.database.rows("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Book'").first?.first?.int64Value == 4)
    }
}
