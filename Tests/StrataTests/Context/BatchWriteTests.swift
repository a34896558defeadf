import Foundation
import Testing
@testable import Strata

/// `BatchUpdateRequest` and `BatchInsertRequest`: rows written in SQL, keys and versions kept
/// as saves keep them, contexts told, bad input refused with nothing written.
@Suite struct BatchWriteTests {
    /// Four books (the last an e-book) rated 1 to 4.
    private func seeded() throws -> (LibraryFixture, [ObjectID]) {
        let fixture = try LibraryFixture()
        let context = fixture.context
        let ids = try context.performAndWait {
            let books = try (1...4).map { number in
                let book = try context.insert(number == 4 ? "EBook" : "Book")
                try book.setValue("B\(number)", forKey: "title")
                try book.setValue(String(format: "978%010d", number), forKey: "isbn")
                try book.setValue(Double(number), forKey: "rating")
                return book
            }
            try context.save()
            return books.map(\.objectID)
        }
        return (fixture, ids)
    }

    private func rows(_ fixture: LibraryFixture) throws -> [[DatabaseValue]] {
        try fixture.store.database.rows("SELECT Z_PK, Z_ENT, Z_OPT, ZTITLE, ZRATING FROM ZBOOK ORDER BY Z_PK")
    }

    private func failure(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch {
            return String(describing: error)
        }
    }

    // MARK: - Update

    @Test func anUpdateSetsTheMatchingRowsMovesTheirVersionAndRefreshesHeldObjects() throws {
        let (fixture, ids) = try seeded()
        let context = fixture.context
        try context.performAndWait {
            let held = context.object(with: ids[3])
            #expect(held["title"] as? String == "B4")
            var request = BatchUpdateRequest(entityName: "Book", predicate: try ObjectPredicate(format: "rating >= 3"),
                                             propertiesToUpdate: ["title": .string("Good"), "published": nil])
            request.returnsObjectIDs = true
            let result = try context.execute(request)
            #expect(result.count == 2 && Set(result.objectIDs) == [ids[2], ids[3]])
            #expect(held["title"] as? String == "Good")
        }
        #expect(try rows(fixture).map { [$0[2], $0[3]] } == [
            [.integer(1), .text("B1")], [.integer(1), .text("B2")], [.integer(2), .text("Good")], [.integer(2), .text("Good")],
        ])
    }

    @Test func anUnsavedChangeToABatchUpdatedObjectConflictsAtSave() throws {
        let (fixture, ids) = try seeded()
        let context = fixture.context
        let error = context.performAndWait { () -> String? in
            failure {
                try context.object(with: ids[0]).setValue(5.0, forKey: "rating")
                let other = try fixture.otherContext()
                _ = try other.performAndWait { try other.execute(BatchUpdateRequest(entityName: "Book", propertiesToUpdate: ["title": .string("X")])) }
                try context.save()
            }
        }
        #expect(error?.contains("was changed by another context or process") == true, "\(error ?? "no error")")
    }

    @Test func aSortedAndLimitedUpdateChangesOnlyTheFirstObjects() throws {
        let (fixture, _) = try seeded()
        var fetch = FetchRequest(entityName: "Book", sortDescriptors: [ObjectSortDescriptor("rating", ascending: false)])
        fetch.fetchLimit = 1
        try fixture.context.performAndWait { () throws in
            #expect(try fixture.context.execute(BatchUpdateRequest(fetchRequest: fetch, propertiesToUpdate: ["title": .string("Top")])).count == 1)
        }
        #expect(try rows(fixture).map { $0[3] } == [.text("B1"), .text("B2"), .text("B3"), .text("Top")])
    }

    @Test(arguments: [
        (["nope": AttributeValue?.some(.string("x"))], "Book batch update: Book has no stored attribute 'nope'"),
        (["rating": .some(.string("high"))], "Book batch update: rating: \"high\" is not a Double value"),
        (["title": nil], "Book batch update: title: is required"),
    ])
    func aBadUpdateIsRefusedWithNothingChanged(values: [String: AttributeValue?], message: String) throws {
        let (fixture, _) = try seeded()
        let before = try rows(fixture)
        let error = fixture.context.performAndWait { failure { try fixture.context.execute(BatchUpdateRequest(entityName: "Book", propertiesToUpdate: values)) } }
        #expect(error == message)
        #expect(try rows(fixture) == before)
    }

    // MARK: - Insert

    @Test func anInsertTakesKeysFromZPrimaryKeyAndTheModelsDefaults() throws {
        let (fixture, _) = try seeded()
        let context = fixture.context
        try context.performAndWait {
            var request = BatchInsertRequest(entityName: "EBook", objects: [
                ["title": .string("E1"), "isbn": .string("9780000000011")],
                ["title": .string("E2"), "isbn": .string("9780000000012"), "format": .string("pdf")],
            ])
            request.returnsObjectIDs = true
            let result = try context.execute(request)
            #expect(result.objectIDs.map(\.primaryKey) == [5, 6] && result.objectIDs.allSatisfy { $0.entityName == "EBook" })
            let first = context.object(with: result.objectIDs[0])
            #expect(first["format"] as? String == "epub" && first["rating"] as? Double == 0)
            #expect(context.object(with: result.objectIDs[1])["format"] as? String == "pdf")
            // A save after it takes the next key.
            let next = try fixture.book("After", isbn: "9780000000013")
            try context.save()
            #expect(next.objectID.primaryKey == 7)
        }
        #expect(try fixture.store.database.scalar("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Book'") == .integer(7))
    }

    @Test(arguments: [
        ([["title": AttributeValue?.some(.string("T")), "isbn": .some(.string("9780000000020"))], ["title": .some(.string("U"))]],
         "Book object 2: isbn: is required"),
        ([["title": AttributeValue?.some(.string("T")), "isbn": .some(.string("9780000000020")), "pages": .some(.integer(1))]],
         "Book object 1: Book has no stored attribute 'pages'"),
        ([["title": AttributeValue?.some(.integer(7)), "isbn": .some(.string("9780000000020"))]],
         "Book object 1: title: 7 is not a String value"),
    ])
    func aBadInsertIsRefusedWithNothingInserted(objects: [[String: AttributeValue?]], message: String) throws {
        let (fixture, _) = try seeded()
        let before = try rows(fixture)
        let error = fixture.context.performAndWait { failure { try fixture.context.execute(BatchInsertRequest(entityName: "Book", objects: objects)) } }
        #expect(error == message)
        #expect(try rows(fixture) == before)
        #expect(try fixture.store.database.scalar("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Book'") == .integer(4))
    }

    @Test func anInsertBreakingAUniquenessConstraintInsertsNothing() throws {
        let (fixture, _) = try seeded()
        let before = try rows(fixture)
        let error = fixture.context.performAndWait {
            failure {
                try fixture.context.execute(BatchInsertRequest(entityName: "Book", objects: [
                    ["title": .string("New"), "isbn": .string("9780000000099")],
                    ["title": .string("Clash"), "isbn": .string("9780000000001")],
                ]))
            }
        }
        #expect(error?.contains("UNIQUE constraint failed") == true, "\(error ?? "no error")")
        #expect(try rows(fixture) == before)
    }
}
