import Foundation
@testable import Strata

/// A small saved library for fetch tests: three authors, eight books (two of them e-books),
/// pages and tags, with some values nil.
struct FetchTestLibrary {
    let fixture: LibraryFixture
    var context: ObjectContext { fixture.context }
    var store: PersistentStore { fixture.store }

    static let books: [(title: String, rating: Double?, author: Int?, ebook: Bool, pages: Int, tags: [Int])] = [
        ("The Hobbit", 4.5, 0, false, 3, [0, 1]),
        ("the Silmarillion", 3.0, 0, true, 1, [0]),
        ("The Lord of the Rings", 5.0, 0, false, 2, [0, 1, 3]),
        ("A Wizard of Earthsea", 4.0, 1, false, 0, [0]),
        ("The Dispossessed", nil, 1, true, 2, [2]),
        ("Dune", 4.5, 2, false, 4, [2, 1]),
        ("Children of Dune", 3.5, 2, false, 0, [2]),
        ("anonymous notes", nil, nil, false, 1, []),
    ]

    init(model: ObjectModel? = nil) throws {
        let fixture = try LibraryFixture(model: model)
        self.fixture = fixture
        let context = fixture.context
        try context.performAndWait {
            let authors = try [("Tolkien", 1892), ("Le Guin", 1929), ("Herbert", 1920)].enumerated().map { index, entry in
                let author = try context.insert("Author")
                try author.setValue(entry.0, forKey: "name")
                try author.setValue(Int64(index + 1), forKey: "remoteID")
                try author.setValue(Calendar(identifier: .gregorian).date(from: DateComponents(year: entry.1, month: 1, day: 3)), forKey: "born")
                return author
            }
            let tags = try ["Fantasy", "Classic", "Sci-Fi", "Epic"].map { name in
                let tag = try context.insert("Tag")
                try tag.setValue(name, forKey: "name")
                return tag
            }
            for (index, entry) in Self.books.enumerated() {
                let book = try context.insert(entry.ebook ? "EBook" : "Book")
                try book.setValue(entry.title, forKey: "title")
                try book.setValue(String(format: "978%010d", index), forKey: "isbn")
                try book.setValue(entry.rating, forKey: "rating")
                if let author = entry.author { try book.setValue(authors[author], forKey: "author") }
                for tag in entry.tags { try book.add(tags[tag], toKey: "tags") }
                for number in 0..<entry.pages {
                    let page = try context.insert("Page")
                    try page.setValue(number + 1, forKey: "number")
                    try book.add(page, toKey: "pages")
                }
                if entry.ebook { try book.setValue("epub", forKey: "format") }
            }
            try context.save()
            context.reset()
        }
    }

    /// The titles of fetched books, in order.
    func titles(_ objects: [ManagedObject]) throws -> [String] {
        try objects.map { try $0.value(forKey: "title") as? String ?? "?" }
    }
}
