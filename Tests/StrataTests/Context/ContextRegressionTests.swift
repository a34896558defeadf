import Foundation
import Testing
@testable import Strata
import StrataTestSupport

/// Regressions found in review, each with the case that showed it.
@Suite struct ContextRegressionTests {
    @Test func aChildWorkingInsideItsParentsBlockDoesNotDeadlock() throws {
        let fixture = try LibraryFixture()
        let root = fixture.context
        let child = ObjectContext(parent: root)
        try root.performAndWait {
            let id = try root.insert("Tag").objectID
            try root.object(with: id).setValue("root", forKey: "name")
            try child.performAndWait {
                let tag = child.object(with: id)  // loads through the parent, whose queue this thread holds
                #expect(tag["name"] as? String == "root")
                try tag.setValue("child", forKey: "name")
                try child.save()  // pushes into the parent the same way
            }
            #expect(root.object(with: id)["name"] as? String == "child")
        }
    }

    /// Regression: a save that broke a uniqueness constraint failed with SQLite's message and
    /// the SQL; it names the object, the properties and the values, and saves nothing.
    @Test func aUniquenessClashNamesTheObjectAndTheValues() throws {
        let fixture = try LibraryFixture()
        let context = fixture.context
        try context.performAndWait {
            let first = try context.insert("Author")
            try first.setValue(Int64(7), forKey: "remoteID")
            try first.setValue("First", forKey: "name")
            try context.save()
            let second = try context.insert("Author")
            try second.setValue(Int64(7), forKey: "remoteID")
            try second.setValue("Second", forKey: "name")
            #expect(throws: ContextError.uniquenessConflict(object: second.objectID, properties: ["remoteID"], values: ["7"])) { try context.save() }
            #expect(second.objectID.isTemporary)
            try second.setValue(Int64(8), forKey: "remoteID")
            try context.save()
            // An update that takes another object's value is named by its saved ID.
            try first.setValue(Int64(8), forKey: "remoteID")
            #expect(throws: ContextError.uniquenessConflict(object: first.objectID, properties: ["remoteID"], values: ["8"])) { try context.save() }
        }
        let reader = try fixture.otherContext()
        try reader.performAndWait {
            let saved = try reader.fetch(FetchRequest(entityName: "Author", sortDescriptors: [ObjectSortDescriptor("remoteID")]))
            #expect(try saved.map { try $0.value(forKey: "remoteID") as? Int64 } == [7, 8])
        }
    }

