import Foundation
import Testing
@testable import Strata

/// Predicates evaluated in memory on the Library example, unsaved changes included.
@Suite struct PredicateEvaluatorTests {
    /// Two books, one with an author, tags and pages, one bare; nothing saved.
    struct Shelf {
        let fixture: LibraryFixture
        let hobbit: ManagedObject
        let bare: ManagedObject
        let tolkien: ManagedObject
        let fantasy: ManagedObject

        init() throws {
            let fixture = try LibraryFixture()
            self.fixture = fixture
            (hobbit, bare, tolkien, fantasy) = try fixture.context.performAndWait {
                let context = fixture.context
                let hobbit = try fixture.book("The Hobbit", isbn: "9780261102217")
                try hobbit.setValue(4.5, forKey: "rating")
                try hobbit.setValue(Date(timeIntervalSinceReferenceDate: -2_000_000_000), forKey: "published")
                let bare = try fixture.book("Élan Vital", isbn: "0123456789")
                let tolkien = try context.insert("Author")
                try tolkien.setValue("Tolkien", forKey: "name")
                try hobbit.setValue(tolkien, forKey: "author")
                let tags = try ["Fantasy", "Classic"].map { name in
                    let tag = try context.insert("Tag")
                    try tag.setValue(name, forKey: "name")
                    try hobbit.add(tag, toKey: "tags")
                    return tag
                }
                for number in 1...3 {
                    let page = try context.insert("Page")
                    try page.setValue(number, forKey: "number")
                    try hobbit.add(page, toKey: "pages")
                }
                return (hobbit, bare, tolkien, tags[0])
            }
        }

        func matches(_ format: String, _ object: ManagedObject) throws -> Bool {
            let predicate = try ObjectPredicate(format: format)
            return try fixture.context.performAndWait { try predicate.evaluate(with: object) }
        }
    }

    @Test(arguments: [
        ("title == 'The Hobbit'", true, false), ("title != 'The Hobbit'", false, true),
        ("rating > 4", true, false), ("rating BETWEEN {4, 5}", true, false), ("rating IN {0, 1}", false, true),
        ("title BEGINSWITH[c] 'the'", true, false), ("title BEGINSWITH 'the'", false, false),
        ("title CONTAINS[cd] 'ELAN'", false, true), ("title CONTAINS[c] 'ELAN'", false, false),
        ("title ENDSWITH 'bit'", true, false), ("title LIKE 'The H?bb*'", true, false),
        ("isbn MATCHES '[0-9]{13}'", true, false),
        ("published == nil", false, true), ("published != nil", true, false),
        ("published < CAST(0, 'NSDate')", true, false), ("published > CAST(0, 'NSDate')", false, false),
        ("author.name == 'Tolkien'", true, false), ("author.name != 'Tolkien'", false, true), ("author == nil", false, true),
        ("ANY tags.name == 'Classic'", true, false), ("tags.name == 'Classic'", true, false),
        ("NONE tags.name == 'Classic'", false, true), ("ALL pages.number > 0", true, true),
        ("ALL pages.number > 1", false, true),
        ("pages.@count == 3", true, false), ("pages.@count == 0", false, true), ("pages.@sum.number == 6", true, false),
        ("SUBQUERY(tags, $t, $t.name BEGINSWITH 'F').@count == 1", true, false),
        ("rating > 4 AND NOT author == nil", true, false), ("rating > 4 OR title CONTAINS 'V'", true, true),
        ("title CONTAINS ''", false, false), ("title BEGINSWITH ''", false, false), ("title ENDSWITH[c] ''", false, false),
        ("TRUEPREDICATE", true, true), ("FALSEPREDICATE", false, false),
    ])
    func holdsForTheRightBooks(format: String, hobbit: Bool, bare: Bool) throws {
        let shelf = try Shelf()
        #expect(try shelf.matches(format, shelf.hobbit) == hobbit)
        #expect(try shelf.matches(format, shelf.bare) == bare)
    }

    @Test func aggregatesOverAnAuthorsBooksSeeUnsavedChanges() throws {
        let shelf = try Shelf()
        #expect(try shelf.matches("books.@avg.rating == 4.5 AND books.@count == 1", shelf.tolkien))
        try shelf.fixture.context.performAndWait { try shelf.bare.setValue(shelf.tolkien, forKey: "author") }
        #expect(try shelf.matches("books.@count == 2 AND books.@max.rating == 4.5 AND books.@min.rating == 0", shelf.tolkien))
        #expect(try shelf.matches("ANY books.title CONTAINS[cd] 'elan'", shelf.tolkien))
    }

