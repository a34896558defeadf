import Foundation
import Testing
@testable import Strata

@Suite struct ZZReviewScratchTests {
    @Test func prefetchDuplicates() throws {
        let library = try FetchTestLibrary()
        let context = library.context
        try context.performAndWait {
            var request = FetchRequest(entityName: "Book", predicate: try Predicate(format: "author.name == 'Tolkien'"))
            request.relationshipKeyPathsForPrefetching = ["author.books.pages"]
            _ = try context.fetch(request)
            print("REVIEW prefetched ok")
        }
    }

    @Test func overflowLimitOffset() async {
        await #expect(processExitsWith: .failure) {
            let library = try FetchTestLibrary()
            let context = library.context
            try context.performAndWait {
                _ = try library.fixture.book("Zed", isbn: "9780000000999")
                var request = FetchRequest(entityName: "Book")
                request.fetchLimit = Int.max
                request.fetchOffset = 1
                _ = try context.fetch(request)
            }
        }
    }
}
