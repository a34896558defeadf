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
        "ANY tags.name == 'Classic'", "tags.name CONTAINS[c] 'fantasy'", "ALL tags.name BEGINSWITH 'F'", "NONE tags.name == 'Classic'",
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
                let predicate = try ObjectPredicate(format: format)
                let inSQL = try library.keysSelected(by: predicate, entity: entity)
                let inMemory = try library.keysAccepted(by: predicate, entity: entity)
                #expect(inSQL == inMemory, "\(entity): \(format)")
                sizes.insert(inSQL.count)
            }
        }
        let tag = try library.someTag()
        for format in ["%@ IN tags", "tags CONTAINS %@", "ANY tags == %@", "NOT %@ IN tags"] {
            let predicate = try ObjectPredicate(format: format, tag)
            #expect(try library.keysSelected(by: predicate, entity: "Book") == library.keysAccepted(by: predicate, entity: "Book"), "\(format)")
        }
        #expect(sizes.count > 5, "the predicates should split the rows in many ways")
    }

    /// Compile errors a generated predicate may meet by design (members' own aggregates, a
    /// quantifier on a single value); any other compile error is a failure.
    static let designedLimits = ["must follow the first to-many of a key path", "needs a to-many key path"]

    @Test(arguments: [1, 2, 3] as [UInt64])
    func randomPredicatesAgreeWithTheEvaluator(seed: UInt64) throws {
        let library = try RandomLibrary(seed: seed)
        var generator = RandomPredicates(seed: seed)
        let entities = ["Book", "Book", "Book", "EBook", "Author", "Author"]
        var rows: [String: Int] = [:]
        for entity in Set(entities) { rows[entity] = try library.keysSelected(by: .constant(true), entity: entity).count }
        var skipped = 0, splitting = 0
        let generated = 400
        for index in 0..<generated {
            let entity = entities[index % entities.count]
            let (format, arguments) = generator.next(for: entity)
            let replay = "seed \(seed) #\(index) \(entity): \(format) \(arguments.map(\.value))"
            let predicate: ObjectPredicate
            do { predicate = try ObjectPredicate(format: format, arguments: arguments) } catch {
                Issue.record("does not parse: \(replay): \(error)")
                continue
            }
            let inSQL: Set<Int64>
            do { inSQL = try library.keysSelected(by: predicate, entity: entity) } catch let error as PredicateCompileError {
                if Self.designedLimits.contains(where: error.message.contains) { skipped += 1 } else { Issue.record("\(replay): \(error)") }
                continue
            }
            let inMemory = try library.keysAccepted(by: predicate, entity: entity)
            #expect(inSQL == inMemory, "\(replay) read as \(predicate): SQL \(inSQL.sorted()), in memory \(inMemory.sorted())")
            if !inSQL.isEmpty, inSQL.count < rows[entity, default: 0] { splitting += 1 }
        }
        print("random predicates, seed \(seed): \(generated) generated, \(skipped) skipped by design, \(splitting) split the rows")
        #expect(skipped * 20 <= generated, "too many generated predicates hit a designed limit")
        // Deep ORs tend to accept every row and deep ANDs none; enough others must remain.
        #expect(splitting * 5 >= (generated - skipped) * 2, "too few random predicates split the rows")
    }

    @Test(arguments: [
        ("subtitle == 'x'", "entity 'Book' has no property 'subtitle'"),
        ("tags.name == $NAME", "no value for $NAME"),
        ("ANY tags == 'x' AND rating.foo == 1", "attribute 'Book.rating' cannot be followed or is not stored"),
        // Core Data refuses these too: without ANY, ALL or NONE they could mean either.
        ("tags.name == 'x'", "to-many key path 'tags.name' needs ANY, ALL or NONE before it, or an aggregate (@count, @sum, …) after it"),
        ("author.books.rating > 3", "to-many key path 'author.books.rating' needs ANY, ALL or NONE before it, or an aggregate (@count, @sum, …) after it"),
        ("ANY rating > 1", "ANY needs a to-many key path"),
        ("pages.@sum.text > 1", "@sum.text is not an aggregate of a numeric attribute"),
        ("rating == {1, 2}", "a list is only allowed after IN or BETWEEN"),
        ("author.books.tags.@count > 1", "@count must follow the first to-many of a key path"),
        ("mode(pages.number) == 1", "mode(…) gives a list (the most frequent numbers): compare a value with it by IN or CONTAINS"),
        ("author[0] == nil", "an index takes values, not objects like author; objects compare with ==, !=, IN and CONTAINS"),
        ("abs(SELF) > 0", "abs(…) takes values, not objects like SELF; objects compare with ==, !=, IN and CONTAINS"),
        ("FUNCTION(author, 'intValue') == 1", "FUNCTION(…) takes values, not objects like author; objects compare with ==, !=, IN and CONTAINS"),
        ("mode({1, 2})[FIRST] == 1", "mode(…) gives a list (the most frequent numbers): compare a value with it by IN or CONTAINS"),
        ("2 IN mode(pages.text)", "mode(pages.text) is not an aggregate of a numeric attribute"),
        ("pages[FIRST] == nil", "'pages' is a to-many, whose members have no order in the store: an index cannot pick one; pages[SIZE] counts them"),
        // Both matched nothing without a word.
        ("title MATCHES '(unclosed'", "MATCHES '(unclosed' is not a valid ICU regular expression"),
        ("published > 'yesterday'", "'Book.published' is a date compared with the text \"yesterday\", which is no ISO 8601 date; "
            + "write a date as CAST('2000-01-31', 'NSDate') or CAST('2000-01-31T12:00:00Z', 'NSDate')"),
    ])
    func badPredicatesNameTheirFault(format: String, message: String) throws {
        let model = try ModelLoader.load(Fixtures.exampleModel).currentVersion.model
        let book = try #require(model.entity(named: "Book"))
        #expect(throws: PredicateCompileError(message: message)) {
            try PredicateSQL(try ObjectPredicate(format: format), entity: book, model: model, layout: StoreLayout(model: model))
        }
    }
}

extension PredicateSQLTests {
    /// `noindex:` is Core Data's hint not to use an index: SQLite's unary `+`, which keeps the
    /// column's collation and value.
    @Test func noindexKeepsSQLiteFromUsingAnIndex() throws {
        let model = try ModelLoader.load(Fixtures.exampleModel).currentVersion.model
        let book = try #require(model.entity(named: "Book"))
        let compiled = try PredicateSQL(try ObjectPredicate(format: "noindex(title) == 'Dune'"), entity: book, model: model, layout: StoreLayout(model: model))
        #expect(compiled.condition == "(+(t0.ZTITLE) IS ?1)")
    }
}
