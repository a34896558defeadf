import Foundation
import Strata
import Testing
import StrataTestSupport

/// `strata diff OLD NEW` on two stores of the example Library, both imported from
/// library.json (2 authors, 3 books, 2 pages, 2 tags), the new one then changed by a script.
@Suite struct DiffCommandTests {
    let folder: TemporaryFolder
    let old: String
    let new: String

    static let lordOfTheRings = "9780261103252", hobbit = "9780261102217", earthsea = "9780547773742"

    init() throws {
        folder = try TemporaryFolder()
        old = folder.url.appendingPathComponent("Old.sqlite").path
        new = folder.url.appendingPathComponent("New.sqlite").path
        for store in [old, new] {
            try LibraryExample.importedStore(at: store)
        }
    }

    private func diff(_ arguments: [String] = []) throws -> StrataRunner.Result {
        try StrataRunner.run(["diff", old, new] + arguments)
    }

    /// Runs Lua on the new store and saves.
    private func change(_ lua: String) throws {
        let result = try StrataRunner.run(["eval", lua + " ctx:save()", "--store", new, "--model", LibraryExample.model])
        #expect(result.status == 0, "\(result.standardError)")
    }

    /// A rating changed, a book deleted, a tag added, a book moved to another author, a book's tags narrowed.
    private func changeTheNewStore() throws {
        try change("""
            ctx:first("Book", "isbn == %@", "\(Self.lordOfTheRings)").rating = 3.5
            ctx:first("Book", "isbn == %@", "\(Self.hobbit)"):delete()
            ctx:create("Tag", {name = "epic"})
            local earthsea = ctx:first("Book", "isbn == %@", "\(Self.earthsea)")
            earthsea.author = ctx:first("Author", "remoteID == 1")
            earthsea.tags = {ctx:first("Tag", "name == %@", "fantasy")}
            """)
    }

