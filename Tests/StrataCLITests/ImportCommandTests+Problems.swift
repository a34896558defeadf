import Foundation
import Strata
import Testing
import StrataTestSupport

/// `strata import` says when all is not well (issue 34): links to objects that do not exist,
/// records fed to the wrong entity, and a mistyped --store.
extension ImportCommandTests {
    /// A store of the example Library holding the example's records, in `folder`.
    private func libraryStore(in folder: TemporaryFolder) throws -> String {
        try LibraryExample.importedStore(at: folder.path("Library.sqlite"))
    }

    /// Regression: unresolved links were listed on standard output with exit status 0. They
    /// refuse the import: each is listed on standard error with its record, nothing is saved
    /// and the exit status is 3 (the store as it was), unless --allow-unresolved, which saves
    /// the import with those links unset and still lists them.
    @Test func unresolvedLinksRefuseTheImportUnlessAllowed() throws {
        let folder = try TemporaryFolder()
        let store = try libraryStore(in: folder)
        let books = Data(#"[{"isbn": "9780000000001", "title": "Linked", "author_id": 999}, {"isbn": "9780000000002", "title": "Plain"}, {"isbn": "9780000000004", "title": "Other", "author_id": 997}]"#.utf8)
        let before = BadInputTests.checksum(store)

        let refused = try StrataRunner.run(["import", "Book", "-", "--store", store], input: books)
        #expect(refused.status == 3)
        #expect(refused.standardOutput == "", "\(refused.standardOutput)")
        #expect(refused.standardError == """
            unresolved Book.author: 999 (record 1)
            unresolved Book.author: 997 (record 3)
            strata: 2 links named no object (--allow-unresolved saves the import with them unset); nothing was imported, the store is as it was

            """, "\(refused.standardError)")
        #expect(BadInputTests.checksum(store) == before)

        let dry = try StrataRunner.run(["import", "Book", "-", "--store", store, "--dry-run"], input: books)
        #expect(dry.status == 3)
        #expect(BadInputTests.checksum(store) == before)

        let imported = try StrataRunner.run(["import", "Book", "-", "--store", store, "--allow-unresolved"], input: books)
        #expect(imported.status == 0, "\(imported.standardError)")
        #expect(imported.standardOutput == "Book: 3 created\n", "\(imported.standardOutput)")
        #expect(imported.standardError == "unresolved Book.author: 999 (record 1)\nunresolved Book.author: 997 (record 3)\n", "\(imported.standardError)")
        #expect(try rows(store, "SELECT ZTITLE, ZAUTHOR FROM ZBOOK WHERE ZISBN IN ('9780000000001', '9780000000002') ORDER BY ZISBN")
            == [[.text("Linked"), .null], [.text("Plain"), .null]])

        let accepted = try StrataRunner.run(
            ["import", "Book", "-", "--store", store, "--allow-unresolved", "--report", "json"],
            input: Data(#"{"isbn": "9780000000003", "title": "Accepted", "author_id": 998}"#.utf8))
        #expect(accepted.status == 0, "\(accepted.standardError)")
        let report = try JSONReader.parse(Data(accepted.standardOutput.utf8))
        #expect(report["unresolvedLinks"]?.arrayValue?.compactMap(\.stringValue) == ["Book.author: 998 (record 1)"], "\(accepted.standardOutput)")
        #expect(try rows(store, "SELECT COUNT(*) FROM ZBOOK WHERE ZISBN = '9780000000003'")[0][0] == .integer(1))
    }

    /// Keys that no property reads (a misspelt key) refuse the import, each named with the
    /// first record holding it, unless --allow-unknown-keys; a store made for the import goes.
    @Test func unknownKeysRefuseTheImportUnlessAllowed() throws {
        let folder = try TemporaryFolder()
        let store = try libraryStore(in: folder)
        let before = BadInputTests.checksum(store)
        let tags = Data(#"[{"name": "plain"}, {"name": "new", "colour": "red"}, {"name": "newer", "colour": "blue", "size": 2}]"#.utf8)

        let refused = try StrataRunner.run(["import", "Tag", "-", "--store", store], input: tags)
        #expect(refused.status == 3)
        #expect(refused.standardError == """
            ignored key Tag.colour: no property reads it (first in record 2)
            ignored key Tag.size: no property reads it (first in record 3)
            strata: 2 keys no property reads (--allow-unknown-keys saves the import without them); nothing was imported, the store is as it was

            """, "\(refused.standardError)")
        #expect(BadInputTests.checksum(store) == before)

        let fresh = folder.url.appendingPathComponent("Fresh.sqlite").path
        let intoNew = try StrataRunner.run(["import", "Tag", "-", "--store", fresh, "--model", Self.model, "--create"], input: tags)
        #expect(intoNew.status == 3, "\(intoNew.standardError)")
        #expect(!FileManager.default.fileExists(atPath: fresh))

        let accepted = try StrataRunner.run(["import", "Tag", "-", "--store", store, "--allow-unknown-keys"], input: tags)
        #expect(accepted.status == 0, "\(accepted.standardError)")
        #expect(accepted.standardOutput == "Tag: 3 created\n", "\(accepted.standardOutput)")
        #expect(accepted.standardError.hasPrefix("ignored key Tag.colour: no property reads it (first in record 2)\n"), "\(accepted.standardError)")
        #expect(try rows(store, "SELECT COUNT(*) FROM ZTAG WHERE ZNAME IN ('plain', 'new', 'newer')")[0][0] == .integer(3))
    }

    /// Regression: records fed to the wrong entity made objects of it ("3 created … ignored
    /// keys", exit status 0). When no key of any record fits the entity, the import is refused
    /// before anything is saved, naming the entity and the keys: --prune deletes nothing, and a
    /// store made for the import goes again.
    @Test func recordsFedToTheWrongEntityAreRefusedAndTheStoreLeftAsItWas() throws {
        let folder = try TemporaryFolder()
        let store = try libraryStore(in: folder)
        let books = Data(#"[{"isbn": "9780000000001", "title": "A"}, {"isbn": "9780000000002", "title": "B", "rating": 4}]"#.utf8)
        let before = BadInputTests.checksum(store)

        let wrong = try StrataRunner.run(["import", "Tag", "-", "--store", store, "--prune"], input: books)
        #expect(wrong.status == 3)
        #expect(wrong.standardError == "strata: Tag reads none of the records' keys (isbn, rating, title); nothing was imported: are they records of another entity?\n",
                "\(wrong.standardError)")
        #expect(wrong.standardOutput == "")
        #expect(BadInputTests.checksum(store) == before)

        let fresh = folder.url.appendingPathComponent("Fresh.sqlite").path
        let intoNew = try StrataRunner.run(["import", "Tag", "-", "--store", fresh, "--model", Self.model, "--create"], input: books)
        #expect(intoNew.status == 3, "\(intoNew.standardError)")
        #expect(!FileManager.default.fileExists(atPath: fresh))
    }

    /// Regression: a mistyped --store with --model made a new store. A missing store is refused
    /// unless --create is given (with --model), as run, eval and shell refuse it.
    @Test func aMissingStoreIsRefusedUnlessCreateIsGiven() throws {
        let folder = try TemporaryFolder()
        let mistyped = folder.url.appendingPathComponent("Libary.sqlite").path
        let refused = try StrataRunner.run(["import", "Author", Self.payload, "--store", mistyped, "--model", Self.model])
        #expect(refused.status == 1)
        #expect(refused.standardError == "strata: \(mistyped): no such store; pass --create (with --model) to make one\n", "\(refused.standardError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).isEmpty)

        let withoutModel = try StrataRunner.run(["import", "Author", Self.payload, "--store", mistyped, "--create"])
        #expect(withoutModel.status == 2)
        #expect(withoutModel.standardError.contains("--create needs --model (or STRATA_MODEL)"), "\(withoutModel.standardError)")
        #expect(!FileManager.default.fileExists(atPath: mistyped))

        let created = try StrataRunner.run(["import", "Author", Self.payload, "--store", mistyped, "--model", Self.model, "--create"])
        #expect(created.status == 0, "\(created.standardError)")
        #expect(try rows(mistyped, "SELECT COUNT(*) FROM ZAUTHOR")[0][0] == .integer(2))
    }
}
