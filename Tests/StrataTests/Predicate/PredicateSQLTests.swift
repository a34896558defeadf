import Foundation
import Testing
@testable import Strata

/// The SQL a predicate compiles to selects exactly the rows the in-memory evaluator accepts,
/// on randomly filled Library stores.
@Suite struct PredicateSQLTests {
    static let bookPredicates = [
        "title == 'The Hobbit'", "title ==[c] 'the hobbit'", "title !=[cd] 'elan vital'", "title BEGINSWITH[c] 'the'",
        "title CONTAINS[cd] 'E'", "title ENDSWITH 's'", "title LIKE[c] '*o?'", "title MATCHES '.*[Rr]ings'",
        "title < 'M'", "title >=[c] 'm'", "title IN {'The Hobbit', 'Dune'}", "title CONTAINS ''",
        "rating > 2.5", "rating == nil", "rating != 3", "NOT rating < 2", "rating BETWEEN {1, 3}", "rating IN {0, 1, 5}",
        "published == nil", "published > CAST(0, 'NSDate')", "published != nil AND published < CAST(100000000, 'NSDate')",
        "author == nil", "author.name == 'Tolkien'", "author.name != 'Tolkien'", "author.name BEGINSWITH[cd] 'LE'",
        "author.remoteID > 5", "author.books.@count > 2", "author.books.@avg.rating > 2",
        "ANY tags.name == 'Classic'", "tags.name ==[c] 'fantasy'", "ALL tags.name BEGINSWITH 'F'", "NONE tags.name == 'Classic'",
        "tags.@count == 0", "tags.@count >= 2", "ANY pages.number > 2", "ALL pages.text == nil", "ANY pages.text == nil",
        "pages.@sum.number > 3", "pages.@max.number == 3", "pages.@avg.number < 2", "pages.@min.number == nil",
        "ANY pages.text CONTAINS[c] 'once'", "SUBQUERY(pages, $p, $p.number > 1 AND $p.text != nil).@count > 0",
        "SUBQUERY(tags, $t, $t.name ENDSWITH 'c').@count == 1", "ANY tags.books.author.name == 'Tolkien'",
        "ALL tags.books.rating > 1", "rating > 3 OR (author.name == 'Le Guin' AND NOT ANY tags.name == 'Classic')",
        "ANY author.books.rating > rating", "ALL author.books.rating <= rating", "ANY pages.book == SELF",
        "SELF == SELF", "TRUEPREDICATE", "FALSEPREDICATE",
    ]
    static let authorPredicates = [
        "ANY books.tags.name == 'Classic'", "books.@count == 0", "ALL books.rating >= 2", "books.@sum.rating > 4",
        "name CONTAINS[cd] 'e'", "NONE books.published == nil", "SUBQUERY(books, $b, ANY $b.tags.name == 'Fantasy').@count >= 1",
    ]

    @Test(arguments: [1, 2, 3] as [UInt64])
    func sqlAgreesWithTheEvaluator(seed: UInt64) throws {
        let library = try RandomLibrary(seed: seed)
        var sizes: Set<Int> = []
        for (entity, formats) in [("Book", Self.bookPredicates), ("Author", Self.authorPredicates), ("EBook", ["format == 'pdf'", "fileSize > 100 OR rating > 4"])] {
            for format in formats {
                let predicate = try Predicate(format: format)
                let inSQL = try library.keysSelected(by: predicate, entity: entity)
                let inMemory = try library.keysAccepted(by: predicate, entity: entity)
                #expect(inSQL == inMemory, "\(entity): \(format)")
                sizes.insert(inSQL.count)
            }
        }
        let tag = try library.someTag()
        for format in ["%@ IN tags", "tags CONTAINS %@", "ANY tags == %@", "NOT %@ IN tags"] {
            let predicate = try Predicate(format: format, .object(tag))
            #expect(try library.keysSelected(by: predicate, entity: "Book") == library.keysAccepted(by: predicate, entity: "Book"), "\(format)")
        }
        #expect(sizes.count > 5, "the predicates should split the rows in many ways")
    }

    @Test(arguments: [
        ("subtitle == 'x'", "entity 'Book' has no property 'subtitle'"),
        ("tags.name == $NAME", "no value for $NAME"),
        ("tags == 'x' AND rating.foo == 1", "attribute 'Book.rating' cannot be followed or is not stored"),
        ("ANY rating > 1", "ANY needs a to-many key path"),
        ("pages.@sum.text > 1", "@sum.text is not an aggregate of a numeric attribute"),
        ("rating == {1, 2}", "a list is only allowed after IN or BETWEEN"),
        ("author.books.tags.@count > 1", "@count must follow the first to-many of a key path"),
    ])
    func badPredicatesNameTheirFault(format: String, message: String) throws {
        let model = try ModelLoader.load(Fixtures.exampleModel).currentVersion.model
        let book = try #require(model.entity(named: "Book"))
        #expect(throws: PredicateCompileError(message: message)) {
            try PredicateSQL(try Predicate(format: format), entity: book, model: model, layout: StoreLayout(model: model))
        }
    }
}

