import Foundation
import Strata
import Testing
import StrataTestSupport

/// `strata count` on the real Core Data stores, checked against SQL written here by hand.
@Suite(.enabled(if: StrataRunner.fixturesAvailable, "shared/fixtures/coredata not found: fixture test skipped"))
struct CountCommandTests {
    static let books = StrataRunner.sharedFixtures.appendingPathComponent("real-stores/CoreDataBooks.sqlite")

    @Test(arguments: [
        (nil, "1"), ("title CONTAINS[c] 'the'", "instr(lower(ZTITLE), 'the') > 0"), ("author == 'Bill Bryson'", "ZAUTHOR = 'Bill Bryson'"),
        ("author BEGINSWITH 'P' OR title ENDSWITH 's'", "ZAUTHOR LIKE 'P%' OR ZTITLE LIKE '%s'"),
        ("NOT (copyright == nil)", "ZCOPYRIGHT IS NOT NULL"), ("title IN {'Stark', 'Down Under', 'Nothing'}", "ZTITLE IN ('Stark', 'Down Under')"),
        // The whole predicate language, on a store Core Data wrote: arithmetic and functions…
        ("-copyright < 0", "ZCOPYRIGHT > 0"), ("length(title) + 1 > 16", "length(ZTITLE) > 15"),
        ("modulus:by:(length(title), 2) == 0 AND 2 ** 3 == 8", "length(ZTITLE) % 2 = 0"),
        ("length(title) > 0xA AND length(title) < 0b10100", "length(ZTITLE) BETWEEN 11 AND 19"),
        ("{length(title), 5}.@max > 12", "length(ZTITLE) > 12"), ("randomn(1) == 0 AND noindex(title) != 'Stark'", "ZTITLE <> 'Stark'"),
        ("FUNCTION(author, 'uppercaseString') BEGINSWITH 'B'", "ZAUTHOR LIKE 'B%'"),
        ("length(title) IN mode({length(title), 5, 5})", "length(ZTITLE) = 5"),
        // …dates written as text, lists, indexes and anchored patterns.
        ("copyright > '1990-01-01'", "ZCOPYRIGHT > -347155200"), ("CAST('1990-01-01', 'NSDate') >= copyright", "ZCOPYRIGHT <= -347155200"),
        ("{'Stark', 'Down Under'} CONTAINS title", "ZTITLE IN ('Stark', 'Down Under')"), ("{'Stark', title}[LAST] == 'Stark'", "ZTITLE = 'Stark'"),
        ("title MATCHES '^D.*r$' OR title MATCHES 'S.*'", "ZTITLE GLOB 'D*r' OR ZTITLE GLOB 'S*'"),
    ] as [(String?, String)])
    func countsWhatSQLCounts(predicate: String?, sql: String) throws {
        let before = try Data(contentsOf: Self.books)
        let result = try StrataRunner.run(["count", "Book", "--store", Self.books.path] + (predicate.map { ["--where", $0] } ?? []))
        #expect(result.status == 0, "\(result.standardError)")
        let database = try Database(path: Self.books.path, configuration: .readOnly)
        let expected = try database.scalar("SELECT COUNT(*) FROM ZBOOK WHERE \(sql)")?.int64Value
        database.close()
        #expect(result.standardOutput == "\(expected ?? -1)\n")
        #expect(try Data(contentsOf: Self.books) == before)
    }

    @Test func subEntitiesCountUnlessExcluded() throws {
        let temporary = try TemporaryFolder("strata-count")
        let folder = temporary.url
        let model = try ModelLoader.load(StrataRunner.repositoryRoot.appendingPathComponent("examples/Library/Library.xcdatamodeld")).currentVersion.model
        let store = try PersistentStore.create(at: folder.appendingPathComponent("Library.sqlite").path, model: model)
        let context = ObjectContext(store: store, name: "seed")
        try context.performAndWait {
            for (index, (entity, title)) in [("Book", "Dune"), ("Book", "Mort"), ("EBook", "Dune")].enumerated() {
                let book = try context.insert(entity)
                try book.setValue(title, forKey: "title")
                try book.setValue("012345678\(index)", forKey: "isbn")
            }
            try context.save()
        }
        store.close()
        let path = folder.appendingPathComponent("Library.sqlite").path
        for (arguments, expected) in [
            (["count", "Book"], "3\n"), (["count", "Book", "--exclude-subentities"], "2\n"), (["count", "EBook"], "1\n"),
            (["count", "Book", "--where", "title == 'Dune'"], "2\n"), (["count", "Book", "--where", "title == 'Dune'", "--exclude-subentities"], "1\n"),
        ] {
            let result = try StrataRunner.run(arguments + ["--store", path])
            #expect(result.standardOutput == expected, "\(arguments): \(result.standardError)")
        }
    }

    @Test(arguments: [
        ("title == AND", "Error: The value 'title == AND' is invalid for '--where <predicate>': expected a value after '==', found 'AND'\n  title == AND\n           ^\n"),
        ("titel == 'x'", "did you mean 'title'?"),
    ])
    func aBadPredicateIsAUsageErrorThatPointsAtIt(predicate: String, message: String) throws {
        let result = try StrataRunner.run(["count", "Book", "--store", Self.books.path, "--where", predicate])
        #expect(result.status == 2)
        #expect(result.standardOutput.isEmpty)
        #expect(result.standardError.contains(message), "\(result.standardError)")
    }

    @Test func anUnknownEntityNamesTheNearest() throws {
        let result = try StrataRunner.run(["count", "Bok", "--store", Self.books.path])
        #expect(result.status == 2)
        #expect(result.standardError.contains("no entity 'Bok'; did you mean 'Book'?"), "\(result.standardError)")
    }
}
