import Foundation
import Testing
@testable import Strata
import StrataTestSupport

/// The Library example in a fresh store, and a context on it.
struct LibraryFixture {
    let folder: TemporaryFolder
    let store: PersistentStore
    let context: ObjectContext

    init(model: ObjectModel? = nil) throws {
        folder = try TemporaryFolder()
        let model = try model ?? ModelLoader.load(Fixtures.exampleModel).currentVersion.model
        store = try PersistentStore.create(at: folder.path("Library.sqlite"), model: model)
        context = ObjectContext(store: store, name: "test")
    }

    /// A second connection and context on the same file, as another process would have.
    func otherContext() throws -> ObjectContext {
        ObjectContext(store: try PersistentStore.open(at: store.path, model: store.model), name: "other")
    }

    func book(_ title: String, isbn: String) throws -> ManagedObject {
        let book = try context.insert("Book")
        try book.setValue(title, forKey: "title")
        try book.setValue(isbn, forKey: "isbn")
        return book
    }
}

@Suite struct ObjectContextTests {
    @Test func insertSaveAndReadBackInAnotherContext() throws {
        let fixture = try LibraryFixture()
        let context = fixture.context
        let ids = try context.performAndWait {
            let author = try context.insert("Author")
            try author.setValue("Tolkien", forKey: "name")
            try author.setValue(Date(timeIntervalSince1970: -2_461_449_600), forKey: "born")
            let hobbit = try fixture.book("The Hobbit", isbn: "9780261102217")
            let lotr = try fixture.book("The Lord of the Rings", isbn: "9780261103252")
            try hobbit.setValue(author, forKey: "author")
            try author.add(lotr, toKey: "books")
            #expect(try (lotr.value(forKey: "author") as? ManagedObject) === author)
            let pages = try (1...3).map { number in
                let page = try context.insert("Page")
                try page.setValue(number, forKey: "number")
                return page
            }
            try lotr.setValue(Array(pages.reversed()), forKey: "pages")
            let fantasy = try context.insert("Tag")
            try fantasy.setValue("fantasy", forKey: "name")
            try hobbit.add(fantasy, toKey: "tags")
            try lotr.add(fantasy, toKey: "tags")
            #expect(author.objectID.isTemporary)
            try context.save()
            #expect(!author.objectID.isTemporary && !context.hasChanges)
            return (author.objectID, lotr.objectID, fantasy.objectID)
        }
        #expect(ids.0.uriRepresentation().absoluteString == "x-coredata://\(fixture.store.metadata.uuid)/Author/p1")
        #expect(ObjectID(uri: ids.0.uriRepresentation()) == ids.0)

        let other = try fixture.otherContext()
        try other.performAndWait {
            let lotr = other.object(with: ids.1)
            #expect(lotr.isFault)
            let author = try other.existingObject(with: ids.0)
            #expect(author["name"] as? String == "Tolkien")
            #expect(author["born"] as? Date == Date(timeIntervalSince1970: -2_461_449_600))
            #expect(try author.objects(forKey: "books").compactMap { $0["title"] as? String }.sorted() == ["The Hobbit", "The Lord of the Rings"])
            #expect(!lotr.isFault)
            #expect(try lotr.objects(forKey: "pages").map { $0["number"] as? Int64 } == [3, 2, 1])
            #expect(lotr["author.name"] as? String == "Tolkien")
            #expect(try other.object(with: ids.2).objects(forKey: "books").count == 2)
            #expect(other.object(with: ids.0) === author)
        }
    }

