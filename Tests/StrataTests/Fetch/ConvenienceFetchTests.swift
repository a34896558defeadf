import Foundation
import Testing
@testable import Strata

/// The wrappers' short forms over fetch requests: find, objects, count, any, fetchOrCreate,
/// query and queryValue, and the entity's default order.
@Suite struct ConvenienceFetchTests {
    @Test func findScopesFollowTheOrder() throws {
        let library = try FetchTestLibrary()
        let context = library.context
        try context.performAndWait {
            let byRating = [ObjectSortDescriptor("rating"), ObjectSortDescriptor("title")]
            let rated = try ObjectPredicate(format: "rating != nil")
            #expect(try library.titles(context.find(.all, "Book", where: rated, sortedBy: byRating)) == [
                "the Silmarillion", "Children of Dune", "A Wizard of Earthsea", "Dune", "The Hobbit", "The Lord of the Rings",
            ])
            #expect(try library.titles(context.find(.first, "Book", where: rated, sortedBy: byRating)) == ["the Silmarillion"])
            #expect(try library.titles(context.find(.last, "Book", where: rated, sortedBy: byRating)) == ["The Lord of the Rings"])
            #expect(try library.titles(context.find(.firsts(2), "Book", where: rated, sortedBy: byRating)) == ["the Silmarillion", "Children of Dune"])
            #expect(try library.titles(context.find(.lasts(2), "Book", where: rated, sortedBy: byRating)) == ["The Hobbit", "The Lord of the Rings"])
            #expect(try context.find(.firsts(0), "Book").isEmpty)
            // Ties keep the order of `.all`: the last of equal ratings is the last listed.
            let tied = try ObjectPredicate(format: "rating == 4.5")
            #expect(try library.titles(context.find(.last, "Book", where: tied, sortedBy: [ObjectSortDescriptor("rating")]))
                == library.titles(context.find(.all, "Book", where: tied, sortedBy: [ObjectSortDescriptor("rating")])).suffix(1))
            // Without an order, the last objects are the last saved.
            #expect(try library.titles(context.find(.lasts(2), "Book")) == ["Children of Dune", "anonymous notes"])
            #expect(try library.titles(context.find(.first, "Book", by: "title", equalTo: "Dune")) == ["Dune"])
            #expect(try context.find(.all, "Author", by: "remoteID", equalTo: 2).count == 1)
            #expect(try library.titles(context.objects("Book", filter: rated, sort: byRating, range: 1..<3)) == ["Children of Dune", "A Wizard of Earthsea"])
            #expect(try context.objects("Book", range: 5..<5).isEmpty)
        }
    }

    @Test func countAnyAndFetchOrCreateSeePendingChanges() throws {
        let library = try FetchTestLibrary()
        let context = library.context
        try context.performAndWait {
            #expect(try context.count("Book") == 8)
            #expect(try context.count("Book", where: ObjectPredicate(format: "rating == nil")) == 2)
            #expect(try context.any("Tag", where: ObjectPredicate(format: "name == 'Epic'")))
            #expect(try !context.any("Tag", where: ObjectPredicate(format: "name == 'Horror'")))
            let horror = try context.fetchOrCreate("Tag", matching: ["name": "Horror"])
            #expect(horror.isInserted)
            #expect(try context.fetchOrCreate("Tag", matching: ["name": "Horror"]) === horror)
            #expect(try context.any("Tag", where: ObjectPredicate(format: "name == 'Horror'")))
            let epic = try context.fetchOrCreate("Tag", matching: ["name": "Epic"])
            #expect(!epic.isInserted)
            #expect(try context.count("Tag") == 5)
        }
    }

    @Test func queryAndQueryValueAggregate() throws {
        let library = try FetchTestLibrary()
        let context = library.context
        try context.performAndWait {
            let rows = try context.query(
                "Book", select: "author.name as author, count(*) as books", where: ObjectPredicate(format: "author != nil"), groupBy: ["author.name"],
                having: ObjectPredicate(format: "books > 2"))
            #expect(rows.map { $0["author"] } == [.attribute(.string("Tolkien"))])
            #expect(try context.queryValue("Book", select: .aggregate(.max, of: "rating")) == .attribute(.double(5)))
            #expect(try context.queryValue("Book", select: .aggregate(.min, of: "rating"), where: ObjectPredicate(format: "author.name == 'Herbert'")) == .attribute(.double(3.5)))
            #expect(try context.queryValue("Book", select: .count(), where: ObjectPredicate(format: "FALSEPREDICATE")) == .attribute(.integer(0)))
            #expect(try context.queryValue("Book", select: .aggregate(.max, of: "rating"), where: ObjectPredicate(format: "FALSEPREDICATE")) == nil)
        }
    }

    @Test func theEntitysDefaultOrderComesFromItsUserInfo() throws {
        var model = try ModelLoader.load(Fixtures.exampleModel).currentVersion.model
        let index = try #require(model.entities.firstIndex { $0.name == "Author" })
        model.entities[index].userInfo["strata.sortBy"] = "born:desc, name"
        let library = try FetchTestLibrary(model: model)
        let context = library.context
        let (byDefault, last, byName) = try context.performAndWait {
            (try context.find(.all, "Author").names, try context.find(.last, "Author").names,
                try context.find(.all, "Author", sortedBy: [ObjectSortDescriptor("name")]).names)
        }
        #expect(byDefault == ["Le Guin", "Herbert", "Tolkien"])
        #expect(last == ["Tolkien"])
        #expect(byName == ["Herbert", "Le Guin", "Tolkien"])
        model.entities[index].userInfo["strata.sortBy"] = "born:sideways"
        let broken = try FetchTestLibrary(model: model)
        #expect(throws: FetchRequestError("entity Author, userInfo strata.sortBy 'born:sideways': sort key 'born:sideways': unknown modifier 'sideways' (use asc, desc or nocase)")) {
            try broken.context.performAndWait { try broken.context.find(.all, "Author") }
        }
    }
}

extension [ManagedObject] {
    /// The objects' `name` values.
    fileprivate var names: [String?] {
        get throws { try map { try $0.value(forKey: "name") as? String } }
    }
}
