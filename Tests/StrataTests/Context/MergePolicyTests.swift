import Foundation
import Testing
@testable import Strata

/// A conflict between two connections (as two processes), resolved by each merge policy.
@Suite struct MergePolicyTests {
    struct Outcome: Equatable {
        var title: String?
        var rating: Double?
        var isbn: String?
    }

    /// Book {title T0, rating 1, isbn 9780000000001}. This context changes title and isbn;
    /// another connection changes title and rating and saves first; then this context saves.
    private func resolve(with policy: MergePolicy) throws -> (store: Outcome, memory: Outcome, error: ContextError?) {
        let fixture = try LibraryFixture()
        let mine = fixture.context
        mine.mergePolicy = policy
        let id = try mine.performAndWait {
            let book = try fixture.book("T0", isbn: "9780000000001")
            try book.setValue(1.0, forKey: "rating")
            try mine.save()
            try book.setValue("mine", forKey: "title")
            try book.setValue("9780000000002", forKey: "isbn")
            return book.objectID
        }
        let theirs = try fixture.otherContext()
        try theirs.performAndWait {
            let book = try theirs.existingObject(with: id)
            try book.setValue("theirs", forKey: "title")
            try book.setValue(3.0, forKey: "rating")
            try theirs.save()
        }
        var failure: ContextError?
        try mine.performAndWait {
            do { try mine.save() } catch let error as ContextError { failure = error }
        }
        let row = try #require(try fixture.store.row("Book", primaryKey: 1))
        let stored = Outcome(title: row.values["title"]?.stringValue, rating: row.values["rating"]?.doubleValue, isbn: row.values["isbn"]?.stringValue)
        let memory = mine.performAndWait {
            let book = mine.object(with: id)
            return Outcome(title: book["title"] as? String, rating: book["rating"] as? Double, isbn: book["isbn"] as? String)
        }
        return (stored, memory, failure)
    }

    @Test func errorFailsAndWritesNothing() throws {
        let (store, _, error) = try resolve(with: .error)
        guard case .conflict(let object, let expected, let actual)? = error else {
            Issue.record("expected a conflict, got \(String(describing: error))")
            return
        }
        #expect(object.entityName == "Book" && object.primaryKey == 1 && expected == 1 && actual == 2)
        #expect(store == Outcome(title: "theirs", rating: 3, isbn: "9780000000001"))
    }

    @Test func objectTrumpKeepsOurChangesAndTheirOthers() throws {
        let (store, memory, error) = try resolve(with: .mergeByPropertyObjectTrump)
        #expect(error == nil)
        #expect(store == Outcome(title: "mine", rating: 3, isbn: "9780000000002"))
        #expect(memory == store)
    }

    @Test func storeTrumpKeepsTheirChangesAndOurOthers() throws {
        let (store, memory, error) = try resolve(with: .mergeByPropertyStoreTrump)
        #expect(error == nil)
        #expect(store == Outcome(title: "theirs", rating: 3, isbn: "9780000000002"))
        #expect(memory == store)
    }

    @Test func overwriteWritesOurWholeObject() throws {
        let (store, memory, error) = try resolve(with: .overwrite)
        #expect(error == nil)
        #expect(store == Outcome(title: "mine", rating: 1, isbn: "9780000000002"))
        #expect(memory == store)
    }

    @Test func rollbackDropsOurChanges() throws {
        let (store, memory, error) = try resolve(with: .rollback)
        #expect(error == nil)
        #expect(store == Outcome(title: "theirs", rating: 3, isbn: "9780000000001"))
        #expect(memory == store)
    }
}