    /// A member's nil takes part as nil, as its row's NULL does in SQL.
    @Test func nilMembersOfAToManyCompareAsNil() throws {
        let shelf = try Shelf()
        try shelf.fixture.context.performAndWait {
            let blank = try shelf.fixture.context.insert("Page")
            try blank.setValue(4, forKey: "number")
            try shelf.hobbit.add(blank, toKey: "pages")
            let opening = try shelf.fixture.context.insert("Page")
            try opening.setValue("Once upon a time", forKey: "text")
            try shelf.hobbit.add(opening, toKey: "pages")
        }
        #expect(try !shelf.matches("ALL pages.text == 'Once upon a time'", shelf.hobbit))
        #expect(try shelf.matches("ANY pages.text == nil", shelf.hobbit))
        #expect(try shelf.matches("ANY pages.text != 'Once upon a time'", shelf.hobbit))
        #expect(try !shelf.matches("NONE pages.text == nil", shelf.hobbit))
    }

    @Test func largeIntegersCompareExactly() throws {
        let shelf = try Shelf()
        try shelf.fixture.context.performAndWait { try shelf.tolkien.setValue(Int64(1) << 53, forKey: "remoteID") }
        #expect(try !shelf.matches("remoteID == 9007199254740993", shelf.tolkien))
        #expect(try shelf.matches("remoteID == 9007199254740992 AND remoteID < 9007199254740993", shelf.tolkien))
    }

    @Test func theObjectItselfComparesByIdentity() throws {
        let shelf = try Shelf()
        let predicate = try ObjectPredicate(format: "author == %@", shelf.tolkien.objectID)
        let results = try shelf.fixture.context.performAndWait {
            (try predicate.evaluate(with: shelf.hobbit), try predicate.evaluate(with: shelf.bare))
        }
        #expect(results == (true, false))
        for format in ["tags CONTAINS %@", "%@ IN tags", "ANY tags == %@"] {
            let member = try ObjectPredicate(format: format, shelf.fantasy.objectID)
            let results = try shelf.fixture.context.performAndWait {
                (try member.evaluate(with: shelf.hobbit), try member.evaluate(with: shelf.bare))
            }
            #expect(results == (true, false), "\(format)")
        }
    }

    @Test func anUnknownKeyIsAnError() throws {
        let shelf = try Shelf()
        #expect {
            try shelf.matches("subtitle == 'x'", shelf.hobbit)
        } throws: { error in
            guard case ContextError.store(.unknownProperty(_, "Book", "subtitle", _)) = error else { return false }
            return true
        }
    }

    /// A MATCHES or LIKE without an answer fails the evaluation, as it fails SQL: read as
    /// false, NOT turned it into true.
    @Test func aPatternWithoutAnAnswerIsAnErrorNotFalse() throws {
        let shelf = try Shelf()
        let invalid = StringMatchError(operatorName: "MATCHES", pattern: "(", reason: .invalidPattern, place: "Book.title")
        #expect(throws: ContextError.stringMatching(invalid)) { try shelf.matches("NOT title MATCHES '('", shelf.hobbit) }
        // The lookahead keeps the pattern from the linear-time matcher that answers regular ones.
        let costly = String(repeating: "a?", count: 30) + String(repeating: "a", count: 30) + "(?!b)"
        try shelf.fixture.context.performAndWait { try shelf.hobbit.setValue(String(repeating: "a", count: 30), forKey: "title") }
        let overBudget = StringMatchError(operatorName: "MATCHES", pattern: costly, reason: .budgetExceeded(steps: 5_000_000), place: "Book.title")
        #expect(throws: ContextError.stringMatching(overBudget)) { try shelf.matches("NOT title MATCHES '\(costly)'", shelf.hobbit) }
        let long = String(repeating: "*a", count: 6_000)
        let tooLong = StringMatchError(operatorName: "LIKE", pattern: long, reason: .patternTooLong(limit: 10_000), place: "Book.title")
        #expect(throws: ContextError.stringMatching(tooLong)) { try shelf.matches("NOT title LIKE '\(long)'", shelf.hobbit) }
        // nil matches nothing, and NOT of that holds: as in SQL, where the comparison is 0.
        let untitled = try shelf.fixture.context.performAndWait { try shelf.fixture.context.insert("Book") }
        #expect(try shelf.matches("title MATCHES '.*'", untitled) == false)
        #expect(try shelf.matches("NOT title MATCHES '.*'", untitled))
    }
}
