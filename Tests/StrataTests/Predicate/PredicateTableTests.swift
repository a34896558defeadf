import Foundation
import Testing
@testable import Strata

/// Predicates checked against answers written by hand in plain SQL over Core Data's tables:
/// Strata's compiled SQL, its in-memory evaluator and the hand-written query must select the
/// same rows of a fixed Library store.
///
/// The hand-written SQL stays away from Strata's compiler and its `NSCoreData…` functions: it
/// reads the tables directly (`ZBOOK`, `ZAUTHOR`, `ZPAGE`, `ZTAG`, the join table `Z_2TAGS`),
/// spells `[c]` and `[d]` with LOWER and REPLACE over the few accented letters the data holds,
/// and string operators with GLOB, substr and instr. Its nil semantics are Core Data's
/// two-valued ones: a comparison with nil is false except `== nil`, `!=` holds for nil.
@Suite struct PredicateTableTests {
    @Test func everyPredicateSelectsWhatTheHandWrittenSQLSelects() throws {
        let library = try TableLibrary()
        let entries = Self.attributeEntries + Self.relationshipEntries + Self.expressionEntries
        var trivial: [String] = [], results: Set<[Int64]> = []
        for entry in entries {
            #expect(!entry.sql.contains("NSCoreData"), "\(entry): the expected answer must not use Strata's functions")
            let expected = try library.keys(where: entry.sql, entity: entry.entity)
            let predicate = try ObjectPredicate(format: entry.format, arguments: try entry.arguments.map(library.argument))
                .substituting(entry.variables)
            let inSQL = try library.fixture.keysSelected(by: predicate, entity: entry.entity)
            let inMemory = try library.fixture.keysAccepted(by: predicate, entity: entry.entity, in: library.reader)
            #expect(inSQL == expected, "\(entry): SQL selects \(library.labels(inSQL, entry.entity)), expected \(library.labels(expected, entry.entity))")
            #expect(inMemory == expected, "\(entry): in memory \(library.labels(inMemory, entry.entity)), expected \(library.labels(expected, entry.entity))")
            if expected.isEmpty || expected.count == library.rowCounts[entry.entity] { trivial.append(entry.format) }
            results.insert(expected.sorted())
        }
        print("predicate table: \(entries.count) entries, \(trivial.count) selecting no row or every row, \(results.count) distinct answers")
        #expect(entries.count >= 150)
        // The table tests something only if its answers differ: few select no row or every row.
        #expect(trivial.count * 20 <= entries.count, "too many entries select no row or every row: \(trivial)")
        #expect(results.count * 2 >= entries.count, "the entries should split the rows in many ways")
    }

    /// Regressions of two disagreements found while writing the table.
    @Test func formerDisagreementsNowAgree() throws {
        let library = try TableLibrary()
        func selections(_ entity: String, _ format: String, _ arguments: [TableArgument] = []) throws -> (inSQL: Set<Int64>, inMemory: Set<Int64>) {
            let predicate = try ObjectPredicate(format: format, arguments: try arguments.map(library.argument))
            return (try library.fixture.keysSelected(by: predicate, entity: entity), try library.fixture.keysAccepted(by: predicate, entity: entity, in: library.reader))
        }
        // A to-many behind a nil to-one has no members: with ANY nothing matches for the books
        // without an author, in memory as in SQL.
        let authorless = try library.keys(where: "b.ZAUTHOR IS NULL", entity: "Book")
        #expect(!authorless.isEmpty)
        for format in ["ANY author.books.rating != 3", "ANY author.books.rating == nil", "ANY author.books.title != 'Dune'"] {
            let (inSQL, inMemory) = try selections("Book", format)
            #expect(inSQL == inMemory, "\(format)")
            #expect(inMemory.isDisjoint(with: authorless), "\(format)")
        }
        // An object of another entity never equals a row, whatever their primary keys.
        let foreign: [(format: String, object: TableArgument)] = [("author == %@", .book("01")), ("ANY tags == %@", .book("01")), ("SELF == %@", .tag("Fantasy"))]
        for (format, object) in foreign {
            let (inSQL, inMemory) = try selections("Book", format, [object])
            #expect(inSQL.isEmpty && inMemory.isEmpty, "\(format) with \(object)")
            let negated = try selections("Book", "NOT (\(format))", [object])
            #expect(negated.inSQL == negated.inMemory && negated.inSQL.count == library.rowCounts["Book"], "NOT (\(format)) with \(object)")
        }
    }

    // MARK: - Entries