    /// Regression: a save refused an update because of a value it did not touch, already in
    /// the store (pruning a Page from a Book whose ISBN another program had spoilt).
    @Test func anUpdateIsJudgedByWhatItChanges() throws {
        let fixture = try LibraryFixture()
        let context = fixture.context
        let book = try context.performAndWait {
            let book = try fixture.book("Dune", isbn: "9780441172719")
            try context.save()
            return book.objectID
        }
        try fixture.store.withConnection { try fixture.store.database.execute("UPDATE ZBOOK SET ZISBN = 'spoilt'") }
        let reader = try fixture.otherContext()
        try reader.performAndWait {
            let dune = try reader.existingObject(with: book)
            try dune.setValue(4.5, forKey: "rating")
            try reader.save()
            // A change to the bad value is judged, and refused.
            try dune.setValue("still bad", forKey: "isbn")
            #expect { try reader.save() } throws: { error in
                guard case ContextError.validation(let failures) = error else { return false }
                return failures.map(\.property) == ["isbn"]
            }
        }
    }

    @Test func anObjectDeletedAndSavedNoLongerReadsItsValues() throws {
        let fixture = try LibraryFixture()
        let context = fixture.context
        try context.performAndWait {
            let tag = try context.insert("Tag")
            try tag.setValue("gone", forKey: "name")
            try context.save()
            #expect(try tag.attributeValue(forKey: "name") == .string("gone"))
            try context.delete(tag)
            try context.save()
            #expect(throws: ContextError.forgottenObject(tag.objectID)) { try tag.attributeValue(forKey: "name") }
        }
    }

    @Test func deletingAnInsertedObjectTwiceIsHarmless() throws {
        let fixture = try LibraryFixture()
        try fixture.context.performAndWait {
            let tag = try fixture.context.insert("Tag")
            try fixture.context.delete(tag)
            try fixture.context.delete(tag)
            try fixture.context.save()
        }
        #expect(try fixture.store.rowCountsExcludingSubentities()["Tag"] == 0)
    }

    @Test func aWorkerStillHoldingATemporaryIDCanSaveTheObjectAgain() throws {
        let fixture = try LibraryFixture()
        let main = ObjectContext(parent: fixture.context, name: "main")
        let first = ObjectContext(parent: main, name: "first"), second = ObjectContext(parent: main, name: "second")
        let tag = try first.performAndWait {
            let tag = try first.insert("Tag")
            try tag.setValue("v1", forKey: "name")
            try first.save()
            return tag
        }
        try second.performAndWait { try second.commit() }  // saves main and root: the tag gets a permanent ID there
        try first.performAndWait {
            #expect(tag.objectID.isTemporary)
            try tag.setValue("v2", forKey: "name")
            try first.commit()
        }
        #expect(try fixture.store.rows("Tag").map { $0.values["name"] } == [.text("v2")])
    }

    @Test func aChildsToManyChangesKeepTheParentsOwn() throws {
        let fixture = try LibraryFixture()
        let root = fixture.context
        let (bookID, parentTagID) = try root.performAndWait {
            let book = try fixture.book("B", isbn: "9780000000001")
            try root.save()
            let tag = try root.insert("Tag")
            try tag.setValue("parent's", forKey: "name")
            try book.add(tag, toKey: "tags")
            return (book.objectID, tag.objectID)
        }
        let child = ObjectContext(parent: root)
        try child.performAndWait {
            let book = try child.existingObject(with: bookID)
            let tag = try child.insert("Tag")
            try tag.setValue("child's", forKey: "name")
            try book.add(tag, toKey: "tags")
            try book.remove(child.object(with: parentTagID), fromKey: "tags")
            try book.add(child.object(with: parentTagID), toKey: "tags")
            try child.save()
        }
        try root.performAndWait {
            let names = try root.object(with: bookID).objects(forKey: "tags").compactMap { $0["name"] as? String }
            #expect(names.sorted() == ["child's", "parent's"])
            try root.save()
        }
        #expect(try fixture.store.database.scalar("SELECT COUNT(*) FROM Z_2TAGS") == .integer(2))
    }

    @Test func addingAnObjectOfAnotherContextIsAnError() throws {
        let fixture = try LibraryFixture()
        let other = ObjectContext(store: fixture.store)
        let foreign = try other.performAndWait { try other.insert("Tag") }
        try fixture.context.performAndWait {
            let book = try fixture.book("B", isbn: "9780000000001")
            #expect(throws: ContextError.self) { try book.add(foreign, toKey: "tags") }
            #expect(try book.objects(forKey: "tags").isEmpty)
        }
    }

    @Test func anOrderedManyToManyKeepsItsOrderInTheStore() throws {
        let model = try JSONModelReader.read(Data("""
            {"entities": [
              {"name": "List", "attributes": [{"name": "name", "type": "string"}],
               "relationships": [{"name": "items", "destination": "Item", "inverse": "lists", "toMany": true, "ordered": true}]},
              {"name": "Item", "attributes": [{"name": "name", "type": "string"}],
               "relationships": [{"name": "lists", "destination": "List", "inverse": "items", "toMany": true}]}
            ]}
            """.utf8), path: "lists.json")
        let folder = try TemporaryFolder()
        let store = try PersistentStore.create(at: folder.path("Lists.sqlite"), model: model)
        defer { store.close() }
        func order(_ context: ObjectContext) throws -> [String?] {
            let list = try #require(try context.fetch(FetchRequest(entityName: "List")).first)
            return try list.objects(forKey: "items").map { try $0.attributeValue(forKey: "name")?.displayText }
        }
        let writer = ObjectContext(store: store)
        try writer.performAndWait {
            let items = try ["i1", "i2", "i3"].map { name in
                let item = try writer.insert("Item")
                try item.setValue(name, forKey: "name")
                return item
            }
            let list = try writer.insert("List")
            try list.setValue([items[2], items[0], items[1]], forKey: "items")
            try writer.save()
            // The side that does not name the join table reorders too.
            try list.setValue([items[1], items[2], items[0]], forKey: "items")
            try writer.save()
        }
        let reader = ObjectContext(store: store)
        #expect(try reader.performAndWait { try order(reader) } == [#""i2""#, #""i3""#, #""i1""#])
    }

    @Test func aSavepointTakesTheContextBackToItsUnsavedChangesThen() throws {
        let fixture = try LibraryFixture()
        let context = fixture.context
        try context.performAndWait {
            let kept = try context.insert("Tag")
            try kept.setValue("kept", forKey: "name")
            let saved = try context.insert("Tag")
            try saved.setValue("saved", forKey: "name")
            try context.save()
            try kept.setValue("changed before", forKey: "name")
            let savepoint = context.savepoint()

            try kept.setValue("changed after", forKey: "name")
            let added = try context.insert("Tag")
            try context.delete(saved)
            context.rollback(to: savepoint)

            #expect(kept["name"] as? String == "changed before", "changes from before the savepoint stay")
            #expect(!saved.isDeleted && saved["name"] as? String == "saved")
            #expect(added.managedObjectContext == nil || !context.insertedObjects.contains { $0 === added }, "what was inserted since leaves")
            #expect(context.hasChanges)
            try context.save()
        }
        #expect(try fixture.store.rowCountsExcludingSubentities()["Tag"] == 2)
    }

    /// Regression: a commit that the store refused for a uniqueness clash left the child's
    /// insert in the parent, where a rollback of the child could not reach it, so that every
    /// later save failed again. The parents are as they were and the child keeps its change,
    /// on a two-tier and a three-tier stack.
    @Test(arguments: [1, 2]) func aCommitRefusedByTheStoreLeavesNoTraceInTheParents(levels: Int) throws {
        let fixture = try LibraryFixture()
        let root = fixture.context
        try root.performAndWait {
            let author = try root.insert("Author")
            try author.setValue(Int64(7), forKey: "remoteID")
            try author.setValue("First", forKey: "name")
            try root.save()
        }
        var parents = [root]
        for _ in 1..<levels { parents.append(ObjectContext(parent: parents.last!)) }
        let child = ObjectContext(parent: parents.last!)
        try child.performAndWait {
            let clash = try child.insert("Author")
            try clash.setValue(Int64(7), forKey: "remoteID")
            try clash.setValue("Clash", forKey: "name")
            #expect(throws: ContextError.uniquenessConflict(object: clash.objectID, properties: ["remoteID"], values: ["7"])) { try child.commit() }
            #expect(child.insertedObjects.map(\.objectID) == [clash.objectID], "the child keeps its change, to fix or drop")
        }
        for parent in parents {
            parent.performAndWait {
                #expect(!parent.hasChanges, "nothing of the refused commit stays in a parent")
            }
        }
        try child.performAndWait {
            child.rollback()
            let next = try child.insert("Author")
            try next.setValue(Int64(8), forKey: "remoteID")
            try next.setValue("Second", forKey: "name")
            try child.commit()
            #expect(!next.objectID.isTemporary)
        }
        let reader = try fixture.otherContext()
        try reader.performAndWait {
            let saved = try reader.fetch(FetchRequest(entityName: "Author", sortDescriptors: [ObjectSortDescriptor("remoteID")]))
            #expect(try saved.map { try $0.value(forKey: "name") as? String } == ["First", "Second"])
        }
    }

    /// A commit refused by the store can be retried once the child fixed the clash: the
    /// change the child kept is saved whole.
    @Test func aCommitRefusedByTheStoreCanBeFixedAndRetried() throws {
        let fixture = try LibraryFixture()
        let root = fixture.context
        try root.performAndWait {
            let author = try root.insert("Author")
            try author.setValue(Int64(7), forKey: "remoteID")
            try author.setValue("First", forKey: "name")
            try root.save()
        }
        let child = ObjectContext(parent: root)
        try child.performAndWait {
            let clash = try child.insert("Author")
            try clash.setValue(Int64(7), forKey: "remoteID")
            try clash.setValue("Retried", forKey: "name")
            #expect(throws: ContextError.self) { try child.commit() }
            try clash.setValue(Int64(9), forKey: "remoteID")
            try child.commit()
        }
        #expect(try fixture.store.rowCountsExcludingSubentities()["Author"] == 2)
        root.performAndWait { #expect(!root.hasChanges) }
    }

    /// Objects reach their context through a link the context clears as it goes, no longer a
    /// weak reference: an object that outlives its context, whether the context still held
    /// it or had let it go (an insert rolled back), must read it as gone, refuse changes
    /// without stopping, and be taken by another context by its ID.
    @Test func objectsOutlivingTheirContextReadItAsGoneAndAnotherContextTakesThem() throws {
        let fixture = try LibraryFixture()
        var context: ObjectContext? = ObjectContext(store: fixture.store, name: "short-lived")
        weak let gone = context
        let (saved, rolledBack) = try context!.performAndWait {
            let tag = try context!.insert("Tag")
            try tag.setValue("kept", forKey: "name")
            try context!.save()
            let dropped = try context!.insert("Tag")
            context!.rollback()
            #expect(dropped.managedObjectContext === context)
            return (tag, dropped)
        }
        context = nil
        #expect(gone == nil, "the objects do not keep their context")
        #expect(saved.managedObjectContext == nil)
        #expect(rolledBack.managedObjectContext == nil)
        #expect(throws: ContextError.forgottenObject(saved.objectID)) { try saved.setValue("changed", forKey: "name") }
        #expect(throws: ContextError.forgottenObject(rolledBack.objectID)) { try rolledBack.setValue("changed", forKey: "name") }
        let other = fixture.context
        try other.performAndWait {
            let own = try other.use(saved)
            #expect(own !== saved && own.managedObjectContext === other)
            #expect(try own.value(forKey: "name") as? String == "kept")
        }
    }

    /// Regression: a save that gave objects permanent IDs listed every object of an entity with
    /// relationships as changed once more, after it had emptied the list: giving the objects'
    /// values the new IDs assigned their changes, empty or not.
    @Test func aSaveLeavesNoSavedObjectListedAsChanged() throws {
        let fixture = try LibraryFixture()
        let context = fixture.context
        try context.performAndWait {
            let author = try context.insert("Author")
            try author.setValue("Le Guin", forKey: "name")
            let book = try fixture.book("The Dispossessed", isbn: "9780060512750")
            try book.setValue(author, forKey: "author")
            try context.save()
            context.absorbChanges()
            #expect(!book.isListedAsChanged && !author.isListedAsChanged)
            #expect(!book.isTracked && !author.isTracked)
            #expect(!context.hasChanges)
            try book.setValue("The Dispossessed: An Ambiguous Utopia", forKey: "title")
            #expect(book.isTracked && context.hasChanges)
        }
    }
}