/// A Library store filled from a seed: authors, books and e-books, tags, pages, some values nil.
private struct RandomLibrary {
    let fixture: LibraryFixture

    init(seed: UInt64) throws {
        let fixture = try LibraryFixture()
        self.fixture = fixture
        var random = SplitMix(state: seed)
        let context = fixture.context
        try context.performAndWait {
            let authors = try ["Tolkien", "Le Guin", "Lèvi", "herbert"].enumerated().map { index, name in
                let author = try context.insert("Author")
                try author.setValue(name, forKey: "name")
                try author.setValue(Int64(index * 3 + random.next(3)), forKey: "remoteID")
                return author
            }
            let tags = try ["Fantasy", "Classic", "Sci-Fi", "Epic"].map { name in
                let tag = try context.insert("Tag")
                try tag.setValue(name, forKey: "name")
                return tag
            }
            let titles = ["The Hobbit", "the hobbit", "Dune", "Élan Vital", "The Lord of the Rings", "Earthsea", "Mort", "Solaris"]
            for index in 0..<30 {
                let book = try context.insert(random.next(4) == 0 ? "EBook" : "Book")
                try book.setValue(titles[random.next(titles.count)], forKey: "title")
                try book.setValue(String(format: "978%010d", index), forKey: "isbn")
                try book.setValue(random.next(5) == 0 ? nil : Double(random.next(11)) / 2, forKey: "rating")
                if random.next(3) != 0 { try book.setValue(Date(timeIntervalSinceReferenceDate: Double(random.next(400)) * 1e6 - 2e8), forKey: "published") }
                if random.next(4) != 0 { try book.setValue(authors[random.next(authors.count)], forKey: "author") }
                for tag in tags where random.next(3) == 0 { try book.add(tag, toKey: "tags") }
                for number in 0..<random.next(4) {
                    let page = try context.insert("Page")
                    try page.setValue(number + 1, forKey: "number")
                    if random.next(2) == 0 { try page.setValue(["Once upon", "ONCE more", "The end"][random.next(3)], forKey: "text") }
                    try book.add(page, toKey: "pages")
                }
                if book.entity.name == "EBook" {
                    try book.setValue(["epub", "pdf"][random.next(2)], forKey: "format")
                    try book.setValue(Int64(random.next(300)), forKey: "fileSize")
                }
            }
            try context.save()
        }
    }

    func keysSelected(by predicate: Strata.Predicate, entity name: String) throws -> Set<Int64> {
        let model = fixture.store.model
        let entity = try #require(model.entity(named: name)), table = try #require(fixture.store.layout.entity(named: name))
        let compiled = try PredicateSQL(predicate, entity: entity, model: model, layout: fixture.store.layout)
        let sql = "SELECT t0.Z_PK FROM \(table.tableName) t0 WHERE t0.Z_ENT BETWEEN \(table.numberRange.lowerBound) AND \(table.numberRange.upperBound) AND (\(compiled.condition))"
        return Set(try fixture.store.database.rows(sql, compiled.arguments).compactMap { $0[0].int64Value })
    }

    func keysAccepted(by predicate: Strata.Predicate, entity name: String) throws -> Set<Int64> {
        let table = try #require(fixture.store.layout.entity(named: name))
        let names = Dictionary(uniqueKeysWithValues: fixture.store.layout.entities.map { ($0.number, $0.name) })
        let rows = try fixture.store.database.rows(
            "SELECT Z_PK, Z_ENT FROM \(table.tableName) WHERE Z_ENT BETWEEN \(table.numberRange.lowerBound) AND \(table.numberRange.upperBound)")
        let context = try fixture.otherContext()
        let store = fixture.store.metadata.uuid
        return try context.performAndWait {
            var accepted: Set<Int64> = []
            for row in rows {
                let key = row[0].int64Value ?? 0, entity = names[Int(row[1].int64Value ?? 0)] ?? name
                let object = context.object(with: ObjectID(entityName: entity, storeIdentifier: store, key: .permanent(key)))
                if try predicate.evaluate(with: object) { accepted.insert(key) }
            }
            return accepted
        }
    }

    func someTag() throws -> ObjectID {
        let key = try #require(try fixture.store.database.scalar("SELECT MIN(Z_PK) FROM ZTAG")?.int64Value)
        return ObjectID(entityName: "Tag", storeIdentifier: fixture.store.metadata.uuid, key: .permanent(key))
    }
}

/// A small seeded generator, so a failing case can be replayed.
private struct SplitMix {
    var state: UInt64

    mutating func next(_ bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int((z ^ (z >> 31)) % UInt64(bound))
    }
}
