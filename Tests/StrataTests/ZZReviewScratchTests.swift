import Foundation
import Testing
@testable import Strata

@Suite struct ZZReviewScratchTests {
    // find(.last) with ties on the sort key.
    @Test func lastWithTies() throws {
        let library = try FetchTestLibrary()
        let context = library.context
        try context.performAndWait {
            let all = try context.find(.all, "Book", where: Predicate(format: "rating == 4.5"), sortedBy: [SortDescriptor("rating")])
            let last = try context.find(.last, "Book", where: Predicate(format: "rating == 4.5"), sortedBy: [SortDescriptor("rating")])
            print("REVIEW all:", try library.titles(all), "last:", try library.titles(last))
            let lasts = try context.find(.lasts(2), "Book", sortedBy: [SortDescriptor("author.name")])
            let every = try context.find(.all, "Book", sortedBy: [SortDescriptor("author.name")])
            print("REVIEW every:", try library.titles(every), "lasts2:", try library.titles(lasts))
            #expect(try library.titles(last) == [library.titles(all).last!])
        }
    }

    // Prefetched to-many on a fault survives a merged save.
    @Test func prefetchedToManyStaleAfterMerge() throws {
        let library = try FetchTestLibrary()
        let context = library.context
        let other = try library.fixture.otherContext()
        let author = try context.performAndWait { () -> ManagedObject in
            var request = FetchRequest(entityName: "Author", predicate: try Predicate(format: "name == 'Herbert'"))
            request.relationshipKeyPathsForPrefetching = ["books"]
            return try #require(context.fetch(request).first)
        }
        let observation = other.addDidSaveObserver { note in context.perform { context.mergeChanges(fromContextDidSave: note) } }
        try other.performAndWait {
            let same = try #require(other.fetch(FetchRequest(entityName: "Author", predicate: try Predicate(format: "name == 'Herbert'"))).first)
            let book = try other.insert("Book")
            try book.setValue("God Emperor", forKey: "title")
            try book.setValue("9781111111111", forKey: "isbn")
            try book.setValue(same, forKey: "author")
            let dune = try #require(other.fetch(FetchRequest(entityName: "Book", predicate: try Predicate(format: "title == 'Children of Dune'"))).first)
            try other.delete(dune)
            try other.save()
        }
        let titles = try context.performAndWait { () -> [String] in
            print("REVIEW isFault:", author.isFault)
            return try author.objects(forKey: "books").map { try $0.value(forKey: "title") as? String ?? "?" }.sorted()
        }
        print("REVIEW books:", titles)
        #expect(titles == ["Dune", "God Emperor"])
        _ = observation
    }

    // Sort key through a nil to-one to a to-many aggregate: pending object vs SQL rows.
    @Test func aggregateSortKeyThroughNilToOne() throws {
        let library = try FetchTestLibrary()
        let context = library.context
        try context.performAndWait {
            let request = FetchRequest(entityName: "Book", sortDescriptors: [SortDescriptor("author.books.@count"), SortDescriptor("title")])
            let before = try library.titles(context.fetch(request))
            let anon = try #require(context.fetch(FetchRequest(entityName: "Book", predicate: try Predicate(format: "title == 'anonymous notes'"))).first)
            try anon.setValue("anonymous notes", forKey: "isbn")  // a change irrelevant to order
            let after = try library.titles(context.fetch(request))
            print("REVIEW before:", before, "after:", after)
            #expect(before == after)
            let p = try Predicate(format: "author.books.@count == 0")
            let sqlCount = try context.count(for: FetchRequest(entityName: "Book", predicate: p))
            print("REVIEW count author.books.@count == 0 with pending:", sqlCount)
        }
    }

    // Prefetch of a to-many over pending delete of a member (No Action?) and dictionary sort by alias without resultType.
    @Test func dictionaryAliasSortWithoutResultType() throws {
        let library = try FetchTestLibrary()
        var request = FetchRequest(entityName: "Book")
        request.propertiesToFetch = try FetchedProperty.list("author.name as who, count(*) as n")
        request.propertiesToGroupBy = ["author.name"]
        request.sortDescriptors = [SortDescriptor("n")]
        do {
            let rows = try library.store.withConnection { try library.store.fetchDictionaries(request) }
            print("REVIEW rows:", rows.count)
        } catch {
            print("REVIEW alias sort error:", error)
        }
        request.resultType = .dictionary
        let rows = try library.store.withConnection { try library.store.fetchDictionaries(request) }
        print("REVIEW rows with .dictionary:", rows.map { ($0["who"], $0["n"]) })
    }

    // Stored rows sorted by related object's saved value vs pending.
    @Test func sortByRelatedPendingValue() throws {
        let library = try FetchTestLibrary()
        let context = library.context
        try context.performAndWait {
            let herbert = try #require(context.fetch(FetchRequest(entityName: "Author", predicate: try Predicate(format: "name == 'Herbert'"))).first)
            try herbert.setValue("Zzz", forKey: "name")
            let dune = try #require(context.fetch(FetchRequest(entityName: "Book", predicate: try Predicate(format: "title == 'Dune'"))).first)
            try dune.setValue(5.0, forKey: "rating")
            let request = FetchRequest(entityName: "Book", predicate: try Predicate(format: "author != nil"), sortDescriptors: [SortDescriptor("author.name"), SortDescriptor("title")])
            print("REVIEW related:", try library.titles(context.fetch(request)))
        }
    }
}