    @Test func relationshipsKeepTheirInverseInStep() throws {
        let fixture = try LibraryFixture()
        let context = fixture.context
        try context.performAndWait {
            let a = try context.insert("Author"), b = try context.insert("Author")
            let book = try fixture.book("B", isbn: "9780000000001")
            try book.setValue(a, forKey: "author")
            try book.setValue(b, forKey: "author")
            #expect(try a.objects(forKey: "books").isEmpty)
            #expect(try b.objects(forKey: "books").map(\.objectID) == [book.objectID])
            try b.remove(book, fromKey: "books")
            #expect(try book.value(forKey: "author") == nil)
            let tag = try context.insert("Tag")
            try tag.add(book, toKey: "books")
            #expect(try book.objects(forKey: "tags").map(\.objectID) == [tag.objectID])
            try book.setValue([], forKey: "tags")
            #expect(try tag.objects(forKey: "books").isEmpty)
        }
    }

    @Test func oneToOneMovesFromItsPreviousPartner() throws {
        var person = EntityDescription(name: "Person")
        person.attributes = [AttributeDescription(name: "name", type: .string)]
        var passport = EntityDescription(name: "Passport")
        var holder = RelationshipDescription(name: "holder", destination: "Person")
        holder.inverseName = "passport"
        passport.relationships = [holder]
        var owned = RelationshipDescription(name: "passport", destination: "Passport")
        owned.inverseName = "holder"
        person.relationships = [owned]
        let fixture = try LibraryFixture(model: ObjectModel(entities: [passport, person]))
        let context = fixture.context
        try context.performAndWait {
            let ann = try context.insert("Person"), bob = try context.insert("Person"), document = try context.insert("Passport")
            try document.setValue(ann, forKey: "holder")
            #expect((ann["passport"] as? ManagedObject) === document)
            try bob.setValue(document, forKey: "passport")
            #expect(ann["passport"] == nil)
            #expect((document["holder"] as? ManagedObject) === bob)
        }
    }

    @Test func deleteRulesCascadeThroughChainsAndNullify() throws {
        let fixture = try LibraryFixture()
        let context = fixture.context
        let (authorID, tagID) = try context.performAndWait {
            let author = try context.insert("Author")
            try author.setValue("A", forKey: "name")
            let book = try fixture.book("B", isbn: "9780000000001")
            try book.setValue(author, forKey: "author")
            let page = try context.insert("Page")
            try book.add(page, toKey: "pages")
            let tag = try context.insert("Tag")
            try tag.setValue("t", forKey: "name")
            try book.add(tag, toKey: "tags")
            try context.save()
            return (author.objectID, tag.objectID)
        }
        try context.performAndWait {
            try context.delete(context.object(with: authorID))
            #expect(context.deletedObjects.map(\.objectID.entityName).sorted() == ["Author", "Book", "Page"])
            #expect(try context.object(with: tagID).objects(forKey: "books").isEmpty)
            try context.save()
        }
        #expect(try fixture.store.rowCountsExcludingSubentities() == ["Author": 0, "Book": 0, "EBook": 0, "Page": 0, "Tag": 1])
        #expect(try fixture.store.database.scalar("SELECT COUNT(*) FROM Z_2TAGS") == .integer(0))
    }