    struct Entry: CustomStringConvertible {
        let entity: String
        let format: String
        let arguments: [TableArgument]
        let variables: [String: PredicateValue]
        /// A condition on the entity's row, aliased `b` (Book, EBook), `a` (Author), `g` (Tag)
        /// or `pg` (Page).
        let sql: String

        var description: String { "\(entity): \(format)" + (arguments.isEmpty ? "" : " \(arguments)") + (variables.isEmpty ? "" : " \(variables)") }
    }

    static func book(_ format: String, _ arguments: TableArgument..., variables: [String: PredicateValue] = [:], sql: String) -> Entry {
        Entry(entity: "Book", format: format, arguments: arguments, variables: variables, sql: sql)
    }

    static func ebook(_ format: String, _ arguments: TableArgument..., sql: String) -> Entry {
        Entry(entity: "EBook", format: format, arguments: arguments, variables: [:], sql: sql)
    }

    static func author(_ format: String, _ arguments: TableArgument..., sql: String) -> Entry {
        Entry(entity: "Author", format: format, arguments: arguments, variables: [:], sql: sql)
    }

    static func tag(_ format: String, sql: String) -> Entry {
        Entry(entity: "Tag", format: format, arguments: [], variables: [:], sql: sql)
    }

    static func page(_ format: String, sql: String) -> Entry {
        Entry(entity: "Page", format: format, arguments: [], variables: [:], sql: sql)
    }

    // MARK: - Plain SQL building blocks

    /// `[c]`: SQLite's LOWER folds ASCII only, so the one upper-case accented letter the data
    /// holds is folded by hand.
    static func ci(_ column: String) -> String { "LOWER(REPLACE(\(column), 'É', 'é'))" }
    /// `[d]`: the accented letters the data holds, without their accents.
    static func di(_ column: String) -> String { "REPLACE(REPLACE(REPLACE(\(column), 'É', 'E'), 'é', 'e'), 'è', 'e')" }
    static func cdi(_ column: String) -> String { "LOWER(\(di(column)))" }

    /// Book `b`'s tags (alias `tg`), its pages (`p`), its author's books (`s`, itself included)
    /// and the books sharing one of its tags (`o`, once per shared tag).
    static let tagsOfB = "FROM Z_2TAGS bt JOIN ZTAG tg ON tg.Z_PK = bt.Z_5TAGS WHERE bt.Z_2BOOKS = b.Z_PK"
    static let tagNames = "(SELECT tg.ZNAME \(tagsOfB))"
    static let pagesOfB = "FROM ZPAGE p WHERE p.ZBOOK = b.Z_PK"
    static let authorName = "(SELECT au.ZNAME FROM ZAUTHOR au WHERE au.Z_PK = b.ZAUTHOR)"
    static let siblingsOfB = "FROM ZBOOK s WHERE s.ZAUTHOR = b.ZAUTHOR"
    static let coTaggedOfB = "FROM Z_2TAGS j1 JOIN Z_2TAGS j2 ON j2.Z_5TAGS = j1.Z_5TAGS JOIN ZBOOK o ON o.Z_PK = j2.Z_2BOOKS WHERE j1.Z_2BOOKS = b.Z_PK"
    /// Author `a`'s books (`ab`), tag `g`'s books (`gk`), page `pg`'s book (`bk`).
    static let booksOfA = "FROM ZBOOK ab WHERE ab.ZAUTHOR = a.Z_PK"
    static let booksOfG = "FROM Z_2TAGS gb JOIN ZBOOK gk ON gk.Z_PK = gb.Z_2BOOKS WHERE gb.Z_5TAGS = g.Z_PK"
    static func bookOfPg(_ column: String) -> String { "(SELECT bk.\(column) FROM ZBOOK bk WHERE bk.Z_PK = pg.ZBOOK)" }
}

/// An argument of a table entry; objects are named by what the hand-written SQL sees of them.
enum TableArgument: CustomStringConvertible {
    case value(PredicateValue)
    case key(String)
    /// A book by the last two digits of its ISBN.
    case book(String)
    case books([String])
    case author(String)
    case authors([String])
    case tag(String)

    var description: String {
        switch self {
        case .value(let value): value.description
        case .key(let key): "%K \(key)"
        case .book(let isbn): "<Book \(isbn)>"
        case .books(let isbns): "<Books \(isbns)>"
        case .author(let name): "<Author \(name)>"
        case .authors(let names): "<Authors \(names)>"
        case .tag(let name): "<Tag \(name)>"
        }
    }
}

/// The Library store the table reads, written out so that each answer can be worked out by hand.
struct TableLibrary {
    struct Book {
        let title: String
        /// For an EBook: its format and file size.
        var ebook: (format: String, fileSize: Int64?)?
        let rating: Double?
        let published: Double?
        let author: String?
        let tags: [String]
        /// The texts of pages 1, 2, …
        let pages: [String?]
    }

