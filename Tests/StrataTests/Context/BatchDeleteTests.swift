import Foundation
import Testing
@testable import Strata

/// `BatchDeleteRequest`: deletions run as SQL must leave the store as deleting the objects in a
/// context and saving leaves it, delete rules and versions included.
@Suite struct BatchDeleteTests {
    /// Three authors with two books each (the second an e-book), three pages a book, and two
    /// tags shared among the books; the same keys every time.
    private func seeded(model: ObjectModel? = nil) throws -> LibraryFixture {
        let fixture = try LibraryFixture(model: model)
        let context = fixture.context
        try context.performAndWait {
            let tags = try ["fantasy", "classic"].map { name in
                let tag = try context.insert("Tag")
                try tag.setValue(name, forKey: "name")
                return tag
            }
            for authorNumber in 1...3 {
                let author = try context.insert("Author")
                try author.setValue("A\(authorNumber)", forKey: "name")
                try author.setValue(authorNumber, forKey: "remoteID")
                for bookNumber in 1...2 {
                    let book = try context.insert(bookNumber == 2 ? "EBook" : "Book")
                    try book.setValue("B\(authorNumber).\(bookNumber)", forKey: "title")
                    try book.setValue(String(format: "978%010d", authorNumber * 10 + bookNumber), forKey: "isbn")
                    try book.setValue(Double(authorNumber + bookNumber) / 2, forKey: "rating")
                    try book.setValue(author, forKey: "author")
                    try book.setValue(authorNumber == 3 ? [tags[0]] : tags, forKey: "tags")
                    for pageNumber in 1...3 {
                        let page = try context.insert("Page")
                        try page.setValue(pageNumber, forKey: "number")
                        try book.add(page, toKey: "pages")
                    }
                }
            }
            try context.save()
            context.reset()
        }
        return fixture
    }

    /// Every table's rows, sorted, without the positions of ordered to-manys (a save renumbers
    /// them from 1; SQL keeps the order with gaps).
    private func contents(_ fixture: LibraryFixture) throws -> [String: [[DatabaseValue]]] {
        let database = fixture.store.database
        var contents: [String: [[DatabaseValue]]] = [:]
        for table in try database.rows("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name != 'Z_METADATA'") {
            let name = table[0].stringValue ?? ""
            let columns = try database.rows("SELECT name FROM pragma_table_info(?)", [.text(name)]).compactMap { $0[0].stringValue }
                .filter { !$0.hasPrefix("Z_FOK") }
            contents[name] = try database.rows("SELECT \(columns.joined(separator: ", ")) FROM \(name) ORDER BY \(columns.joined(separator: ", "))")
        }
        return contents
    }

    @Test(arguments: [
        ("Author", "name == 'A1'"),   // Cascade two levels down; the books' tags lose members
        ("Tag", "name == 'fantasy'"),  // Nullify of a many-to-many
        ("Page", "number == 1"),       // Nullify into an ordered to-many
        ("Book", "rating < 2"),        // Nullify into the author, Cascade to pages, sub-entity rows too
        ("EBook", "TRUEPREDICATE"),    // a sub-entity alone
    ])
    func aBatchDeleteLeavesTheStoreAsDeletingTheObjectsAndSaving(entity: String, predicate: String) throws {
        let request = FetchRequest(entityName: entity, predicate: try ObjectPredicate(format: predicate))
        let byObjects = try seeded(), bySQL = try seeded()
        let deletedByObjects = try byObjects.context.performAndWait {
            try byObjects.context.delete(matching: request)
            let count = byObjects.context.deletedObjects.count
            try byObjects.context.save()
            return count
        }
        let result = try bySQL.context.performAndWait { try bySQL.context.execute(BatchDeleteRequest(fetchRequest: request)) }
        #expect(result.count == deletedByObjects)
        #expect(try contents(bySQL) == contents(byObjects))
    }

    @Test func theResultCountsMatchedAndCascadedObjectsAndListsTheirIDs() throws {
        let fixture = try seeded()
        var request = BatchDeleteRequest(entityName: "Author", predicate: try ObjectPredicate(format: "name IN {'A1', 'A2'}"))
        request.resultType = .objectIDs
        let result = try fixture.context.performAndWait { try fixture.context.execute(request) }
        #expect(result.matchedCounts == ["Author": 2])
        #expect(result.cascadedCounts == ["Book": 2, "EBook": 2, "Page": 12])
        #expect(result.deletedObjectIDs.count == 18)
        #expect(Set(result.deletedObjectIDs.map(\.entityName)) == ["Author", "Book", "EBook", "Page"])
        #expect(try fixture.store.rowCountsExcludingSubentities() == ["Author": 1, "Book": 1, "EBook": 1, "Page": 6, "Tag": 2])
    }

    @Test func aSortedAndLimitedRequestDeletesOnlyTheFirstObjects() throws {
        let fixture = try seeded()
        var fetch = FetchRequest(entityName: "Book", sortDescriptors: [ObjectSortDescriptor("title", ascending: false)])
        fetch.fetchLimit = 2
        let result = try fixture.context.performAndWait { try fixture.context.execute(BatchDeleteRequest(fetchRequest: fetch)) }
        #expect(result.matchedCounts.values.reduce(0, +) == 2)
        let left = try fixture.store.database.rows("SELECT ZTITLE FROM ZBOOK ORDER BY ZTITLE").compactMap { $0[0].stringValue }
        #expect(left == ["B1.1", "B1.2", "B2.1", "B2.2"])
    }