    @Test func denyStopsTheSaveNamingObjectAndRelationship() throws {
        var library = try ModelLoader.load(Fixtures.exampleModel).currentVersion.model
        let authorIndex = library.entities.firstIndex { $0.name == "Author" }!
        library.entities[authorIndex].relationships[0].deleteRule = .deny
        let fixture = try LibraryFixture(model: library)
        let context = fixture.context
        try context.performAndWait {
            let author = try context.insert("Author")
            try author.setValue("A", forKey: "name")
            let book = try fixture.book("B", isbn: "9780000000001")
            try book.setValue(author, forKey: "author")
            try context.save()
            try context.delete(author)
            #expect { try context.save() } throws: { error in
                (error as? ContextError) == .deleteDenied(object: author.objectID, relationship: "books", count: 1)
            }
            context.rollback()
            #expect(!author.isDeleted && !context.hasChanges)
        }
        #expect(try fixture.store.rowCountsExcludingSubentities()["Author"] == 1)
    }

    @Test func validationListsEveryFailingObjectAndProperty() throws {
        let fixture = try LibraryFixture()
        let context = fixture.context
        try context.performAndWait {
            let book = try context.insert("Book")
            try book.setValue("not-an-isbn", forKey: "isbn")
            try book.setValue(7.5, forKey: "rating")
            let author = try context.insert("Author")
            try author.setValue(String(repeating: "x", count: 201), forKey: "name")
            _ = try context.insert("Page")
            #expect {
                try context.save()
            } throws: { error in
                guard case .validation(let failures) = error as? ContextError else { return false }
                let reasons = Set(failures.map { "\($0.object.entityName).\($0.property ?? ""): \($0.reason)" })
                return reasons == [
                    "Book.title: is required", "Book.isbn: \"not-an-isbn\" does not match [0-9]{9}[0-9X]|[0-9]{13}",
                    "Book.rating: value 7.5 is above the maximum 5", "Author.name: length 201 is above the maximum 200",
                    "Page.book: is required",
                ]
            }
        }
        #expect(try fixture.store.rowCountsExcludingSubentities().values.allSatisfy { $0 == 0 })
    }

    @Test func wrongTypesAndUnknownKeysAreErrorsNamingThem() throws {
        let fixture = try LibraryFixture()
        try fixture.context.performAndWait {
            let book = try fixture.context.insert("Book")
            #expect(throws: ContextError.wrongType(entity: "Book", property: "rating", value: "String high", expected: "a Double value")) {
                try book.setValue("high", forKey: "rating")
            }
            #expect { try book.setValue("x", forKey: "titel") } throws: { error in
                guard case ContextError.store(.unknownProperty(_, "Book", "titel", let known)) = error else { return false }
                return known.contains("title") && "\(error)".contains("has no property 'titel'; did you mean 'title'?")
            }
            #expect(throws: ContextError.self) { try book.setValue(70_000, forKey: "pages") }
            let page = try fixture.context.insert("Page")
            #expect(throws: ContextError.self) { try page.setValue(Int64(Int32.max) + 1, forKey: "number") }
        }
    }

    @Test func rollbackResetAndChangeTracking() throws {
        let fixture = try LibraryFixture()
        let context = fixture.context
        try context.performAndWait {
            let tag = try context.insert("Tag")
            try tag.setValue("kept", forKey: "name")
            try context.save()
            try tag.setValue("changed", forKey: "name")
            let extra = try context.insert("Tag")
            #expect(context.updatedObjects.map(\.objectID) == [tag.objectID])
            #expect(context.insertedObjects.map(\.objectID) == [extra.objectID])
            #expect(tag.changedKeys == ["name"])
            context.rollback()
            #expect(tag["name"] as? String == "kept")
            #expect(!context.hasChanges && context.registeredObjects.count == 1)
            let id = tag.objectID
            context.reset()
            #expect(context.registeredObjects.isEmpty)
            #expect(try context.existingObject(with: id)["name"] as? String == "kept")
        }
    }

    /// The inserted objects are listed in the order of insertion, each once, through deletes,
    /// savepoints, rollbacks and saves; `isInserted` follows them.
    @Test func insertedObjectsKeepTheirOrderThroughDeletesSavepointsAndRollbacks() throws {
        let fixture = try LibraryFixture()
        let context = fixture.context
        try context.performAndWait {
            let tags = try (0..<4).map { number in
                let tag = try context.insert("Tag")
                try tag.setValue("t\(number)", forKey: "name")
                return tag
            }
            let names = { context.insertedObjects.map { $0["name"] as? String } }
            try context.delete(tags[1])
            #expect(names() == ["t0", "t2", "t3"])
            #expect(!tags[1].isInserted && tags[1].isDeleted == false && tags[2].isInserted)

            let savepoint = context.savepoint()
            try context.delete(tags[3])
            let later = try context.insert("Tag")
            try later.setValue("t4", forKey: "name")
            #expect(names() == ["t0", "t2", "t4"])
            context.rollback(to: savepoint)
            #expect(names() == ["t0", "t2", "t3"], "the savepoint's inserted objects come back, once each and in order")
            #expect(tags[3].isInserted && !later.isInserted)

            try context.save()
            #expect(context.insertedObjects.isEmpty && !tags[0].isInserted && !context.hasChanges)
            let next = try context.insert("Tag")
            #expect(context.insertedObjects.map(\.objectID) == [next.objectID] && next.isInserted)
            context.rollback()
            #expect(context.insertedObjects.isEmpty && !next.isInserted)
        }
        #expect(try fixture.store.rowCountsExcludingSubentities()["Tag"] == 3)
    }

    /// Regression: a savepoint made before a save, a rollback or the end of a dropped insert
    /// inserted its objects again when rolled back to, so that the next save wrote a saved row
    /// twice (a failed save, every time), or an object no longer in the context.
    @Test(arguments: ["save", "rollback", "delete and save"])
    func aSavepointOlderThanAnInsertsEndDoesNotInsertItAgain(ending: String) throws {
        let fixture = try LibraryFixture()
        let context = fixture.context
        try context.performAndWait {
            let tag = try context.insert("Tag")
            try tag.setValue("once", forKey: "name")
            let savepoint = context.savepoint()
            switch ending {
            case "save": try context.save()
            case "rollback": context.rollback()
            default:
                try context.delete(tag)
                try context.save()
            }
            context.rollback(to: savepoint)
            #expect(context.insertedObjects.isEmpty && !tag.isInserted)
            try context.save()
        }
        #expect(try fixture.store.rowCountsExcludingSubentities()["Tag", default: 0] == (ending == "save" ? 1 : 0))
    }

    @Test func aConflictWithAnotherConnectionFailsTheSaveAndWritesNothing() throws {
        let fixture = try LibraryFixture()
        let id = try fixture.context.performAndWait {
            let tag = try fixture.context.insert("Tag")
            try tag.setValue("first", forKey: "name")
            try fixture.context.save()
            return tag.objectID
        }
        let other = try fixture.otherContext()
        try fixture.context.performAndWait {
            try fixture.context.object(with: id).setValue("mine", forKey: "name")
        }
        try other.performAndWait {
            try other.existingObject(with: id).setValue("theirs", forKey: "name")
            try other.save()
        }
        _ = fixture.context.performAndWait {
            #expect(throws: ContextError.conflict(object: id, expectedVersion: 1, storeVersion: 2)) { try fixture.context.save() }
        }
        #expect(try fixture.store.rows("Tag").map { $0.values["name"] } == [.text("theirs")])
    }

    /// The writes of a save find conflicts by their version checks; a save that also breaks a
    /// uniqueness constraint with an insert (written first) still reports the conflict, as when
    /// versions were read before anything was written.
    @Test func aConflictIsReportedBeforeAUniquenessClashOfTheSameSave() throws {
        let fixture = try LibraryFixture()
        let context = fixture.context
        let tagID = try context.performAndWait {
            let author = try context.insert("Author")
            try author.setValue(Int64(7), forKey: "remoteID")
            try author.setValue("First", forKey: "name")
            let tag = try context.insert("Tag")
            try tag.setValue("first", forKey: "name")
            try context.save()
            return tag.objectID
        }
        let other = try fixture.otherContext()
        try other.performAndWait {
            try other.existingObject(with: tagID).setValue("theirs", forKey: "name")
            try other.save()
        }
        try context.performAndWait {
            try context.object(with: tagID).setValue("mine", forKey: "name")
            let clash = try context.insert("Author")
            try clash.setValue(Int64(7), forKey: "remoteID")
            try clash.setValue("Second", forKey: "name")
            #expect(throws: ContextError.conflict(object: tagID, expectedVersion: 1, storeVersion: 2)) { try context.save() }
            #expect(clash.objectID.isTemporary)
        }
        #expect(try fixture.store.rows("Tag").map { $0.values["name"] } == [.text("theirs")])
        #expect(try fixture.store.rows("Author").count == 1)
    }

    @Test func aFailedSaveLeavesTheStoreAsItWas() throws {
        let fixture = try LibraryFixture()
        let context = fixture.context
        try context.performAndWait {
            let tag = try context.insert("Tag")
            try tag.setValue("fantasy", forKey: "name")
            try context.save()
            for name in ["classic", "fantasy"] {
                try context.insert("Tag").setValue(name, forKey: "name")
            }
            #expect(throws: ContextError.self) { try context.save() }
            #expect(context.hasChanges)
        }
        #expect(try fixture.store.rows("Tag").map { $0.values["name"] } == [.text("fantasy")])
        #expect(try fixture.store.database.scalar("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Tag'") == .integer(1))
    }

    @Test func performRunsOnTheContextsQueueAndPerformAndWaitIsReentrant() async throws {
        let fixture = try LibraryFixture()
        let context = fixture.context
        let name = try await context.perform {
            let tag = try context.insert("Tag")
            try tag.setValue("async", forKey: "name")
            try context.performAndWait { try context.save() }
            return tag["name"] as? String
        }
        #expect(name == "async")
        #expect(!context.isOnQueue)
        #expect(try fixture.store.rowCountsExcludingSubentities()["Tag"] == 1)
    }

    @Test func objectsOfSubEntitiesSaveIntoTheirRootsTable() throws {
        let fixture = try LibraryFixture()
        let context = fixture.context
        let id = try context.performAndWait {
            let ebook = try context.insert("EBook")
            try ebook.setValue("Digital", forKey: "title")
            try ebook.setValue("9780000000000", forKey: "isbn")
            #expect(ebook["format"] as? String == "epub")
            let page = try context.insert("Page")
            try page.setValue(ebook, forKey: "book")
            try context.save()
            return page.objectID
        }
        let other = try fixture.otherContext()
        try other.performAndWait {
            let book = try #require(try other.existingObject(with: id)["book"] as? ManagedObject)
            #expect(book.objectID.entityName == "EBook")
            #expect(book["format"] as? String == "epub")
        }
    }
}