    static let authors: [(name: String, born: Double?, remoteID: Int64)] = [
        ("Tolkien", -3.4e9, 10), ("Le Guin", -2.2e9, 20), ("Lèvi", nil, 30), ("herbert", -2.5e9, 40), ("Émile", nil, 50), ("O'Brien", -1.5e9, 5),
    ]
    static let tags = ["Fantasy", "Classic", "Sci-Fi", "Epic", "Résumé", "Noir"]
    /// Book n has ISBN 97800000000nn.
    static let books: [Book] = [
        Book(title: "The Hobbit", rating: 4.5, published: -1e9, author: "Tolkien", tags: ["Fantasy", "Classic"], pages: ["Once upon a time", "In a hole", nil]),
        Book(title: "The Lord of the Rings", rating: 5, published: -9e8, author: "Tolkien", tags: ["Fantasy", "Epic", "Classic"], pages: ["Three rings", "ONCE more"]),
        Book(title: "the hobbit", ebook: ("epub", 120), rating: nil, published: 3e8, author: "Tolkien", tags: ["Fantasy"], pages: []),
        Book(title: "Earthsea", rating: 4, published: -6e8, author: "Le Guin", tags: ["Fantasy", "Classic"], pages: [nil]),
        Book(title: "The Dispossessed", rating: 3.5, published: -5e8, author: "Le Guin", tags: ["Sci-Fi"], pages: ["Walls", "The end"]),
        Book(title: "Dune", rating: 4.5, published: -7e8, author: "herbert", tags: ["Sci-Fi", "Classic", "Epic"], pages: ["A beginning", "Arrakis", "Desert", "The end"]),
        Book(title: "Dune Messiah", ebook: ("pdf", 300), rating: 3, published: -6.5e8, author: "herbert", tags: ["Sci-Fi"], pages: ["Once upon"]),
        Book(title: "Élan Vital", rating: 2, published: 0, author: "Lèvi", tags: ["Résumé"], pages: ["Été"]),
        Book(title: "Elan vital", ebook: ("pdf", 50), rating: 1, published: 1e8, author: "Lèvi", tags: [], pages: []),
        Book(title: "Mort", rating: 0, published: nil, author: nil, tags: ["Fantasy"], pages: ["Death", "DEATH"]),
        Book(title: "Solaris", rating: nil, published: nil, author: nil, tags: [], pages: []),
        Book(title: "Don't Panic", rating: 3, published: 6e8, author: nil, tags: ["Sci-Fi"], pages: ["Line\nbreak"]),
        Book(title: "Quote \"Me\"", ebook: ("epub", nil), rating: 2.5, published: 2e8, author: "Le Guin", tags: ["Epic"], pages: ["back\\slash"]),
        Book(title: "100% Pure", rating: 5, published: 6e8, author: "herbert", tags: ["Classic"], pages: []),
        Book(title: "A?B*C", rating: 1.5, published: -2e8, author: nil, tags: [], pages: ["x"]),
        Book(title: "mort", ebook: ("epub", 10), rating: 4, published: 5e8, author: "Lèvi", tags: ["Fantasy", "Résumé"], pages: ["Once upon", "once"]),
        Book(title: "Epic Tales", rating: 3.5, published: -3e8, author: "Tolkien", tags: ["Epic"], pages: ["The end", nil, "Once"]),
        Book(title: "The Left Hand of Darkness", ebook: ("pdf", 220), rating: 4.5, published: -4e8, author: "Le Guin", tags: ["Sci-Fi", "Classic"], pages: ["Winter"]),
    ]

    let fixture: LibraryFixture
    let reader: ObjectContext
    let rowCounts: [String: Int]

