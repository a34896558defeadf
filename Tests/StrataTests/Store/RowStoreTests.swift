import Foundation
import Testing
@testable import Strata
import StrataTestSupport

@Suite struct RowStoreTests {
    let folder: TemporaryFolder
    let store: PersistentStore

    init() throws {
        folder = try TemporaryFolder()
        let model = try ModelLoader.load(Fixtures.exampleModel).currentVersion.model
        store = try PersistentStore.create(at: folder.path("Library.sqlite"), model: model)
    }

    @Test func insertReadUpdateWithVersionsAndConflicts() throws {
        let published = Date(timeIntervalSince1970: -487_468_800)
        let (author, book) = try store.database.inTransaction {
            let author = try store.insert("Author", values: ["name": .text("Tolkien"), "remoteID": .integer(1)])
            let book = try store.insert(
                "Book", values: ["title": .text("The Hobbit"), "isbn": .text("9780261102217"),
                                 "published": AttributeValue.date(published).databaseValue],
                toOne: ["author": RowReference(entityName: "Author", primaryKey: author)])
            return (author, book)
        }
        let row = try #require(try store.row("Book", primaryKey: book))
        #expect(row.version == 1 && row.entityName == "Book")
        #expect(row.values["author"] == .integer(author))
        // Seconds since 2001-01-01; SQLite's NUMERIC affinity keeps whole seconds as an integer.
        #expect(row.values["published"]?.doubleValue == published.timeIntervalSince1970 - 978_307_200)
        #expect(AttributeValue(try #require(row.values["published"]), type: .date) == .date(published))

        let version = try store.database.inTransaction {
            try store.update("Book", primaryKey: book, expectedVersion: 1, values: ["rating": .real(4.7)])
        }
        #expect(version == 2)
        #expect(try store.row("Book", primaryKey: book)?.values["rating"] == .real(4.7))
        #expect {
            try store.update("Book", primaryKey: book, expectedVersion: 1, values: ["rating": .real(1)])
        } throws: { error in
            String(describing: error).hasSuffix("Book p\(book) was changed by someone else (version 2, expected 1)")
        }
        #expect(try store.row("Book", primaryKey: book)?.values["rating"] == .real(4.7))
    }

    @Test func subEntitiesShareTheirRootsTableAndKeys() throws {
        let (book, ebook) = try store.database.inTransaction {
            (try store.insert("Book", values: ["title": .text("Paper"), "isbn": .text("1")]),
             try store.insert("EBook", values: ["title": .text("Digital"), "isbn": .text("2"), "format": .text("epub")]))
        }
        #expect(ebook == book + 1)
        #expect(try store.rows("Book").map(\.entityName) == ["Book", "EBook"])
        #expect(try store.rows("EBook").map(\.primaryKey) == [ebook])
        #expect(try store.rowCountsExcludingSubentities()["EBook"] == 1)
        #expect(try store.database.scalar("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Book'") == .integer(2))
        #expect(try store.database.inTransaction { try store.allocatePrimaryKeys(for: "Page", count: 3) } == 1...3)
        #expect(throws: DatabaseError.self) { try store.allocatePrimaryKeys(for: "Page") }
    }

    @Test func manyToManyLinksAndDeletesCleanTheJoinTable() throws {
        try store.database.inTransaction {
            let book = try store.insert("Book", values: ["title": .text("A"), "isbn": .text("1")])
            let tags = try ["fantasy", "classic"].map { try store.insert("Tag", values: ["name": .text($0)]) }
            for tag in tags { try store.link("Book", "tags", source: book, destination: tag) }
            #expect(try store.linkedKeys("Book", "tags", source: book) == tags)
            #expect(try store.linkedKeys("Tag", "books", source: tags[0]) == [book])
            try store.unlink("Tag", "books", source: tags[1], destination: book)
            #expect(try store.linkedKeys("Book", "tags", source: book) == [tags[0]])
            try store.delete("Book", primaryKey: book, expectedVersion: 1)
            #expect(try store.linkedKeys("Tag", "books", source: tags[0]).isEmpty)
        }
    }

    @Test func aFailedTransactionLeavesTheStoreAsItWas() throws {
        try store.database.inTransaction { _ = try store.insert("Tag", values: ["name": .text("kept")]) }
        #expect {
            try store.database.inTransaction {
                _ = try store.insert("Tag", values: ["name": .text("new")])
                _ = try store.insert("Tag", values: ["name": .text("kept")])  // violates the uniqueness constraint
            }
        } throws: { error in
            guard case StoreError.uniquenessConflict(_, "Tag", 3, ["name"], [.text("kept")]) = error else { return false }
            return true
        }
        #expect(try store.rows("Tag").map { $0.values["name"] } == [.text("kept")])
        #expect(try store.database.scalar("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Tag'") == .integer(1))
    }

    /// The clash is told by its code and the constraint found in the store, not read from
    /// SQLite's message: of two constraints, the one broken is named, with the values of a
    /// compound one taken from the write and from the row where the write leaves them.
    @Test func theBrokenConstraintIsFoundAmongSeveral() throws {
        var edition = EntityDescription(name: "Edition")
        edition.attributes = ["isbn", "title", "number"].map { AttributeDescription(name: $0, type: $0 == "number" ? .integer64 : .string) }
        edition.uniquenessConstraints = [["isbn"], ["title", "number"]]
        let store = try PersistentStore.create(at: folder.path("Editions.sqlite"), model: ObjectModel(entities: [edition]))
        defer { store.close() }
        let (first, second) = try store.database.inTransaction {
            (try store.insert("Edition", values: ["isbn": .text("1"), "title": .text("Dune"), "number": .integer(1)]),
             try store.insert("Edition", values: ["isbn": .text("2"), "title": .text("Dune"), "number": .integer(2)]))
        }
        #expect {
            try store.database.inTransaction { _ = try store.insert("Edition", values: ["isbn": .text("3"), "title": .text("Dune"), "number": .integer(1)]) }
        } throws: { error in
            guard case StoreError.uniquenessConflict(_, "Edition", 3, ["title", "number"], [.text("Dune"), .integer(1)]) = error else { return false }
            return true
        }
        #expect {
            try store.database.inTransaction { try store.update("Edition", primaryKey: second, expectedVersion: 1, values: ["isbn": .text("1")]) }
        } throws: { error in
            guard case StoreError.uniquenessConflict(_, "Edition", second, ["isbn"], [.text("1")]) = error else { return false }
            return true
        }
        #expect(try store.rows("Edition").count == 2 && first == 1)
    }

    @Test func unknownPropertiesAreErrorsNamingThem() {
        #expect { try store.insert("Tag", values: ["title": .text("x")]) } throws: { error in
            guard case StoreError.unknownProperty(store.path, "Tag", "title", ["name"]) = error else { return false }
            return "\(error)".hasSuffix("entity 'Tag' has no property 'title'; properties: name")
        }
    }

    @Test(arguments: [
        (AttributeValue.integer(-5), AttributeType.integer16), (.boolean(true), .boolean), (.double(0.25), .double),
        (.decimal(Decimal(string: "1234567890.12345")!), .decimal), (.decimal(Decimal(string: "0.1")!), .decimal),
        (.decimal(Decimal(string: "-99999999999999")!), .decimal), (.double(-1e-300), .float), (.integer(Int64.max), .integer64),
        (.string("x"), .string), (.date(Date(timeIntervalSinceReferenceDate: 0)), .date),
        (.uuid(UUID(uuidString: "5F3C1A2B-0000-4000-8000-0000000000FF")!), .uuid), (.binary(Data([0, 255])), .binary),
        (.uri(URL(string: "https://example.org/a?b=c")!), .uri),
    ])
    func valuesRoundTripThroughTheirColumns(value: AttributeValue, type: AttributeType) throws {
        // In the column type Core Data gives the attribute type, whose affinity may convert it.
        let table = "V_\(type.jsonName)"
        try store.database.execute("CREATE TABLE IF NOT EXISTS \(table) (X \(try #require(columnType(of: type)).sql))")
        try store.database.execute("DELETE FROM \(table)")
        try store.database.execute("INSERT INTO \(table) (X) VALUES (?)", [value.databaseValue])
        let stored = try #require(try store.database.scalar("SELECT X FROM \(table)"))
        #expect(AttributeValue(stored, type: type) == value)
    }

    /// Text that another tool wrote into a Binary column reads as its UTF-8 bytes, as Core
    /// Data's blob read gives them; it read as nil.
    @Test func textInABinaryColumnReadsAsItsBytes() {
        #expect(AttributeValue(.text("héllo"), type: .binary) == .binary(Data("héllo".utf8)))
    }
}

