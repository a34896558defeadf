import Foundation
import Logging
import Synchronization
import Testing
@testable import Strata

/// DKDBManager's clean-up over a context: deleting what matches, with delete rules and
/// reasons, and finding and deleting invalid objects.
@Suite struct CleanupTests {
    /// Collects the lines an activity log writes.
    final class Lines: Sendable {
        private let storage = Mutex<[String]>([])
        var all: [String] { storage.withLock { $0 } }
        func append(_ line: String) { storage.withLock { $0.append(line) } }
    }

    private func activity(_ model: ObjectModel, into lines: Lines) -> EntityActivityLog {
        let logger = Logger(label: "test") { label in LineLogHandler(label: label, level: .verbose) { lines.append($0) } }
        return EntityActivityLog(logger: logger, verboseEntities: model.verboseEntityNames)
    }

    private static func library(_ change: (inout ObjectModel) -> Void = { _ in }) throws -> ObjectModel {
        var model = try ModelLoader.load(Fixtures.exampleModel).currentVersion.model
        change(&model)
        return model
    }

    /// An author with two books (`Dull` rated 0.5 with 2 pages, `Fine` rated 4 with 1 page),
    /// an e-book rated 1, and a tag on every book; saved.
    private func shelf(_ fixture: LibraryFixture) throws {
        let context = fixture.context
        try context.performAndWait {
            let author = try context.insert("Author")
            try author.setValue("Le Guin", forKey: "name")
            let tag = try context.insert("Tag")
            try tag.setValue("classic", forKey: "name")
            for (title, isbn, rating, pages) in [("Dull", "9780000000001", 0.5, 2), ("Fine", "9780000000002", 4.0, 1)] {
                let book = try fixture.book(title, isbn: isbn)
                try book.setValue(rating, forKey: "rating")
                try book.setValue(author, forKey: "author")
                try book.add(tag, toKey: "tags")
                for number in 1...pages {
                    let page = try context.insert("Page")
                    try page.setValue(number, forKey: "number")
                    try book.add(page, toKey: "pages")
                }
            }
            let ebook = try context.insert("EBook")
            try ebook.setValue("Digital", forKey: "title")
            try ebook.setValue("9780000000003", forKey: "isbn")
            try ebook.setValue(1.0, forKey: "rating")
            try ebook.add(tag, toKey: "tags")
            try context.save()
        }
    }

    // MARK: - Deleting what matches

    @Test func deleteFollowsCascadeAndNullifyAndLogsEachDeletionWithItsReason() throws {
        let fixture = try LibraryFixture()
        try shelf(fixture)
        let context = fixture.context, lines = Lines()
        try context.performAndWait {
            let count = try context.delete(
                "Book", where: ObjectPredicate(format: "rating < 2"), reason: "poorly rated", activity: activity(context.model, into: lines))
            #expect(count == 2, "Dull, and the e-book: sub-entities are included")
            #expect(context.deletedObjects.map(\.objectID.entityName).sorted() == ["Book", "EBook", "Page", "Page"])
            let author = try #require(try context.find(.first, "Author").first)
            #expect(try author.objects(forKey: "books").compactMap { $0["title"] as? String } == ["Fine"])
            let tag = try #require(try context.find(.first, "Tag").first)
            #expect(try tag.objects(forKey: "books").count == 1)
            #expect(try fixture.store.rowCountsExcludingSubentities()["Page"] == 3, "nothing is written before the save")
            try context.save()
        }
        #expect(try fixture.store.rowCountsExcludingSubentities() == ["Author": 1, "Book": 1, "EBook": 0, "Page": 1, "Tag": 1])
        #expect(try fixture.store.database.scalar("SELECT COUNT(*) FROM Z_2TAGS") == .integer(1))
        #expect(lines.all.contains(#"info [Book] Deleting Book { isbn: "9780000000001", rating: 0.5, title: "Dull" }: poorly rated"#))
        #expect(lines.all.contains(#"info [EBook] Deleting EBook { isbn: "9780000000003", rating: 1.0, title: "Digital", fileSize: 0, format: "epub" }: poorly rated"#))
        #expect(lines.all.filter { $0.hasPrefix("verbose [Page] Deleting Page { number: ") && $0.hasSuffix(": cascade from <Book p1>") }.count == 2)
        #expect(lines.all.count == 4)
    }

    @Test func deleteAllEmptiesTheEntityAndItsSubEntities() throws {
        let fixture = try LibraryFixture()
        try shelf(fixture)
        let context = fixture.context
        try context.performAndWait {
            _ = try fixture.book("Unsaved", isbn: "9780000000009")
            #expect(try context.deleteAll("Book") == 4, "pending inserts count too")
            #expect(try context.deleteAll("Book") == 0, "deleted objects no longer match")
            #expect(try context.count("Page") == 0)
            try context.save()
        }
        #expect(try fixture.store.rowCountsExcludingSubentities() == ["Author": 1, "Book": 0, "EBook": 0, "Page": 0, "Tag": 1])
    }

    @Test func anUnknownKeyOrEntityIsAnErrorAndDeletesNothing() throws {
        let fixture = try LibraryFixture()
        try shelf(fixture)
        let context = fixture.context
        try context.performAndWait { () throws in
            #expect(throws: PredicateKeyError.self) { try context.delete("Book", where: ObjectPredicate(format: "ratng < 2")) }
            #expect(throws: StoreError.self) { try context.deleteAll("Bok") }
            #expect(!context.hasChanges)
        }
    }

