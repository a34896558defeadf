import Foundation
import Strata
import StrataTestSupport
import Testing

/// The README's Swift examples, as written there, compiled in a file that imports Foundation
/// and run on the example model. `everyReadmeExampleIsHere` keeps the two in step.
@Suite struct ReadmeExampleTests {
    /// What a typed subclass of the example model looks like, written by hand as a user may.
    final class Author: ManagedObject, @unchecked Sendable {
        override class var entityName: String { "Author" }
        @Attribute("name") var name: String?
        @ToMany("books") var books: [Book]
    }

    final class Book: ManagedObject, @unchecked Sendable {
        override class var entityName: String { "Book" }
        @Attribute("title") var title: String?
        @ToOne("author") var author: Author?
    }

    @Test func theSwiftExamplesCompileBesideFoundationAndRun() async throws {
        let bundle = try ModelLoader.load(URL(fileURLWithPath: "examples/Library/Library.xcdatamodeld"))
        let model = try bundle.currentVersion.model
        for issue in model.validate() { print(issue) }
        print(model.entityVersionHashes()["Book"]!.base64EncodedString())

        let stack = try DataStack(modelAt: URL(fileURLWithPath: "examples/Library/Library.xcdatamodeld"), store: .inMemory)
        try await stack.save(inBackground: { context in
            try context.insert("Tag").setValue("fantasy", forKey: "name")
        })

        let context = stack.newWorkerContext()
        try await context.perform {
            let author = try context.insert("Author")
            try author.setValue("Ursula K. Le Guin", forKey: "name")
            let book = try context.insert("Book")
            try book.setValue("A Wizard of Earthsea", forKey: "title")
            try book.setValue("9780547773742", forKey: "isbn")
            try book.setValue(author, forKey: "author")      // author's books now hold it too
            try context.commit()                             // validated; saves the chain to the store
        }
        #expect(try stack.store.count(of: "Book") == 1)

        stack.register([Author.self, Book.self])
        let shelved = try context.performAndWait {
            let tolkien = try Author(context: context)
            tolkien.name = "J. R. R. Tolkien"
            try tolkien.setValue(2, forKey: "remoteID")    // unique, and 0 is the first author's
            let book = try Book(context: context)
            book.title = "The Lord of the Rings"
            book.author = tolkien              // tolkien.books now holds it too
            #expect(tolkien.books.map(\.title) == ["The Lord of the Rings"])
            try book.setValue("9780544003415", forKey: "isbn")
            try context.commit()
            return book
        }

        let book = shelved
        try await context.perform { _ = try context.insert("Tag").setValue("classic", forKey: "name") }
        try stack.beginUpdateAndWait { update in
            let own = try update.use(book)                   // book belongs to another context
            try own.setValue(5.0, forKey: "rating")
            try update.commit()
        }
        context.commit { error in
            if let error { print("not saved: \(error)") }
        }
        // The context's queue runs blocks in order: this one runs after the commit.
        let tags = try await context.perform { try stack.store.count(of: "Tag") }
        #expect(tags == 2)

        let found = try await context.perform {
            var request = FetchRequest(entityName: "Book", predicate: try ObjectPredicate(format: "ANY tags.name ==[c] %@", "classic"))
            request.sortDescriptors = [ObjectSortDescriptor("author.name", caseInsensitive: true), ObjectSortDescriptor("rating", ascending: false)]
            request.fetchLimit = 20
            let books = try context.fetch(request)            // also fetchObjectIDs, count(for:), execute

            let rated = %"rating" >= 4 && %"tags.name"%.any == "Classic"             // the same ObjectPredicate type
            let newest = try context.find(.firsts(5), "Book", where: rated, sortedBy: [ObjectSortDescriptor("published", ascending: false)])
            let tag = try context.fetchOrCreate("Tag", matching: ["name": "fantasy"])
            let rows = try context.query("Book", select: "author.name as author, avg(rating) as mean, count(*)",
                                         groupBy: ["author.name"], having: try ObjectPredicate(format: "count > 1"))
            let byTemplate = try model.fetchRequest(fromTemplate: "BooksByAuthor", substitutionVariables: ["NAME": "Le Guin"])
            return (books.count, newest.count, tag.objectID.isTemporary, rows.count, try context.count(for: byTemplate))
        }
        #expect(found == (0, 0, false, 0, 0))
        let rating = try await context.perform { try context.find(.all, "Book", where: ObjectPredicate(format: "rating == 5")).count }
        #expect(rating == 1, "the update's commit reached the store")
    }

