import Foundation
import Testing
@testable import Strata

/// An object monitor tells of its object's updates and deletion, whichever context saved them.
@Suite struct ObjectMonitorTests {
    @Test func updatesFromAnotherContextThenTheDeletionAreTold() async throws {
        let fixture = try FetchedResultsControllerTests.Fixture(sectioned: false)
        let writer = fixture.writer()
        let id = try writer.performAndWait {
            let book = try FetchedResultsControllerTests.book("Kindred", rating: 5, genre: "sf", in: writer)
            try writer.save()
            return book.objectID
        }
        let monitor = try fixture.viewer.performAndWait { try ObjectMonitor(fixture.viewer.object(with: id)) }
        let told = Locked<[ObjectMonitor.Change]>([])
        monitor.onChange = { change in told.withLock { $0.append(change) } }
        let stream = monitor.changes
        try writer.performAndWait {
            let book = writer.object(with: id)
            try book.setValue(4.0, forKey: "rating")
            try writer.save()
            try FetchedResultsControllerTests.book("Dawn", rating: 3, genre: "sf", in: writer)
            try writer.save()
            _ = try writer.delete(book)
            try writer.save()
        }
        #expect(told.withLock { $0 } == [.updated(id, keys: ["rating"]), .deleted(id)], "the other book's save is not this one's")
        var received: [ObjectMonitor.Change] = []
        for await change in stream { received.append(change) }
        #expect(received == [.updated(id, keys: ["rating"]), .deleted(id)], "the sequence ends with the deletion")
        #expect(fixture.viewer.performAndWait { monitor.object } == nil)
    }

    @Test func aNewObjectIsFollowedUnderItsPermanentID() throws {
        let fixture = try FetchedResultsControllerTests.Fixture(sectioned: false)
        let viewer = fixture.viewer
        let (monitor, temporary) = try viewer.performAndWait {
            let book = try FetchedResultsControllerTests.book("Kindred", rating: 5, genre: "sf", in: viewer)
            return (try ObjectMonitor(book), book.objectID)
        }
        try viewer.performAndWait { try viewer.save() }
        #expect(temporary.isTemporary && !monitor.objectID.isTemporary)
        let writer = fixture.writer()
        let told = Locked<[ObjectMonitor.Change]>([])
        monitor.onChange = { change in told.withLock { $0.append(change) } }
        try writer.performAndWait {
            try writer.object(with: monitor.objectID).setValue("Kindred (2nd ed.)", forKey: "title")
            try writer.save()
        }
        #expect(told.withLock { $0 } == [.updated(monitor.objectID, keys: ["title"])])
    }
}
