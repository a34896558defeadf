import Foundation
import Strata
import StrataTestSupport

/// A Library store (examples/Library) made in a temporary folder of its own, removed with the
/// value: one author with three books (A rated 0.5 with 3 pages, B 1.5 with 2, C 4.5 with 2).
final class SeededLibraryStore {
    /// Removed with the value.
    private let temporary: TemporaryFolder
    var folder: URL { temporary.url }
    let model = StrataRunner.repositoryRoot.appendingPathComponent(ModelCommandTests.example)
    let path: String

    init() throws {
        temporary = try TemporaryFolder("strata-seeded")
        path = temporary.path("Library.sqlite")
        let store = try PersistentStore.create(at: path, model: ModelLoader.load(model).currentVersion.model)
        defer { store.close() }
        try Self.seed(store)
    }

    /// Saves the author, books and pages described above into `store`, a store of the Library
    /// model: what the command tests that build their store otherwise start from too.
    static func seed(_ store: PersistentStore) throws {
        let context = ObjectContext(store: store)
        try context.performAndWait {
            let author = try context.insert("Author")
            try author.setValue("Le Guin", forKey: "name")
            for (title, isbn, rating, pages) in [("A", "9780000000001", 0.5, 3), ("B", "9780000000002", 1.5, 2), ("C", "9780000000003", 4.5, 2)] {
                let book = try context.insert("Book")
                try book.setValue(title, forKey: "title")
                try book.setValue(isbn, forKey: "isbn")
                try book.setValue(rating, forKey: "rating")
                try book.setValue(author, forKey: "author")
                for number in 1...pages {
                    let page = try context.insert("Page")
                    try page.setValue(number, forKey: "number")
                    try book.add(page, toKey: "pages")
                }
            }
            try context.save()
        }
    }

    /// The store's bytes, its -wal's included, to show that a command changed nothing.
    func contents() throws -> Data {
        let wal = path + "-wal"
        return try Data(contentsOf: URL(fileURLWithPath: path))
            + (FileManager.default.fileExists(atPath: wal) ? try Data(contentsOf: URL(fileURLWithPath: wal)) : Data())
    }

    /// The rows `sql` reads from the store, through a read-only connection of the test's own.
    func rows(_ sql: String, _ arguments: [DatabaseValue] = []) throws -> [[DatabaseValue]] {
        let database = try Database(path: path, configuration: .readOnly)
        defer { database.close() }
        return try database.rows(sql, arguments)
    }
}
