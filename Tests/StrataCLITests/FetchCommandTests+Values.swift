import Foundation
import Strata
import Testing
import StrataTestSupport

/// How `fetch` shows values a user reads (issue 34): doubles as `sqlite3` prints them, the row's
/// identity whole on a narrow terminal, a key path through a to-many as its members' values.
extension FetchCommandTests {
    /// A store of the example Library model: books with `ratings` (in order, titles `b0`, `b1`…)
    /// and tags, `b0` tagged `classic` and `fantasy`, `b1` `classic`, the others none.
    private func ratedStore(in folder: TemporaryFolder, ratings: [Double]) throws -> String {
        let model = try ModelLoader.load(StrataRunner.repositoryRoot.appendingPathComponent("examples/Library/Library.xcdatamodeld")).currentVersion.model
        let path = folder.url.appendingPathComponent("Rated.sqlite").path
        let store = try PersistentStore.create(at: path, model: model)
        defer { store.close() }
        let context = ObjectContext(store: store, name: "seed")
        try context.performAndWait {
            let classic = try context.insert("Tag"), fantasy = try context.insert("Tag")
            try classic.setValue("classic", forKey: "name")
            try fantasy.setValue("fantasy", forKey: "name")
            for (index, rating) in ratings.enumerated() {
                let book = try context.insert("Book")
                try book.setValue("b\(index)", forKey: "title")
                try book.setValue("012345678\(index)", forKey: "isbn")
                try book.setValue(rating, forKey: "rating")
                if index == 0 { try book.setValue([classic, fantasy], forKey: "tags") }
                if index == 1 { try book.setValue([classic], forKey: "tags") }
            }
            try context.save()
        }
        return path
    }

    /// `1.6 * 3` is 4.800000000000001: a table shows it as `sqlite3` does, `4.8`, while JSON and
    /// CSV, which are read back, keep the exact double.
    @Test func tablesShowDoublesAsSQLite3Does() throws {
        let folder = try TemporaryFolder()
        let noisy = 1.6 * 3
        #expect(noisy != 4.8)
        let ratings: [Double] = [4.8, noisy, 3, 0.1 + 0.2]
        let expected = ratings.map(Optional.some)
        let path = try ratedStore(in: folder, ratings: ratings)
        let database = try Database(path: path, configuration: .readOnly)
        let sqlite3 = try database.rows("SELECT ZRATING FROM ZBOOK ORDER BY ZTITLE").map { $0[0].doubleValue }
        database.close()
        #expect(sqlite3 == expected)

        let table = try StrataRunner.run(["fetch", "Book", "--store", path, "--select", "title,rating", "--sort", "title"])
        #expect(table.status == 0, "\(table.standardError)")
        #expect(table.standardOutput == "title  rating\nb0     4.8\nb1     4.8\nb2     3.0\nb3     0.3\n")
        let whole = try StrataRunner.run(["fetch", "Book", "--store", path, "--sort", "title", "--limit", "2"])
        let b1 = whole.standardOutput.split(separator: "\n").first { $0.contains(" b1 ") }
        #expect(b1?.split(separator: " ").contains("4.8") == true, "\(whole.standardOutput)")
        #expect(!whole.standardOutput.contains("4.80000"), "\(whole.standardOutput)")

        for format in ["json", "ndjson"] {
            let result = try StrataRunner.run(["fetch", "Book", "--store", path, "--select", "rating", "--sort", "title", "--format", format])
            #expect(result.status == 0, "\(result.standardError)")
            let text = format == "json" ? result.standardOutput : "[" + result.standardOutput.split(separator: "\n").joined(separator: ",") + "]"
            let read = try JSONReader.parse(Data(text.utf8)).arrayValue?.map { $0["rating"]?.doubleValue }
            #expect(read == expected, "\(format): \(result.standardOutput)")
        }
        let csv = try StrataRunner.run(["fetch", "Book", "--store", path, "--select", "rating", "--sort", "title", "--format", "csv"])
        let csvRatings = csv.standardOutput.split(separator: "\r\n").dropFirst().map { line -> Double? in line.split(separator: ",").last.flatMap { Double($0) } }
        #expect(csvRatings == expected)
    }