    @Test func aDenyRuleThatStillHoldsAnObjectRefusesTheWholeDeletion() throws {
        let fixture = try seeded(model: try variant { $0.replacingOccurrences(of: #"deletionRule="Nullify" destinationEntity="Tag""#, with: #"deletionRule="Deny" destinationEntity="Tag""#) })
        let before = try contents(fixture)
        let error = fixture.context.performAndWait { () -> Error? in
            do {
                try fixture.context.execute(BatchDeleteRequest(entityName: "Author"))
                return nil
            } catch {
                return error
            }
        }
        guard case .deleteDenied(let object, "tags", 2)? = error as? ContextError else {
            Issue.record("expected a Deny refusal, got \(String(describing: error))")
            return
        }
        #expect(object.entityName == "Book" && object.primaryKey == 1)
        #expect(try contents(fixture) == before)
    }

    @Test func aNullifyThatWouldEmptyARequiredToOneRefusesTheWholeDeletion() throws {
        let fixture = try seeded(model: try variant { $0.replacingOccurrences(of: #"deletionRule="Cascade" ordered="YES""#, with: #"deletionRule="Nullify" ordered="YES""#) })
        let before = try contents(fixture)
        let error = fixture.context.performAndWait { () -> Error? in
            do {
                try fixture.context.execute(BatchDeleteRequest(entityName: "Book", predicate: try ObjectPredicate(format: "title == 'B2.1'")))
                return nil
            } catch {
                return error
            }
        }
        guard case .validation(let failures)? = error as? ContextError else {
            Issue.record("expected a validation refusal, got \(String(describing: error))")
            return
        }
        #expect(failures.map(\.description) == ["<Page p7> book: is required"])
        #expect(try contents(fixture) == before)
    }

    @Test func theContextAndThoseMergingItsSavesForgetDeletedObjectsAndRereadChangedOnes() throws {
        let fixture = try seeded()
        let context = fixture.context
        let main = ObjectContext(parent: context, name: "main")
        main.automaticallyMergesChangesFromParent = true
        let (author, book, tag) = try context.performAndWait {
            let tag = try #require(try context.fetch(FetchRequest(entityName: "Tag", predicate: try ObjectPredicate(format: "name == 'classic'"))).first)
            #expect(try tag.objects(forKey: "books").count == 4)
            let book = try #require(try tag.objects(forKey: "books").first { $0["title"] as? String == "B1.1" })
            return (try #require(book.value(forKey: "author") as? ManagedObject).objectID, book.objectID, tag.objectID)
        }
        try main.performAndWait { () throws in #expect(try main.existingObject(with: tag).objects(forKey: "books").count == 4) }
        try context.performAndWait {
            try context.execute(BatchDeleteRequest(entityName: "Book", predicate: try ObjectPredicate(format: "title == 'B1.1'")))
            #expect(context.registeredObjects.allSatisfy { $0.objectID != book })
            #expect(try context.existingObject(with: tag).objects(forKey: "books").count == 3)
            #expect(try context.existingObject(with: author).objects(forKey: "books").count == 1)
            #expect(!context.hasChanges)
        }
        // The merge reached the child on its queue; a block queued after it sees it.
        try main.performAndWait { () throws in #expect(try main.existingObject(with: tag).objects(forKey: "books").count == 3) }
    }

    @Test func anEntityWithoutRelationshipsIsDeletedInOneStatementWithTheSameResult() throws {
        var event = EntityDescription(name: "Event")
        event.attributes = [AttributeDescription(name: "day", type: .integer64)]
        let fixture = try LibraryFixture(model: ObjectModel(entities: [event]))
        let context = fixture.context
        try context.performAndWait {
            for day in 1...10 { try context.insert("Event").setValue(day, forKey: "day") }
            try context.save()
            let held = try #require(try context.fetch(FetchRequest(entityName: "Event", predicate: try ObjectPredicate(format: "day == 2"))).first)
            var request = BatchDeleteRequest(entityName: "Event", predicate: try ObjectPredicate(format: "day <= 3"))
            request.resultType = .objectIDs
            let result = try context.execute(request)
            #expect(result.matchedCounts == ["Event": 3] && result.cascadedCounts.isEmpty)
            #expect(result.deletedObjectIDs.map(\.primaryKey) == [1, 2, 3])
            #expect(held.managedObjectContext == nil)
            var last = FetchRequest(entityName: "Event", sortDescriptors: [ObjectSortDescriptor("day", ascending: false)])
            last.fetchLimit = 2
            #expect(try context.execute(BatchDeleteRequest(fetchRequest: last)).count == 2)
        }
        let days = try fixture.store.database.rows("SELECT ZDAY FROM ZEVENT ORDER BY ZDAY").compactMap { $0[0].int64Value }
        #expect(days == [4, 5, 6, 7, 8])
    }

    @Test func aChildContextCannotRunABatchDelete() throws {
        let fixture = try seeded()
        let child = ObjectContext(parent: fixture.context)
        #expect(throws: FetchRequestError.self) {
            try child.performAndWait { try child.execute(BatchDeleteRequest(entityName: "Tag")) }
        }
        #expect(try fixture.store.rowCountsExcludingSubentities()["Tag"] == 2)
    }

    /// The Library model with `replace` applied to its contents.
    private func variant(_ replace: (String) -> String) throws -> ObjectModel {
        let file = Fixtures.exampleModel.appendingPathComponent("Library.xcdatamodel/contents")
        let original = try String(contentsOf: file, encoding: .utf8)
        let changed = replace(original)
        #expect(changed != original)
        return try XcodeModelReader.read(Data(changed.utf8), path: file.path)
    }
}
