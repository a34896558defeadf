import Foundation
import Testing
@testable import Strata

/// The classes in Tests/StrataTests/Generated/Library are `strata model codegen`'s output for
/// the example model, compiled with the tests.
@Suite struct TypedSubclassTests {
    @Test func generatedFilesAreWhatTheGeneratorWrites() throws {
        let model = try ModelLoader.load(Fixtures.exampleModel).currentVersion.model
        let folder = Fixtures.repositoryRoot.appendingPathComponent("Tests/StrataTests/Generated/Library")
        for file in SubclassGenerator.files(for: model, modelName: "Library") {
            let committed = try String(contentsOf: folder.appendingPathComponent(file.name), encoding: .utf8)
            #expect(committed == file.contents, "\(file.name) is out of date: run strata model codegen --output Tests/StrataTests/Generated/Library")
        }
    }

    @Test func typedObjectsReadAndWriteThroughTheContext() throws {
        let fixture = try LibraryFixture()
        let context = fixture.context
        let id = try context.performAndWait {
            let author = try Author(context: context)
            author.name = "Tolkien"
            author.remoteID = 1
            let book = try Book(context: context)
            book.title = "The Lord of the Rings"
            book.isbn = "9780261103252"
            book.author = author
            let ebook = try EBook(context: context)
            #expect(ebook.format == "epub")
            ebook.title = "Digital"
            ebook.isbn = "9780261103253"
            author.books = author.books + [ebook]
            #expect(author.books.count == 2)
            #expect(ebook.author === author)
            let page = try Page(context: context)
            page.number = 7
            book.pages = [page]
            #expect(page.book === book)
            try context.save()
            return author.objectID
        }
        let other = try fixture.otherContext()
        other.register([Author.self, Book.self, EBook.self, Page.self, Tag.self])
        try other.performAndWait {
            let author = try #require(try other.existingObject(with: id) as? Author)
            #expect(author.name == "Tolkien")
            let books = author.books.sorted { ($0.title ?? "") < ($1.title ?? "") }
            #expect(books.map(\.title) == ["Digital", "The Lord of the Rings"])
            #expect(books.first is EBook)
            #expect(books.last?.pages.first?.number == 7)
        }
    }

    /// `Tag(context:)` registers its class once for a run of inserts; a registration made in
    /// between, from any thread, must not be lost or outlived by that shortcut.
    @Test func insertingATypedObjectRegistersItsClassAgainAfterAnotherRegistration() throws {
        let fixture = try LibraryFixture()
        let context = fixture.context
        try context.performAndWait {
            try Tag(context: context).name = "first"
            #expect(context.registeredClass(for: "Tag") == Tag.self)
            DispatchQueue.global().sync { context.register(RenamedTag.self, for: "Tag") }
            #expect(context.registeredClass(for: "Tag") == RenamedTag.self)
            try Tag(context: context).name = "second"
            #expect(context.registeredClass(for: "Tag") == Tag.self)
            context.register(RenamedTag.self, for: "Tag")
            try RenamedTag(context: context).setValue("third", forKey: "name")
            try RenamedTag(context: context).setValue("fourth", forKey: "name")
            #expect(context.registeredClass(for: "Tag") == RenamedTag.self)
            try context.save()
        }
        let other = try fixture.otherContext()
        other.register(RenamedTag.self, for: "Tag")
        try other.performAndWait {
            _ = try Tag(context: other)
            other.rollback()
            let tags = try other.fetch(FetchRequest(entityName: "Tag"))
            #expect(tags.count == 4)
            #expect(tags.allSatisfy { $0 is Tag })
        }
    }