    @Test func storesHoldingTheSameObjectsAreEqualWithExitStatusZero() throws {
        let result = try diff()
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardError.isEmpty, "\(result.standardError)")
        #expect(result.standardOutput.hasSuffix("no differences\n"), "\(result.standardOutput)")
        #expect(!result.standardOutput.contains("\n+ ") && !result.standardOutput.contains("\n~ "), "\(result.standardOutput)")
        let json = try diff(["--format", "json"])
        #expect(json.status == 0)
        #expect(try object(json.standardOutput)["equal"] as? Bool == true, "\(json.standardOutput)")
    }

    @Test func addedRemovedAndChangedObjectsAndLinksAreFoundByIdentity() throws {
        try changeTheNewStore()
        let result = try diff()
        #expect(result.status == 1, "\(result.standardError)")
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.prefix(2) == ["--- \(old)", "+++ \(new)"], "\(result.standardOutput)")
        #expect(lines.contains("~ Book isbn=\"\(Self.lordOfTheRings)\"  rating: 4.9 -> 3.5"), "\(result.standardOutput)")
        #expect(lines.contains("- Book isbn=\"\(Self.hobbit)\""), "\(result.standardOutput)")
        #expect(lines.contains("+ Tag name=\"epic\""), "\(result.standardOutput)")
        // Links by the identity of the objects they point to: the author's remoteID, the tags' names.
        let earthsea = lines.first { $0.hasPrefix("~ Book isbn=\"\(Self.earthsea)\"") }
        #expect(earthsea?.contains("author: 2 -> 1") == true, "\(result.standardOutput)")
        #expect(earthsea?.contains("tags: [\"classic\",\"fantasy\"] -> [\"fantasy\"]") == true, "\(result.standardOutput)")
        // The to-many side of a link with a to-one inverse is not reported again.
        #expect(!result.standardOutput.contains("~ Author"), "\(result.standardOutput)")
        #expect(!result.standardOutput.contains("~ Page") && !result.standardOutput.contains("- Page"), "Pages are unchanged")
        #expect(result.standardOutput.hasSuffix("1 added, 1 removed, 2 changed\n"), "\(result.standardOutput)")
        #expect(lines.contains { $0.hasPrefix("Book ") && $0.contains("isbn") }, "the summary names what Book is matched by")
    }

    @Test func jsonHasTheDifferencesAndTheNumbersPerEntity() throws {
        try changeTheNewStore()
        let result = try diff(["--format", "json"])
        #expect(result.status == 1, "\(result.standardError)")
        let json = try object(result.standardOutput)
        #expect(json["old"] as? String == old && json["new"] as? String == new)
        #expect(json["equal"] as? Bool == false)
        let entities = try #require(json["entities"] as? [[String: Any]])
        #expect(entities.map { $0["entity"] as? String } == ["Author", "Book", "EBook", "Page", "Tag"])
        let book = try #require(entities.first { $0["entity"] as? String == "Book" })
        #expect(book["matchedBy"] as? String == "isbn")
        #expect((book["old"] as? Int, book["new"] as? Int) == (3, 2))
        #expect((book["added"] as? Int, book["removed"] as? Int, book["changed"] as? Int) == (0, 1, 2))
        let differences = try #require(json["differences"] as? [[String: Any]])
        #expect(differences.count == 4)
        let rating = try #require(differences.first { ($0["key"] as? [String: Any])?["isbn"] as? String == Self.lordOfTheRings })
        #expect(rating["entity"] as? String == "Book" && rating["change"] as? String == "changed")
        let changes = try #require(rating["changes"] as? [String: [String: Any]])
        #expect(changes.keys.sorted() == ["rating"])
        #expect((changes["rating"]?["old"] as? Double, changes["rating"]?["new"] as? Double) == (4.9, 3.5))
        #expect(rating["oldPK"] is Int && rating["newPK"] is Int)
        let removed = try #require(differences.first { $0["change"] as? String == "removed" })
        #expect(removed["newPK"] == nil && removed["changes"] == nil)

        let ndjson = try diff(["--format", "ndjson"])
        #expect(ndjson.status == 1)
        let records = ndjson.standardOutput.split(separator: "\n")
        #expect(records.count == 4, "\(ndjson.standardOutput)")
        for record in records { #expect(try object(String(record))["entity"] is String) }

        let summary = try diff(["--summary"])
        #expect(summary.status == 1)
        #expect(!summary.standardOutput.contains("~ ") && summary.standardOutput.hasSuffix("1 added, 1 removed, 2 changed\n"), "\(summary.standardOutput)")
    }

    /// The merge must order keys as SQLite does (bytes, not Swift's string order), or equal
    /// objects would read as one removed and one added.
    @Test func keysMatchWhateverTheirCaseAndScript() throws {
        let names = "{'Zeta', 'alpha', 'Émile', 'ε', '10', '9', 'a b', 'a\\u{0}b', 'ａ'}"
        for store in [old, new] {
            let created = try StrataRunner.run([
                "eval", "for _, n in ipairs(\(names)) do ctx:create('Tag', {name = n}) end ctx:save()", "--store", store, "--model", LibraryExample.model])
            #expect(created.status == 0, "\(created.standardError)")
        }
        let equal = try diff(["--format", "ndjson"])
        #expect(equal.status == 0 && equal.standardOutput.isEmpty, "\(equal.standardOutput)")
        try change("ctx:first('Tag', 'name == %@', 'Émile'):delete()")
        let one = try diff(["--format", "ndjson"])
        #expect(one.status == 1)
        #expect(one.standardOutput == #"{"entity":"Tag","change":"removed","key":{"name":"Émile"},"oldPK":5}"# + "\n", "\(one.standardOutput)")
    }

    /// Pages have no identity attribute: they are matched by primary key.
    @Test func objectsOfAnEntityWithoutIdentityAreMatchedByPrimaryKey() throws {
        try change("for _, page in ipairs(ctx:fetch('Page')) do page:delete() end")
        let result = try diff(["--format", "json"])
        #expect(result.status == 1)
        let page = try #require((try object(result.standardOutput)["entities"] as? [[String: Any]])?.first { $0["entity"] as? String == "Page" })
        #expect(page["matchedBy"] as? String == "Z_PK")
        #expect((page["removed"] as? Int, page["old"] as? Int, page["new"] as? Int) == (2, 2, 0))
    }

    @Test func aStoreThatCannotBeReadIsExitStatusTwoNotOne() throws {
        let missing = try StrataRunner.run(["diff", old, folder.url.appendingPathComponent("Nope.sqlite").path])
        #expect(missing.status == 2)
        #expect(missing.standardError.contains("Nope.sqlite: no such store"), "\(missing.standardError)")
        #expect(missing.standardOutput.isEmpty)

        let text = folder.url.appendingPathComponent("notes.txt").path
        try "not a store".write(toFile: text, atomically: true, encoding: .utf8)
        let notAStore = try StrataRunner.run(["diff", old, text])
        #expect(notAStore.status != 0 && notAStore.status != 1, "\(notAStore.standardError)")
        #expect(notAStore.standardError.contains("notes.txt"), "\(notAStore.standardError)")

        let withStore = try StrataRunner.run(["diff", old, new, "--store", old])
        #expect(withStore.status == 2)
        #expect(withStore.standardError.contains("strata diff OLD NEW"), "\(withStore.standardError)")
    }

    private func object(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "\(text)")
    }
}