    init() throws {
        fixture = try LibraryFixture()
        let context = fixture.context
        try context.performAndWait {
            var authors: [String: ManagedObject] = [:], tags: [String: ManagedObject] = [:]
            for (name, born, remoteID) in Self.authors {
                let author = try context.insert("Author")
                try author.setValue(name, forKey: "name")
                try author.setValue(born.map { Date(timeIntervalSinceReferenceDate: $0) }, forKey: "born")
                try author.setValue(remoteID, forKey: "remoteID")
                authors[name] = author
            }
            for name in Self.tags {
                let tag = try context.insert("Tag")
                try tag.setValue(name, forKey: "name")
                tags[name] = tag
            }
            for (index, row) in Self.books.enumerated() {
                let book = try context.insert(row.ebook == nil ? "Book" : "EBook")
                try book.setValue(row.title, forKey: "title")
                try book.setValue(String(format: "97800000000%02d", index + 1), forKey: "isbn")
                try book.setValue(row.rating, forKey: "rating")
                try book.setValue(row.published.map { Date(timeIntervalSinceReferenceDate: $0) }, forKey: "published")
                try book.setValue(row.author.flatMap { authors[$0] }, forKey: "author")
                for name in row.tags { try book.add(try #require(tags[name]), toKey: "tags") }
                for (number, text) in row.pages.enumerated() {
                    let page = try context.insert("Page")
                    try page.setValue(number + 1, forKey: "number")
                    try page.setValue(text, forKey: "text")
                    try book.add(page, toKey: "pages")
                }
                if let ebook = row.ebook {
                    try book.setValue(ebook.format, forKey: "format")
                    try book.setValue(ebook.fileSize, forKey: "fileSize")
                }
            }
            try context.save()
        }
        reader = try fixture.otherContext()
        var counts: [String: Int] = [:]
        for entity in ["Book", "EBook", "Author", "Tag", "Page"] { counts[entity] = try fixture.keysSelected(by: .constant(true), entity: entity).count }
        rowCounts = counts
    }

    /// The rows of `entity` the hand-written condition selects.
    func keys(where condition: String, entity: String) throws -> Set<Int64> {
        let select = [
            "Book": "SELECT b.Z_PK FROM ZBOOK b WHERE",
            "EBook": "SELECT b.Z_PK FROM ZBOOK b WHERE b.Z_ENT = (SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'EBook') AND",
            "Author": "SELECT a.Z_PK FROM ZAUTHOR a WHERE", "Tag": "SELECT g.Z_PK FROM ZTAG g WHERE", "Page": "SELECT pg.Z_PK FROM ZPAGE pg WHERE",
        ]
        let sql = "\(try #require(select[entity])) (\(condition))"
        return Set(try fixture.store.database.rows(sql).compactMap { $0[0].int64Value })
    }

    /// Rows by what a reader of the table recognizes: titles, names, or page numbers of titles.
    func labels(_ keys: Set<Int64>, _ entity: String) -> [String] {
        let label = [
            "Author": "SELECT ZNAME FROM ZAUTHOR WHERE Z_PK = ?", "Tag": "SELECT ZNAME FROM ZTAG WHERE Z_PK = ?",
            "Page": "SELECT b.ZTITLE || ' p' || p.ZNUMBER FROM ZPAGE p JOIN ZBOOK b ON b.Z_PK = p.ZBOOK WHERE p.Z_PK = ?",
        ][entity] ?? "SELECT ZTITLE FROM ZBOOK WHERE Z_PK = ?"
        return keys.sorted().map { key in
            (try? fixture.store.database.scalar(label, [.integer(key)]))??.stringValue ?? String(key)
        }
    }

    func argument(_ argument: TableArgument) throws -> PredicateArgument {
        switch argument {
        case .value(let value): return PredicateArgument(value)
        case .key(let key): return PredicateArgument(stringLiteral: key)
        case .book(let isbn): return .object(try object("Book", "SELECT Z_PK FROM ZBOOK WHERE ZISBN = ?", "97800000000" + isbn))
        case .books(let isbns): return .array(try isbns.map { .objectID(try object("Book", "SELECT Z_PK FROM ZBOOK WHERE ZISBN = ?", "97800000000" + $0)) })
        case .author(let name): return .object(try object("Author", "SELECT Z_PK FROM ZAUTHOR WHERE ZNAME = ?", name))
        case .authors(let names): return .array(try names.map { .objectID(try object("Author", "SELECT Z_PK FROM ZAUTHOR WHERE ZNAME = ?", $0)) })
        case .tag(let name): return .object(try object("Tag", "SELECT Z_PK FROM ZTAG WHERE ZNAME = ?", name))
        }
    }

    private func object(_ entity: String, _ sql: String, _ name: String) throws -> ObjectID {
        let key = try #require(try fixture.store.database.scalar(sql, [.text(name)])?.int64Value, "no \(entity) \(name)")
        // A book's entity is Book or EBook; the ID names the one its row has.
        let number = try fixture.store.database.scalar("SELECT Z_ENT FROM \(entity == "Book" ? "ZBOOK" : "Z" + entity.uppercased()) WHERE Z_PK = ?", [.integer(key)])?.int64Value
        let name = fixture.store.layout.entities.first { Int64($0.number) == number }?.name ?? entity
        return ObjectID(entityName: name, storeIdentifier: fixture.store.metadata.uuid, key: .permanent(key))
    }
}
