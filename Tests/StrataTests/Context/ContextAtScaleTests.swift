import Foundation
import Testing
@testable import Strata

/// What the benchmarks' speed-ups rest on: keys handed out a table at a time, temporary IDs
/// made without the system's random source, conflicts found in one query, and objects let go
/// of a batch at a time. Each must keep the behaviour the slower code had.
@Suite struct ContextAtScaleTests {
    @Test func insertedObjectsOfAnEntityAndItsSubentityGetKeysInInsertionOrder() throws {
        let fixture = try LibraryFixture()
        let context = fixture.context
        let kinds = (0..<40).map { $0 % 3 == 0 ? "EBook" : "Book" }
        let keys = try context.performAndWait {
            let objects = try kinds.enumerated().map { index, kind in
                let book = try context.insert(kind)
                try book.setValue("Book \(index)", forKey: "title")
                try book.setValue(String(format: "978%010d", index), forKey: "isbn")
                return book
            }
            try context.save()
            return objects.map { $0.objectID.primaryKey }
        }
        // Books and e-books share one table and one key sequence.
        #expect(keys == Array(Int64(1)...40))
        #expect(try fixture.store.database.scalar("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Book'") == .integer(40))
        let rows = try fixture.store.database.rows("SELECT Z_PK, Z_ENT FROM ZBOOK ORDER BY Z_PK")
        let entityNumbers = Set(rows.compactMap { $0[1].int64Value })
        #expect(rows.count == 40 && entityNumbers.count == 2)
    }

    @Test func temporaryIDsAreDistinctWellFormedUUIDsAcrossContexts() throws {
        let fixture = try LibraryFixture()
        let other = try fixture.otherContext()
        let first = try fixture.context.performAndWait { try (0..<500).map { _ in try fixture.context.insert("Tag").objectID } }
        let second = try other.performAndWait { try (0..<500).map { _ in try other.insert("Tag").objectID } }
        let uuids = (first + second).compactMap { id -> UUID? in
            if case .temporary(let uuid) = id.key { return uuid }
            return nil
        }
        #expect(uuids.count == 1000 && Set(uuids).count == 1000)
        // Version 4, RFC 4122 variant: what Core Data's temporary IDs look like.
        #expect(uuids.allSatisfy { $0.uuid.6 >> 4 == 4 && $0.uuid.8 >> 6 == 0b10 })
        #expect(first.allSatisfy { $0.uriRepresentation().absoluteString.hasPrefix("x-coredata:///Tag/t") })
    }

    @Test func idsDifferingOnlyInStoreOrEntityAreDifferentKeys() {
        let a = ObjectID(entityName: "Book", storeIdentifier: "A", key: .permanent(7))
        let b = ObjectID(entityName: "Book", storeIdentifier: "B", key: .permanent(7))
        let c = ObjectID(entityName: "Page", storeIdentifier: "A", key: .permanent(7))
        let d = ObjectID(entityName: "Tag", storeIdentifier: "A", key: .permanent(7))
        #expect(Set([a, b, c, d, a]).count == 4)
        #expect([d, a, c].sorted { $0.precedes($1) }.map(\.entityName) == ["Book", "Page", "Tag"])
    }

    @Test func aSaveOfManyUpdatesStillFindsTheOneRowAnotherContextChanged() throws {
        let fixture = try LibraryFixture()
        let context = fixture.context
        let ids = try context.performAndWait {
            let tags = try (0..<300).map { index in
                let tag = try context.insert("Tag")
                try tag.setValue("tag \(index)", forKey: "name")
                return tag
            }
            try context.save()
            return tags.map(\.objectID)
        }
        let other = try fixture.otherContext()
        try other.performAndWait {
            try other.existingObject(with: ids[150]).setValue("changed elsewhere", forKey: "name")
            try other.save()
        }
        let error = context.performAndWait { () -> ContextError? in
            do throws(ContextError) {
                for id in ids { try context.object(with: id).setValue("renamed", forKey: "name") }
                try context.save()
                return nil
            } catch {
                return error
            }
        }
        guard case .conflict(let object, let expected, let actual)? = error else {
            Issue.record("expected a conflict, got \(String(describing: error))")
            return
        }
        #expect(object == ids[150] && expected == 1 && actual == 2)
        // Nothing of the failed save reached the store.
        #expect(try fixture.store.database.scalar("SELECT COUNT(*) FROM ZTAG WHERE ZNAME = 'renamed'") == .integer(0))
    }

