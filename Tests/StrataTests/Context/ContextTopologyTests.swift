import Foundation
import Synchronization
import Testing
@testable import Strata

/// Parent and child contexts, did-save notifications and merging.
@Suite struct ContextTopologyTests {
    @Test func aChildsSaveReachesTheStoreWhenTheParentSaves() throws {
        let fixture = try LibraryFixture()
        let root = fixture.context
        let child = ObjectContext(parent: root, name: "child")
        let id = try child.performAndWait {
            let tag = try child.insert("Tag")
            try tag.setValue("fantasy", forKey: "name")
            try child.save()
            #expect(!child.hasChanges)
            return tag.objectID
        }
        #expect(try fixture.store.rowCountsExcludingSubentities()["Tag"] == 0)
        try root.performAndWait {
            #expect(root.hasChanges)
            #expect(root.object(with: id)["name"] as? String == "fantasy")
            try root.save()
        }
        #expect(try fixture.store.rows("Tag").map { $0.values["name"] } == [.text("fantasy")])
    }

    @Test func aChildSeesItsParentsUnsavedChangesAndCommitSavesTheChain() throws {
        let fixture = try LibraryFixture()
        let root = fixture.context
        let authorID = try root.performAndWait {
            let author = try root.insert("Author")
            try author.setValue("Le Guin", forKey: "name")
            return author.objectID
        }
        let child = ObjectContext(parent: root)
        try child.performAndWait {
            let author = child.object(with: authorID)
            #expect(author["name"] as? String == "Le Guin")
            let book = try child.insert("Book")
            try book.setValue("Earthsea", forKey: "title")
            try book.setValue("9780547773742", forKey: "isbn")
            try book.setValue(author, forKey: "author")
            try child.commit()
        }
        #expect(try fixture.store.rowCountsExcludingSubentities() == ["Author": 1, "Book": 1, "EBook": 0, "Page": 0, "Tag": 0])
        let other = try fixture.otherContext()
        try other.performAndWait {
            let book = try other.existingObject(with: ObjectID(entityName: "Book", storeIdentifier: fixture.store.metadata.uuid, key: .permanent(1)))
            #expect(book["author.name"] as? String == "Le Guin")
        }
    }

    @Test func didSaveNotificationsMergeIntoAnotherContextWithoutRefetching() throws {
        let fixture = try LibraryFixture()
        let writer = fixture.context
        let reader = ObjectContext(store: fixture.store, name: "reader")
        let id = try writer.performAndWait {
            let tag = try writer.insert("Tag")
            try tag.setValue("old", forKey: "name")
            try writer.save()
            return tag.objectID
        }
        let before = try reader.performAndWait { try reader.existingObject(with: id)["name"] as? String }
        #expect(before == "old")
        let received = Mutex<[ContextDidSave]>([])
        let observation = writer.addDidSaveObserver { note in received.withLock { $0.append(note) } }
        try writer.performAndWait {
            try writer.object(with: id).setValue("new", forKey: "name")
            try writer.save()
        }
        let note = try #require(received.withLock { $0.first })
        #expect(note.updatedObjectIDs == [id] && note.insertedObjectIDs.isEmpty)
        // Change the row behind both contexts' backs: a merge that refetched would see this.
        try fixture.store.withConnection { try fixture.store.database.execute("UPDATE ZTAG SET ZNAME = 'elsewhere'") }
        reader.performAndWait {
            reader.mergeChanges(fromContextDidSave: note)
            #expect(reader.object(with: id)["name"] as? String == "new")
        }
        observation.cancel()
        try writer.performAndWait {
            try writer.object(with: id).setValue("quiet", forKey: "name")
            try writer.save()
        }
        #expect(received.withLock { $0.count } == 1)
    }

    @Test func childrenThatMergeAutomaticallySeeTheParentsSaveWithPermanentIDs() throws {
        let fixture = try LibraryFixture()
        let root = fixture.context
        let main = ObjectContext(parent: root, name: "main")
        main.automaticallyMergesChangesFromParent = true
        let worker = ObjectContext(parent: root, name: "worker")
        let temporaryID = try worker.performAndWait {
            let tag = try worker.insert("Tag")
            try tag.setValue("pushed", forKey: "name")
            try worker.save()
            return tag.objectID
        }
        main.performAndWait {
            #expect(main.object(with: temporaryID)["name"] as? String == "pushed")
        }
        try root.performAndWait { try root.save() }
        main.performAndWait {
            #expect(main.registeredObjects.map(\.objectID.isTemporary) == [false])
            #expect(main.registeredObjects.first?["name"] as? String == "pushed")
        }
    }

    @Test func manyWorkersSaveThroughTheRootWhileTheMainContextMerges() async throws {
        let fixture = try LibraryFixture()
        let root = fixture.context
        let main = ObjectContext(parent: root, name: "main")
        main.automaticallyMergesChangesFromParent = true
        let workers = 8, tagsPerWorker = 25
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<workers {
                group.addTask {
                    let context = ObjectContext(parent: root, name: "worker \(worker)")
                    for index in 0..<tagsPerWorker {
                        try await context.perform {
                            let tag = try context.insert("Tag")
                            try tag.setValue("w\(worker)-\(index)", forKey: "name")
                            try context.save()
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        try await root.perform { try root.save() }
        #expect(try fixture.store.rowCountsExcludingSubentities()["Tag"] == workers * tagsPerWorker)
        let names = try fixture.store.rows("Tag").compactMap { $0.values["name"]?.stringValue }
        #expect(Set(names).count == workers * tagsPerWorker)
    }

    @Test func obtainPermanentIDsBeforeTheSave() throws {
        let fixture = try LibraryFixture()
        let context = fixture.context
        try context.performAndWait {
            let tag = try context.insert("Tag")
            try tag.setValue("early", forKey: "name")
            try context.obtainPermanentIDs(for: [tag])
            #expect(tag.objectID.primaryKey == 1)
            #expect(context.object(with: tag.objectID) === tag)
            try context.save()
            #expect(tag.objectID.primaryKey == 1)
        }
        #expect(try fixture.store.rows("Tag").map(\.primaryKey) == [1])
    }
}