extension ObjectContextTests {
    @Test func refreshReloadsFromTheStoreWithOrWithoutOwnChanges() throws {
        let fixture = try LibraryFixture()
        let context = fixture.context
        let id = try context.performAndWait {
            let book = try fixture.book("Original", isbn: "9780000000001")
            try context.save()
            return book.objectID
        }
        let other = try fixture.otherContext()
        try other.performAndWait {
            try other.existingObject(with: id).setValue(4.0, forKey: "rating")
            try other.save()
        }
        try context.performAndWait {
            let book = context.object(with: id)
            try book.setValue("Mine", forKey: "title")
            context.refresh(book, mergeChanges: true)
            #expect(book["title"] as? String == "Mine")
            #expect(book["rating"] as? Double == 4.0)
            context.refresh(book, mergeChanges: false)
            #expect(book["title"] as? String == "Original")
            #expect(!context.hasChanges)
        }
    }

    @Test func dateBoundsAreValidated() throws {
        var event = EntityDescription(name: "Event")
        var at = AttributeDescription(name: "at", type: .date)
        at.minValue = "0"  // 2001-01-01
        event.attributes = [at]
        let fixture = try LibraryFixture(model: ObjectModel(entities: [event]))
        try fixture.context.performAndWait {
            try fixture.context.insert("Event").setValue(Date(timeIntervalSince1970: 0), forKey: "at")
            #expect {
                try fixture.context.save()
            } throws: { error in
                String(describing: error).hasSuffix("at: value 1970-01-01T00:00:00Z is below the minimum 2001-01-01T00:00:00Z")
            }
        }
    }
}
