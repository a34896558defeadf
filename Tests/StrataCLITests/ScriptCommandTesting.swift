import Foundation
import StrataTestSupport
import Testing

/// What the suites of `strata run`, `eval` and `shell` share: a store of the example Library
/// (imported from library.json: 2 authors, 3 books, 2 pages, 2 tags) in the test's own folder,
/// and `strata` run on it as a user runs it.
protocol ScriptCommandTesting {
    var folder: TemporaryFolder { get }
    var store: String { get }
}

extension ScriptCommandTesting {
    /// A new folder of the test's own, holding the example Library's store.
    static func libraryStore() throws -> (folder: TemporaryFolder, store: String) {
        let folder = try TemporaryFolder()
        return (folder, try LibraryExample.importedStore(at: folder.path("Library.sqlite")))
    }

    /// Runs `strata arguments… --store … --model …`.
    func strata(_ arguments: [String], input: Data? = nil, environment: [String: String] = [:]) throws -> StrataRunner.Result {
        try StrataRunner.run(arguments + ["--store", store, "--model", LibraryExample.model], environment: environment, input: input)
    }

    /// A script file in the test's folder.
    func script(_ name: String, _ text: String) throws -> String {
        let path = folder.url.appendingPathComponent(name).path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// How Lua names the script at `path` in messages: a path longer than 59 bytes is cut
    /// to "..." and its last 56.
    func luaName(_ path: String) -> String {
        path.utf8.count <= 59 ? path : "..." + String(decoding: path.utf8.suffix(56), as: UTF8.self)
    }

    /// The titles and ratings of the saved books, and the tags' names, as `strata fetch` prints
    /// them (without the objects' URIs).
    func savedState() throws -> String {
        let books = try strata(["fetch", "Book", "--select", "title,rating", "--sort", "title", "--format", "csv"])
        let tags = try strata(["fetch", "Tag", "--select", "name", "--sort", "name", "--format", "csv"])
        #expect(books.status == 0 && tags.status == 0, "\(books.standardError)\(tags.standardError)")
        return (books.standardOutput + tags.standardOutput).split(separator: "\r\n").map { row in
            row.firstIndex(of: ",").map { String(row[row.index(after: $0)...]) } ?? String(row)
        }.joined(separator: "\n") + "\n"
    }

    func count(_ entity: String) throws -> String {
        let result = try strata(["count", entity])
        #expect(result.status == 0, "\(result.standardError)")
        return result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
