import Foundation
import Testing

/// The example Library (examples/Library): its model, its records, and a store made of them as
/// a user makes one, `strata import Author --create library.json` (2 authors, 3 books, 2 pages,
/// 2 tags). The command suites that run on such a store make it here.
enum LibraryExample {
    static let model = StrataRunner.repositoryRoot.appendingPathComponent("examples/Library/Library.xcdatamodeld").path
    static let payload = StrataRunner.repositoryRoot.appendingPathComponent("examples/Library/library.json").path

    /// Imports the example's records into a new store at `path`, which a test's
    /// `TemporaryFolder` holds (and removes), and returns `path`.
    ///
    /// - Throws: when the import fails, with its standard error recorded as the test's issue.
    @discardableResult
    static func importedStore(at path: String) throws -> String {
        let imported = try StrataRunner.run(["import", "Author", "--create", payload, "--store", path, "--model", model])
        try #require(imported.status == 0, "\(imported.standardError)")
        return path
    }
}
