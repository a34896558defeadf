import Foundation
import Testing
@testable import Strata
import StrataTestSupport

/// A store whose tables lack columns its model names (made by hand or by another tool, with
/// hashes that match): opening says which, what the store holds still reads, and a statement
/// that needs a missing column names entity, property and column rather than SQL (issue 32).
@Suite struct MissingColumnTests {
    static let model: ObjectModel = {
        var author = EntityDescription(name: "Author")
        author.attributes = [AttributeDescription(name: "name", type: .string)]
        var books = RelationshipDescription(name: "books", destination: "Book", isToMany: true)
        books.inverseName = "author"
        author.relationships = [books]
        var book = EntityDescription(name: "Book")
        book.attributes = [AttributeDescription(name: "title", type: .string), AttributeDescription(name: "isbn", type: .string)]
        var writtenBy = RelationshipDescription(name: "author", destination: "Author")
        writtenBy.inverseName = "books"
        book.relationships = [writtenBy]
        return ObjectModel(entities: [author, book])
    }()

    static let expected = [
        MissingColumn(table: "ZBOOK", column: "ZISBN", entity: "Book", property: "isbn", kind: .attribute),
        MissingColumn(table: "ZBOOK", column: "ZAUTHOR", entity: "Book", property: "author", kind: .toOne),
    ]

    /// A store of ``model`` whose Book table another tool made without `isbn` and `author`.
    private func handMadeStore(_ folder: TemporaryFolder) throws -> String {
        let path = folder.path("Library.sqlite")
        try PersistentStore.create(at: path, model: Self.model).close()
        let database = try Database(path: path)
        defer { database.close() }
        try database.execute("DROP INDEX ZBOOK_ZAUTHOR_INDEX")
        try database.execute("DROP TABLE ZBOOK")
        try database.execute("CREATE TABLE ZBOOK (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZTITLE VARCHAR)")
        try database.execute("INSERT INTO ZBOOK VALUES (1, 2, 1, 'Earthsea'), (2, 2, 1, 'Dune')")
        try database.execute("INSERT INTO ZAUTHOR VALUES (1, 1, 1, 'Le Guin')")
        try database.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = 2 WHERE Z_NAME = 'Book'")
        try database.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = 1 WHERE Z_NAME = 'Author'")
        return path
    }

    @Test func openingNamesEachMissingColumnAndWhatItStandsFor() throws {
        let folder = try TemporaryFolder()
        let store = try PersistentStore.open(at: try handMadeStore(folder), model: Self.model)
        defer { store.close() }
        // The hashes match: only the columns tell.
        #expect(store.comparison.isMatch)
        #expect(store.missingColumns == Self.expected)
        #expect(try StoreReport(store: store).missingColumns == Self.expected)
        #expect(Self.expected.map(\.description) == ["ZBOOK.ZISBN (attribute Book.isbn)", "ZBOOK.ZAUTHOR (to-one key Book.author)"])
        // A store made for its model lacks nothing.
        let whole = try PersistentStore.create(at: folder.path("Whole.sqlite"), model: Self.model)
        defer { whole.close() }
        #expect(whole.missingColumns.isEmpty)
    }

    @Test func whatTheStoreHoldsReadsAndWhatItLacksIsNamed() throws {
        let folder = try TemporaryFolder()
        let path = try handMadeStore(folder)
        let store = try PersistentStore.open(at: path, model: Self.model)
        defer { store.close() }
        let context = ObjectContext(store: store)
        try context.performAndWait {
            let books = try context.fetch(FetchRequest(entityName: "Book", sortDescriptors: [ObjectSortDescriptor("title")]))
            #expect(books.map { $0["title"] as? String } == ["Dune", "Earthsea"])
            #expect(books.map { $0["isbn"] as? String } == [nil, nil])
            #expect(try context.count(for: FetchRequest(entityName: "Author")) == 1)
            var dictionaries = FetchRequest(entityName: "Book")
            dictionaries.propertiesToFetch = [.keyPath("title")]
            #expect(try context.fetchDictionaries(dictionaries).count == 2)

            let byISBN = FetchRequest(entityName: "Book", predicate: try ObjectPredicate(format: "isbn == '0441172717'"))
            let error = #expect(throws: StoreError.self) { try context.fetch(byISBN) }
            guard case .missingColumn(_, let column, let cause)? = error else { Issue.record("\(String(describing: error))"); return }
            #expect(column == Self.expected[0])
            #expect(cause.message.contains("ZISBN"))
            #expect(error?.description == "\(path): Book.isbn cannot be read or written: the store's table ZBOOK has no column ZISBN for this attribute (a store made by hand or by another tool for this model)")

            let byAuthor = FetchRequest(entityName: "Author", predicate: try ObjectPredicate(format: "ANY books.title == 'Dune'"))
            let toOne = #expect(throws: StoreError.self) { try context.fetch(byAuthor) }
            guard case .missingColumn(_, let toOneColumn, _)? = toOne else { Issue.record("\(String(describing: toOne))"); return }
            #expect(toOneColumn == Self.expected[1])
        }
        // A save that needs the column fails naming it, and leaves the store as it was.
        try context.performAndWait {
            let book = try context.insert("Book")
            try book.setValue("Tombs", forKey: "title")
            let error = #expect(throws: (any Error).self) { try context.save() }
            #expect("\(error.map { String(describing: $0) } ?? "")".contains("Book.isbn cannot be read or written"))
        }
        let reader = try Database(path: path, configuration: .readOnly)
        defer { reader.close() }
        #expect(try reader.scalar("SELECT count(*) FROM ZBOOK")?.int64Value == 2)
    }
}