    @Test func releasingAmongSomeObjectsKeepsChangedAndHeldOnesAndLeavesTheRest() throws {
        let fixture = try LibraryFixture()
        let context = fixture.context
        try context.performAndWait {
            for index in 0..<20 { try context.insert("Tag").setValue("tag \(index)", forKey: "name") }
            try context.save()
            context.reset()
            var ids: [ObjectID] = []
            var held: ManagedObject?
            do {
                let tags = try context.fetch(FetchRequest(entityName: "Tag", sortDescriptors: [ObjectSortDescriptor("name")]))
                ids = tags.map(\.objectID)
                try tags[0].setValue("changed", forKey: "name")
                held = tags[1]
            }
            context.releaseUnheldObjects(among: ids[0..<10])
            // Of the first ten, the changed one and the held one stay; the other ten were not asked about.
            #expect(context.registeredObjectCount == 2 + 10)
            context.releaseUnheldObjects()
            #expect(context.registeredObjectCount == 2)
            withExtendedLifetime(held) {}
            #expect(try context.object(with: ids[0]).value(forKey: "name") as? String == "changed")
        }
    }

    /// The changed objects are listed in the order they first changed, each once, and an
    /// object whose change was undone is let go of like any other unheld one.
    @Test func changedObjectsComeInTheOrderTheyChangedOnceEach() throws {
        let fixture = try LibraryFixture()
        let context = fixture.context
        try context.performAndWait {
            for index in 0..<10 { try context.insert("Tag").setValue("tag \(index)", forKey: "name") }
            try context.save()
            context.reset()
            let order = [7, 2, 9, 0, 4]
            var ids: [ObjectID] = []
            do {
                let tags = try context.fetch(FetchRequest(entityName: "Tag", sortDescriptors: [ObjectSortDescriptor("name")]))
                ids = tags.map(\.objectID)
                for index in order { try tags[index].setValue("changed \(index)", forKey: "name") }
                try tags[2].setValue("changed again", forKey: "name")
                #expect(context.updatedObjects.map(ObjectIdentifier.init) == order.map { ObjectIdentifier(tags[$0]) })
                // Undone: still listed, no longer changed.
                try tags[4].setValue("tag 4", forKey: "name")
                #expect(context.updatedObjects.map(\.objectID) == [7, 2, 9, 0].map { ids[$0] })
            }
            // Let go of, read again and changed again: listed once.
            let id = ids[4]
            context.releaseUnheldObjects(among: [id])
            #expect(context.registeredObjectCount == 9)
            try context.object(with: id).setValue("changed once more", forKey: "name")
            #expect(context.updatedObjects.map(\.objectID) == order.map { ids[$0] })
            try context.save()
            #expect(context.updatedObjects.isEmpty)
        }
        let names = try fixture.store.database.rows("SELECT ZNAME FROM ZTAG WHERE ZNAME LIKE 'changed%' ORDER BY ZNAME").compactMap { $0[0].stringValue }
        #expect(names == ["changed 0", "changed 7", "changed 9", "changed again", "changed once more"])
    }

    /// A save of many inserted objects re-keys them in one pass; a fault made beforehand from
    /// the permanent ID one of them gets leaves the context, as it did one object at a time.
    @Test func aLargeInsertTakesPermanentIDsAndDisplacesAFaultOfItsNewKey() throws {
        let fixture = try LibraryFixture()
        let context = fixture.context
        try context.performAndWait {
            let tags = try (0..<200).map { index in
                let tag = try context.insert("Tag")
                try tag.setValue("tag \(index)", forKey: "name")
                return tag
            }
            let early = context.object(with: context.permanentID(entityName: "Tag", primaryKey: 5))
            try context.save()
            #expect(tags.map(\.objectID.primaryKey) == (1...200).map { Int64($0) })
            for tag in tags { #expect(context.object(with: tag.objectID) === tag) }
            #expect(early.managedObjectContext == nil)
            #expect(context.registeredObjectCount == 200)
            #expect(context.object(with: context.permanentID(entityName: "Tag", primaryKey: 5)) === tags[4])
        }
    }
}