    /// The persistent history example: a widget's save, read and merged by the app, then history
    /// older than a week deleted (none is, so the widget's transaction stays).
    @Test func theHistoryExampleRuns() async throws {
        var options = DataStack.Options()
        options.tracksPersistentHistory = true
        let stack = try DataStack(modelAt: URL(fileURLWithPath: "examples/Library/Library.xcdatamodeld"), store: .inMemory, options: options)
        let lastToken = try stack.store.currentHistoryToken()
        // The author goes on the context that saves to the store, as in Core Data.
        let widget = ObjectContext(store: stack.store, name: "widget")
        try widget.performAndWait {
            widget.transactionAuthor = "widget"
            try widget.insert("Tag").setValue("from the widget", forKey: "name")
            try widget.save()
        }
        let context = stack.newWorkerContext()
        let merged = try context.performAndWait {
            let store = stack.store
            let token = try store.currentHistoryToken()                       // where the app stands
            var request = PersistentHistoryChangeRequest.fetchHistory(after: lastToken)
            request.author = "widget"
            for transaction in try context.execute(request).transactions {
                context.mergeChanges(from: transaction)                       // as a did-save notification
            }
            try context.execute(.deleteHistory(before: Date(timeIntervalSinceNow: -7 * 86_400)))
            #expect(token != lastToken)
            return try context.execute(PersistentHistoryChangeRequest.fetchHistory(after: lastToken)).transactions.map(\.author)
        }
        #expect(merged == ["widget"])
    }

    /// The streaming import example: an NDJSON file of two books into a new store.
    @Test func theStreamingImportExampleRuns() throws {
        let stack = try DataStack(modelAt: URL(fileURLWithPath: "examples/Library/Library.xcdatamodeld"), store: .inMemory)
        let folder = try TemporaryFolder()
        let booksFile = folder.url.appendingPathComponent("books.ndjson")
        try Data("""
            {"isbn": "9780547773742", "title": "A Wizard of Earthsea"}
            {"isbn": "9780544003415", "title": "The Lord of the Rings"}

            """.utf8).write(to: booksFile)
        var books = StreamingImport(entity: "Book", batchSize: 5_000)   // JSON, NDJSON or CSV: by the file
        books.pruning = .all                                            // as --prune
        books.progress = { print("\($0.recordsImported) records") }     // after each saved batch
        let report = try books.run([.file(booksFile)], into: stack.store)
        print(report)                                                   // Book: 2 created
        #expect(report.description == "Book: 2 created")
        #expect(try stack.store.count(of: "Book") == 2)
    }

    @Test func everyReadmeExampleIsHere() throws {
        let readme = try String(contentsOf: URL(fileURLWithPath: "README.md"), encoding: .utf8)
        let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
        let sourceLines = Self.codeLines(source)
        let imports = Set(sourceLines.filter { $0.hasPrefix("import ") })
        let blocks = readme.components(separatedBy: "```swift\n").dropFirst().map { $0.components(separatedBy: "\n```")[0] }
        #expect(blocks.count == 7)
        for block in blocks {
            let lines = Self.codeLines(block)
            #expect(lines.filter { $0.hasPrefix("import ") }.allSatisfy(imports.contains), "\(block)")
            let body = lines.filter { !$0.hasPrefix("import ") }
            let found = sourceLines.indices.contains { start in sourceLines[start...].starts(with: body) }
            #expect(found, "this README example is not in ReadmeExampleTests.swift as written:\n\(block)")
        }
    }

    /// The non-empty lines of `text`, without their indentation.
    private static func codeLines(_ text: String) -> [String] {
        text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}