@Suite(.enabled(if: Fixtures.available, Fixtures.skipReason))
struct RealStoreRowTests {
    /// Rows Core Data wrote and Strata did not touch keep every byte.
    @Test func updatingOneRowLeavesCoreDataRowsUntouched() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("TavantTrade.sqlite")
        try FileManager.default.copyItem(atPath: Fixtures.store("TavantTrade.sqlite").path, toPath: path)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        let model = try ModelLoader.load(Fixtures.model("TavantTrade.xcdatamodeld")).currentVersion.model
        let store = try PersistentStore.open(at: path, model: model)
        let snapshot = "SELECT Z_PK, quote(Z_ENT), quote(Z_OPT), quote(ZCATEGORY), quote(ZNAME) FROM ZFEEDBACKSUBCATEGORY WHERE Z_PK <> 1 ORDER BY Z_PK"
        let before = try store.database.rows(snapshot)
        let original = try #require(try store.row("FeedbackSubCategory", primaryKey: 1))
        try store.database.inTransaction {
            try store.update("FeedbackSubCategory", primaryKey: 1, expectedVersion: original.version, values: ["name": .text("Renamed")])
            let key = try store.insert("FeedbackCategory", values: ["name": .text("New")])
            #expect(key == 20)
        }
        #expect(try store.database.rows(snapshot) == before)
        #expect(try store.row("FeedbackSubCategory", primaryKey: 1)?.version == original.version + 1)
        #expect(try store.rowCountsExcludingSubentities() == ["FeedbackCategory": 20, "FeedbackSubCategory": 79])
    }
}

