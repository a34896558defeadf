import Foundation
import Testing
@testable import Strata

/// What a fetch that loads its objects as the statement steps reads from each column: texts
/// whole, and values that another tool wrote in another storage class than Core Data's read
/// as the attribute's type reads them.
@Suite struct FetchedValueTests {
    /// A valid ISBN for the `index`th book.
    private static func isbn(_ index: Int) -> String {
        String(format: "978%010d", index)
    }

    /// The books' titles by ISBN, fetched with their values into a context holding nothing.
    private func titles(in fixture: LibraryFixture) throws -> [String: String?] {
        try fixture.context.performAndWait {
            fixture.context.reset()
            var request = FetchRequest(entityName: "Book")
            request.returnsObjectsAsFaults = false
            var titles: [String: String?] = [:]
            for book in try fixture.context.fetch(request) {
                #expect(!book.isFault)
                titles[try book.value(forKey: "isbn") as? String ?? "?"] = try book.value(forKey: "title") as? String
            }
            return titles
        }
    }

    @Test func textsKeepEveryCharacter() throws {
        let fixture = try LibraryFixture()
        let titles = ["", "a\u{0}b", "Bücher 📚", "fifteen bytes!!", "sixteen bytes!!!", String(repeating: "a long title, é ", count: 20)]
        try fixture.context.performAndWait {
            for (index, title) in titles.enumerated() { _ = try fixture.book(title, isbn: Self.isbn(index)) }
            try fixture.context.save()
        }
        let fetched = try self.titles(in: fixture)
        #expect(fetched.count == titles.count)
        for (index, title) in titles.enumerated() { #expect(fetched[Self.isbn(index)] == title) }
    }

    @Test func invalidUTF8IsRepairedAsBefore() throws {
        let fixture = try LibraryFixture()
        try fixture.context.performAndWait {
            _ = try fixture.book("short", isbn: Self.isbn(1))
            _ = try fixture.book("long", isbn: Self.isbn(2))
            try fixture.context.save()
        }
        // Bytes that are not UTF-8 in text columns, as another tool may write them: each
        // invalid byte reads as U+FFFD, short and long texts alike.
        try fixture.store.database.execute("UPDATE ZBOOK SET ZTITLE = CAST(x'41FF42' AS TEXT) WHERE ZISBN = '\(Self.isbn(1))'")
        try fixture.store.database.execute("UPDATE ZBOOK SET ZTITLE = CAST(x'41FF42' AS TEXT) || '\(String(repeating: "z", count: 20))' WHERE ZISBN = '\(Self.isbn(2))'")
        let fetched = try titles(in: fixture)
        #expect(fetched[Self.isbn(1)] == "A\u{FFFD}B")
        #expect(fetched[Self.isbn(2)] == "A\u{FFFD}B" + String(repeating: "z", count: 20))
    }

    @Test func otherStorageClassesReadAsTheAttributeTypeReadsThem() throws {
        let fixture = try LibraryFixture()
        try fixture.context.performAndWait {
            for (index, name) in ["text in an integer", "integer in a date", "nulls"].enumerated() {
                let author = try fixture.context.insert("Author")
                try author.setValue(name, forKey: "name")
                try author.setValue(Int64(7 + index), forKey: "remoteID")
                try author.setValue(Date(timeIntervalSinceReferenceDate: 0.5), forKey: "born")
            }
            try fixture.context.save()
        }
        let database = fixture.store.database
        try database.execute("UPDATE ZAUTHOR SET ZREMOTEID = 'seven' WHERE ZNAME = 'text in an integer'")
        try database.execute("UPDATE ZAUTHOR SET ZBORN = 86400 WHERE ZNAME = 'integer in a date'")
        try database.execute("UPDATE ZAUTHOR SET ZREMOTEID = NULL, ZBORN = NULL, ZNAME = NULL WHERE ZNAME = 'nulls'")
        #expect(try database.scalar("SELECT typeof(ZBORN) FROM ZAUTHOR WHERE ZNAME = 'integer in a date'")?.stringValue == "integer")
        try fixture.context.performAndWait {
            fixture.context.reset()
            var request = FetchRequest(entityName: "Author")
            request.returnsObjectsAsFaults = false
            var byName: [String: ManagedObject] = [:]
            for author in try fixture.context.fetch(request) { byName[try author.value(forKey: "name") as? String ?? "nil"] = author }
            #expect(byName.keys.sorted() == ["integer in a date", "nil", "text in an integer"])
            let textInInteger = try #require(byName["text in an integer"])
            let integerInDate = try #require(byName["integer in a date"])
            let nulls = try #require(byName["nil"])
            #expect(try textInInteger.value(forKey: "remoteID") == nil)
            #expect(try textInInteger.value(forKey: "born") as? Date == Date(timeIntervalSinceReferenceDate: 0.5))
            #expect(try integerInDate.value(forKey: "born") as? Date == Date(timeIntervalSinceReferenceDate: 86400))
            #expect(try integerInDate.value(forKey: "remoteID") as? Int64 == 8)
            #expect(try nulls.value(forKey: "remoteID") == nil)
            #expect(try nulls.value(forKey: "born") == nil)
        }
    }
}