    /// Typed attributes named by `String`s that are not literals read and write as those named
    /// by literals, and keep their names.
    @Test func attributesNamedByStringsReadAndWriteAsThoseNamedByLiterals() throws {
        let fixture = try LibraryFixture()
        let context = fixture.context
        context.register(BookNamedAtRunTime.self, for: "Book")
        let id = try context.performAndWait {
            let book = try BookNamedAtRunTime(context: context)
            #expect(book.keys == ["isbn", "title", "rating"])
            book.isbn = "9780441013593"
            book.title = "Dune"
            book.rating = 4.5
            #expect(try book.value(forKey: "title") as? String == "Dune")
            #expect(book.title == "Dune" && book.rating == 4.5)
            try context.save()
            return book.objectID
        }
        let other = try fixture.otherContext()
        other.register([Author.self, Book.self, EBook.self, Page.self, Tag.self])
        try other.performAndWait {
            let book = try #require(try other.existingObject(with: id) as? Book)
            #expect(book.isbn == "9780441013593" && book.title == "Dune" && book.rating == 4.5)
            book.rating = 3
            try other.save()
        }
        try context.performAndWait {
            let book = try #require(context.object(with: id) as? BookNamedAtRunTime)
            context.refresh(book, mergeChanges: false)
            #expect(book.rating == 3 && book.title == "Dune")
        }
    }

    /// A typed attribute keeps its name in 8 bytes of the object, not a `String`'s 16: an
    /// object of a class of three typed attributes has 104 usable bytes of its malloc block
    /// (88 with none), where names as strings would take it to 136.
    @Test func aTypedAttributeTakesEightBytesOfItsObject() throws {
        let fixture = try LibraryFixture()
        let context = fixture.context
        context.register(BookNamedAtRunTime.self, for: "Book")
        let sizes = try context.performAndWait {
            (plain: try smallestMallocUsableSize { try context.insert("Author") },
             typed: try smallestMallocUsableSize { try BookNamedAtRunTime(context: context) })
        }
        #expect(sizes.plain == 88)
        #expect(sizes.typed == 104)
    }

    /// A fault that kept its changes (refreshed merging them) reads a changed attribute without
    /// being filled, through a typed property as by name: its row may be gone meanwhile.
    @Test func aFaultThatKeptItsChangesReadsThemWithoutItsRow() throws {
        let fixture = try LibraryFixture()
        let context = fixture.context
        context.register([Author.self, Book.self, EBook.self, Page.self, Tag.self])
        let id = try context.performAndWait {
            let book = try Book(context: context)
            book.title = "Dune"
            book.isbn = "9780441013593"
            try context.save()
            book.title = "Changed"
            context.refresh(book, mergeChanges: true)
            #expect(book.isFault)
            return book.objectID
        }
        let other = try fixture.otherContext()
        try other.performAndWait {
            try other.delete(other.existingObject(with: id))
            try other.save()
        }
        try context.performAndWait {
            let book = try #require(context.object(with: id) as? Book)
            #expect(book.title == "Changed")
            #expect(try book.value(forKey: "title") as? String == "Changed")
            #expect(book.isFault)
        }
    }

    @Test func aChildContextHandsOutItsParentsClasses() throws {
        let fixture = try LibraryFixture()
        let tagID = try fixture.context.performAndWait {
            let tag = try Tag(context: fixture.context)
            tag.name = "fantasy"
            try fixture.context.save()
            return tag.objectID
        }
        let child = ObjectContext(parent: fixture.context)
        child.performAndWait {
            #expect((child.object(with: tagID) as? Tag)?.name == "fantasy")
        }
    }
}

/// A second class for the example model's Tag entity.
private final class RenamedTag: ManagedObject, @unchecked Sendable {
    override class var entityName: String { "Tag" }
}

/// The names of `BookNamedAtRunTime`'s attributes, as strings that are not literals.
private enum BookNames {
    static let isbn = "isbn"
    static let rating = ["rat", "ing"].joined()
}

/// A class for the example model's Book entity whose attributes are named by `String`s made
/// at run time, and one by a literal.
private final class BookNamedAtRunTime: ManagedObject, @unchecked Sendable {
    override class var entityName: String { "Book" }

    @Attribute(BookNames.isbn) var isbn: String
    @Attribute("title") var title: String
    @Attribute(BookNames.rating) var rating: Double?

    var keys: [String] { [_isbn.key, _title.key, _rating.key] }
}