/// What a store chose is read from the store, never rewritten.
@Suite struct ExistingLayoutTests {
    @Test func columnNamesTheStoreChoseDifferentlyAreUsed() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("Renamed.sqlite")
        let model = try ModelLoader.load(Fixtures.exampleModel).currentVersion.model
        do {
            let store = try PersistentStore.create(at: path, model: model)
            try store.database.execute("ALTER TABLE ZTAG RENAME COLUMN ZNAME TO ZNAME1")
        }
        let store = try PersistentStore.open(at: path, model: model)
        #expect(store.layout.entity(named: "Tag")?.column(for: "name") == "ZNAME1")
        let key = try store.database.inTransaction { try store.insert("Tag", values: ["name": .text("fantasy")]) }
        #expect(try store.row("Tag", primaryKey: key)?.values["name"] == .text("fantasy"))
    }

    @Test func metadataKeysStrataDoesNotKnowAreKept() throws {
        let folder = try TemporaryFolder()
        let database = try Database(path: folder.path("meta.sqlite"))
        try database.execute(StoreLayout.bookkeepingStatements[1])
        var metadata = StoreMetadata(model: ObjectModel(entities: [EntityDescription(name: "A")]), uuid: "5F3C1A2B-0000-4000-8000-000000000001")
        metadata.properties["DSm"] = .integer(1)
        metadata.properties["NSPersistenceMaximumFrameworkVersion"] = .integer(1522)
        metadata.properties["com.example.custom"] = .dictionary(["nested": .array([.date(Date(timeIntervalSinceReferenceDate: 5)), .data(Data([1]))])])
        try metadata.write(to: database)
        #expect(try StoreMetadata(reading: database) == metadata)
    }

    @Test(.enabled(if: Fixtures.available, Fixtures.skipReason))
    func realMetadataSurvivesARewrite() throws {
        let real = try StoreMetadata(reading: Fixtures.readOnlyDatabase(at: Fixtures.store("FinalCutEvent.sqlite").path))
        #expect(real.properties["DSm"] == .integer(1))
        let folder = try TemporaryFolder()
        let database = try Database(path: folder.path("copy.sqlite"))
        try database.execute(StoreLayout.bookkeepingStatements[1])
        try real.write(to: database)
        #expect(try StoreMetadata(reading: database) == real)
    }
}

extension ExistingLayoutTests {
    @Test func toOneAndJoinTableColumnsTheStoreChoseAreUsed() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("Renamed.sqlite")
        let model = try ModelLoader.load(Fixtures.exampleModel).currentVersion.model
        do {
            let store = try PersistentStore.create(at: path, model: model)
            try store.database.execute("""
                ALTER TABLE ZPAGE RENAME COLUMN ZBOOK TO ZBOOK1;
                ALTER TABLE ZPAGE RENAME COLUMN Z2_BOOK TO Z2_BOOK1;
                ALTER TABLE ZPAGE RENAME COLUMN Z_FOK_BOOK TO Z_FOK_BOOK1;
                ALTER TABLE Z_2TAGS RENAME COLUMN Z_5TAGS TO Z_5TAGS1
                """)
        }
        let store = try PersistentStore.open(at: path, model: model)
        #expect(store.layout.entity(named: "Page")?.toOneColumns["book"]
            == StoreLayout.ToOneColumns(key: "ZBOOK1", entity: "Z2_BOOK1", order: "Z_FOK_BOOK1"))
        try store.database.inTransaction {
            let book = try store.insert("Book", values: ["title": .text("A"), "isbn": .text("1")])
            let page = try store.insert("Page", values: ["number": .integer(1)], toOne: ["book": RowReference(entityName: "Book", primaryKey: book)])
            #expect(try store.row("Page", primaryKey: page)?.values["book"] == .integer(book))
            let tag = try store.insert("Tag", values: ["name": .text("t")])
            try store.link("Book", "tags", source: book, destination: tag)
            #expect(try store.linkedKeys("Tag", "books", source: tag) == [book])
        }
    }
}