    /// On an 80-column terminal a table of many long columns cut every one, the `object` column
    /// too (`Reci…`), so that no row could be told from another: it stays whole.
    @Test func narrowTerminalsKeepTheObjectColumnWhole() throws {
        let folder = try TemporaryFolder()
        let names = (1...10).map { "field\($0)" }
        let model = folder.url.appendingPathComponent("Recipes.json")
        let attributes = names.map { #"{"name": "\#($0)", "type": "string"}"# }.joined(separator: ", ")
        try #"{"entities": [{"name": "Recipe", "attributes": [\#(attributes)]}]}"#.write(to: model, atomically: true, encoding: .utf8)
        let path = folder.url.appendingPathComponent("Recipes.sqlite").path
        let store = try PersistentStore.create(at: path, model: try ModelLoader.load(model).currentVersion.model)
        try store.withConnection {
            try store.database.inTransaction {
                for row in 1...12 {
                    _ = try store.insert("Recipe", values: Dictionary(uniqueKeysWithValues: names.map { ($0, DatabaseValue.text("\($0) of recipe \(row), a long text")) }))
                }
            }
        }
        store.close()

        let result = try StrataRunner.runOnTerminal(["fetch", "Recipe", "--store", path, "--no-pager"], columns: 80)
        #expect(result.status == 0, "\(result.standardError)")
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.count == 13, "\(result.standardOutput)")
        #expect(lines.first?.hasPrefix("object      fiel…") == true, "\(result.standardOutput)")
        let objects: [String] = lines.dropFirst().compactMap { line in line.split(separator: " ").first.map(String.init) }
        #expect(Set(objects) == Set((1...12).map { "Recipe/p\($0)" }))
        for line in lines {
            #expect(line.count <= 80, "\(line)")
            #expect(line.contains("…"), "\(line)")
        }
        // Not on a terminal, nothing is cut.
        let piped = try StrataRunner.run(["fetch", "Recipe", "--store", path, "--where", "field1 == 'field1 of recipe 12, a long text'"])
        #expect(piped.standardOutput.contains("Recipe/p12  field1 of recipe 12, a long text  field2"), "\(piped.standardOutput)")
    }

    /// `--select title,tags.name` printed NULL for tagged books: a key path through a to-many
    /// gives its members' values, an array in JSON and NDJSON, the values in a table.
    @Test func keyPathsThroughToManysGiveTheMembersValues() throws {
        let folder = try TemporaryFolder()
        let path = try ratedStore(in: folder, ratings: [1, 2, 3])
        let result = try StrataRunner.run(["fetch", "Book", "--store", path, "--select", "title,tags.name", "--sort", "title", "--format", "json"])
        #expect(result.status == 0, "\(result.standardError)")
        let books = try JSONReader.parse(Data(result.standardOutput.utf8)).arrayValue ?? []
        #expect(books.map { $0["title"]?.stringValue } == ["b0", "b1", "b2"])
        #expect(books.map { ($0["tags.name"]?.arrayValue ?? [.null]).map { $0.stringValue ?? "not text" }.sorted() } == [["classic", "fantasy"], ["classic"], []])

        let ndjson = try StrataRunner.run(["fetch", "Book", "--store", path, "--select", "tags.name", "--where", "title == 'b1'", "--format", "ndjson"])
        let line = try JSONReader.parse(Data(ndjson.standardOutput.utf8))
        #expect(line["tags.name"]?.arrayValue?.map(\.stringValue) == ["classic"], "\(ndjson.standardOutput) \(ndjson.standardError)")

        let table = try StrataRunner.run(["fetch", "Book", "--store", path, "--select", "title,tags.name", "--where", "title != 'b0'", "--sort", "title"])
        #expect(table.standardOutput == "title  tags.name\nb1     classic\nb2\n", "\(table.standardError)")

        // Through two to-manys, the members' members, one list.
        let books2 = try StrataRunner.run(["fetch", "Book", "--store", path, "--select", "tags.books.title", "--where", "title == 'b0'", "--format", "json"])
        let titles = try JSONReader.parse(Data(books2.standardOutput.utf8)).arrayValue?.first?["tags.books.title"]?.arrayValue
        #expect(titles?.compactMap(\.stringValue).sorted() == ["b0", "b0", "b1"], "\(books2.standardOutput) \(books2.standardError)")
    }
}