    @Test func aDenyRuleBlocksTheSaveAndARollbackLeavesTheStoreAsItWas() throws {
        let model = try Self.library { model in
            let author = model.entities.firstIndex { $0.name == "Author" }!
            model.entities[author].relationships[0].deleteRule = .deny
        }
        let fixture = try LibraryFixture(model: model)
        try shelf(fixture)
        let before = try fixture.store.rowCountsExcludingSubentities()
        let context = fixture.context
        try context.performAndWait { () throws in
            #expect(try context.delete("Author", where: ObjectPredicate(format: "name == 'Le Guin'"), reason: "gone") == 1)
            let denied = #expect(throws: ContextError.self) { try context.validatePendingChanges() }
            guard case .deleteDenied(let object, "books", 2)? = denied else { Issue.record("expected a Deny error: \(String(describing: denied))"); return }
            #expect(object.entityName == "Author")
            #expect(throws: ContextError.self) { try context.save() }
            context.rollback()
            #expect(!context.hasChanges)
            #expect(try context.count("Author") == 1)
        }
        #expect(try fixture.store.rowCountsExcludingSubentities() == before)
        let other = try fixture.otherContext()
        try other.performAndWait { () throws in
            #expect(try other.find(.first, "Author").first?["name"] as? String == "Le Guin")
            #expect(try other.find(.first, "Author").first?.objects(forKey: "books").count == 2)
        }
    }

    // MARK: - Invalid objects

    @Test func invalidObjectsBreakTheModelsRulesOrMatchStrataInvalidIf() throws {
        let model = try Self.library { model in
            let book = model.entities.firstIndex { $0.name == "Book" }!
            model.entities[book].userInfo["strata.invalidIf"] = "rating < 1"
        }
        let fixture = try LibraryFixture(model: model)
        try shelf(fixture)
        // Rows another program wrote, which a save would have refused.
        try fixture.store.database.execute("UPDATE ZBOOK SET ZTITLE = NULL WHERE ZISBN = '9780000000001'")
        try fixture.store.database.execute("UPDATE ZBOOK SET ZRATING = 9 WHERE ZISBN = '9780000000002'")
        let context = try fixture.otherContext()
        try context.performAndWait {
            let found = try context.invalidObjects(["Book", "EBook", "Author"])
            #expect(found.map { "\($0.object.objectID): \($0.reason)" } == [
                "<Book p1>: title is required; matches strata.invalidIf rating < 1",
                "<Book p2>: rating value 9 is above the maximum 5",
            ])
            let ebook = try #require(try context.find(.first, "EBook").first)
            #expect(try context.invalidReason(of: ebook) == nil, "strata.invalidIf is the entity's own: EBook has none")
            #expect(!context.hasChanges)
        }
    }

    @Test func aBadInvalidIfIsAnErrorNamingTheEntity() throws {
        let model = try Self.library { model in
            let ebook = model.entities.firstIndex { $0.name == "EBook" }!
            model.entities[ebook].userInfo["strata.invalidIf"] = "format ==="
        }
        let fixture = try LibraryFixture(model: model)
        try fixture.context.performAndWait { () throws in
            let error = #expect(throws: InvalidIfError.self) { try fixture.context.invalidObjects(["Book"]) }
            #expect(error?.entity == "EBook" && error?.syntax.predicate == "format ===", "\(String(describing: error))")
            #expect(error?.description.hasPrefix("entity EBook, userInfo strata.invalidIf: ") == true, "\(String(describing: error))")
            #expect { try fixture.context.invalidObjects(["Bok"]) } throws: { error in
                guard case ContextError.store(.unknownEntity(fixture.store.path, "Bok", let known)) = error else { return false }
                return known.contains("Book")
            }
        }
    }

    @Test func deleteInvalidObjectsCascadesLogsAndSavesInOneGo() throws {
        let fixture = try LibraryFixture()
        try shelf(fixture)
        try fixture.store.database.execute("UPDATE ZBOOK SET ZTITLE = NULL WHERE ZISBN = '9780000000001'")
        let context = try fixture.otherContext(), lines = Lines()
        try context.performAndWait {
            let deleted = try context.deleteInvalidObjects(["Book", "Page"], activity: activity(context.model, into: lines))
            #expect(deleted.map(\.reason) == ["title is required"])
            #expect(context.deletedObjects.map(\.objectID.entityName).sorted() == ["Book", "Page", "Page"])
            try context.save()
            #expect(try context.invalidObjects(context.model.entities.map(\.name)).isEmpty)
        }
        #expect(try fixture.store.rowCountsExcludingSubentities() == ["Author": 1, "Book": 1, "EBook": 1, "Page": 1, "Tag": 1])
        #expect(lines.all.first == #"info [Book] Deleting invalid Book { isbn: "9780000000001", rating: 0.5 }: title is required"#)
    }

    @Test func anObjectANullifyLeavesInvalidStopsTheSave() throws {
        var model = try Self.library()
        let book = model.entities.firstIndex { $0.name == "Book" }!
        let pages = model.entities[book].relationships.firstIndex { $0.name == "pages" }!
        model.entities[book].relationships[pages].deleteRule = .nullify
        let fixture = try LibraryFixture(model: model)
        try shelf(fixture)
        let context = fixture.context
        try context.performAndWait {
            try context.delete("Book", where: ObjectPredicate(format: "title == 'Fine'"))
            let failure = #expect(throws: ContextError.self) { try context.validatePendingChanges() }
            guard case .validation(let failures)? = failure else { Issue.record("expected a validation error"); return }
            #expect(failures.map { "\($0.object.entityName).\($0.property ?? "")" } == ["Page.book"])
            context.rollback()
        }
        #expect(try fixture.store.rowCountsExcludingSubentities()["Book"] == 2)
    }
}
