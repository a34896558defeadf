import Foundation
import Testing
@testable import Strata
import StrataTestSupport

/// Derived attributes as Core Data keeps them: its `Z_DA_` triggers in the store, values
/// current after each save in the store and in the objects a context holds.
@Suite struct DerivedAttributeTests {
    /// Book and Page named as CoreDataPlus's SampleModel2 names them, so that the count's
    /// triggers must read word for word as that store's, plus one of every other form.
    static let model = """
        {"entities": [
          {"name": "Author", "attributes": [{"name": "name", "type": "string"}],
           "relationships": [{"name": "books", "destination": "Book", "inverse": "author", "toMany": true}]},
          {"name": "Book", "attributes": [
             {"name": "title", "type": "string"},
             {"name": "pagesCount", "type": "integer64", "derived": true, "derivationExpression": "pages.@count"},
             {"name": "shoutedTitle", "type": "string", "derived": true, "derivationExpression": "uppercase:(title)"},
             {"name": "searchTitle", "type": "string", "derived": true, "derivationExpression": "canonical:(title)"},
             {"name": "authorName", "type": "string", "derived": true, "derivationExpression": "author.name"},
             {"name": "words", "type": "integer64", "derived": true, "derivationExpression": "pages.@sum.words"},
             {"name": "longestPage", "type": "integer64", "derived": true, "derivationExpression": "pages.@max.words"},
             {"name": "tagCount", "type": "integer64", "derived": true, "derivationExpression": "tags.@count"},
             {"name": "savedAt", "type": "date", "derived": true, "derivationExpression": "now()"}],
           "relationships": [
             {"name": "author", "destination": "Author", "inverse": "books"},
             {"name": "pages", "destination": "Page", "inverse": "book", "toMany": true, "deleteRule": "cascade"},
             {"name": "tags", "destination": "Tag", "inverse": "books", "toMany": true}]},
          {"name": "Page", "attributes": [{"name": "words", "type": "integer64"}],
           "relationships": [{"name": "book", "destination": "Book", "inverse": "pages"}]},
          {"name": "Tag", "attributes": [{"name": "name", "type": "string"}],
           "relationships": [{"name": "books", "destination": "Book", "inverse": "tags", "toMany": true}]}
        ]}
        """

    /// The five triggers of `Book.pagesCount = pages.@count` in CoreDataPlus's SampleModel2_V1
    /// store, as Core Data wrote them.
    static let pagesCountTriggers = [
        "CREATE TRIGGER Z_DA_ZPAGE_Book_pagesCount_PARAMETER_INSERT AFTER INSERT ON ZPAGE FOR EACH ROW WHEN (NEW.ZBOOK NOT NULL) BEGIN UPDATE ZBOOK SET ZPAGESCOUNT = IFNULL(ZPAGESCOUNT, 0) + 1 WHERE Z_PK = NEW.ZBOOK; SELECT NSCoreDataDATriggerUpdatedAffectedObjectValue('ZBOOK', Z_ENT, Z_PK, 'pagesCount', ZPAGESCOUNT) FROM ZBOOK WHERE Z_PK = NEW.ZBOOK; END",
        "CREATE TRIGGER Z_DA_ZPAGE_Book_pagesCount_PARAMETER_UPDATE_INCREMENT AFTER UPDATE OF ZBOOK ON ZPAGE FOR EACH ROW WHEN (NEW.ZBOOK NOT NULL) BEGIN UPDATE ZBOOK SET ZPAGESCOUNT = ZPAGESCOUNT + 1 WHERE Z_PK = NEW.ZBOOK; SELECT NSCoreDataDATriggerUpdatedAffectedObjectValue('ZBOOK', Z_ENT, Z_PK, 'pagesCount', ZPAGESCOUNT) FROM ZBOOK WHERE Z_PK = NEW.ZBOOK; END",
        "CREATE TRIGGER Z_DA_ZPAGE_Book_pagesCount_PARAMETER_UPDATE_DECREMENT AFTER UPDATE OF ZBOOK ON ZPAGE FOR EACH ROW WHEN (OLD.ZBOOK NOT NULL) BEGIN UPDATE ZBOOK SET ZPAGESCOUNT = ZPAGESCOUNT - 1 WHERE Z_PK = OLD.ZBOOK; SELECT NSCoreDataDATriggerUpdatedAffectedObjectValue('ZBOOK', Z_ENT, Z_PK, 'pagesCount', ZPAGESCOUNT) FROM ZBOOK WHERE Z_PK = OLD.ZBOOK; END",
        "CREATE TRIGGER Z_DA_ZPAGE_Book_pagesCount_PARAMETER_DELETE AFTER DELETE ON ZPAGE FOR EACH ROW WHEN (OLD.ZBOOK NOT NULL) BEGIN UPDATE ZBOOK SET ZPAGESCOUNT = ZPAGESCOUNT - 1 WHERE Z_PK = OLD.ZBOOK; SELECT NSCoreDataDATriggerUpdatedAffectedObjectValue('ZBOOK', Z_ENT, Z_PK, 'pagesCount', ZPAGESCOUNT) FROM ZBOOK WHERE Z_PK = OLD.ZBOOK; END",
        "CREATE TRIGGER Z_DA_ZBOOK_Book_pagesCount_SOURCE_INSERT AFTER INSERT ON ZBOOK FOR EACH ROW BEGIN UPDATE ZBOOK SET ZPAGESCOUNT = (SELECT IFNULL(COUNT(ZBOOK), 0) FROM ZPAGE WHERE ZBOOK = NEW.Z_PK) WHERE Z_PK = NEW.Z_PK; SELECT NSCoreDataDATriggerInsertUpdatedAffectedObjectValue('ZBOOK', Z_ENT, Z_PK, 'pagesCount', ZPAGESCOUNT) FROM ZBOOK WHERE Z_PK = NEW.Z_PK; END",
    ]

    static var storeSample2: URL { Corpus.folder.appendingPathComponent("stores/coredataplus/SampleModel2_V1.sqlite") }

    private func triggers(of database: Database) throws -> [String: String] {
        Dictionary(uniqueKeysWithValues: try database.rows("SELECT name, sql FROM sqlite_master WHERE type = 'trigger'").map {
            ($0[0].stringValue ?? "", $0[1].stringValue ?? "")
        })
    }

    private func integer(_ object: ManagedObject, _ key: String) throws -> Int64? {
        if case .integer(let value)? = try object.attributeValue(forKey: key) { return value }
        return nil
    }

    private func string(_ object: ManagedObject, _ key: String) throws -> String? {
        if case .string(let value)? = try object.attributeValue(forKey: key) { return value }
        return nil
    }

    /// The value of `column` of the row of `object` in the store itself.
    private func stored(_ store: PersistentStore, _ table: String, _ column: String, _ object: ManagedObject) throws -> DatabaseValue? {
        try store.database.scalar("SELECT \(column) FROM \(table) WHERE Z_PK = ?", [.integer(object.objectID.primaryKey!)])
    }

    @Test func derivationsReadAsXcodeAndModelCachesWriteThem() throws {
        #expect(try Derivation(parsing: "chapters.@count") == .aggregate(relationship: "chapters", function: .count, attribute: nil))
        #expect(try Derivation(parsing: "count:(chapters)") == .aggregate(relationship: "chapters", function: .count, attribute: nil))
        #expect(try Derivation(parsing: "pages.@sum.words") == .aggregate(relationship: "pages", function: .sum, attribute: "words"))
        #expect(try Derivation(parsing: "sum:(pages.words)") == .aggregate(relationship: "pages", function: .sum, attribute: "words"))
        #expect(try Derivation(parsing: "uppercase:(author.name)") == .value(relationship: "author", attribute: "name", function: .uppercase))
        #expect(try Derivation(parsing: " canonical:( title ) ") == .value(relationship: nil, attribute: "title", function: .canonical))
        #expect(try Derivation(parsing: "author.name") == .value(relationship: "author", attribute: "name", function: nil))
        #expect(try Derivation(parsing: "now()") == .now)
        for text in ["a.b.c", "pages.@avg.words", "pages.@sum", "reverse:(title)", "firstName ++ \" \" ++ lastName", ""] {
            #expect(throws: DerivationError.self, "\(text)") { try Derivation(parsing: text) }
        }
        // A derivation that cannot be kept current is a warning, and gets no trigger.
        var model = try JSONModelReader.read(Data(Self.model.utf8), path: "m.json")
        let index = try #require(model.entities.firstIndex { $0.name == "Book" })
        model.entities[index].attributes.append(AttributeDescription(name: "titleLength", type: .integer64))
        model.entities[index].attributes[model.entities[index].attributes.count - 1].isDerived = true
        model.entities[index].attributes[model.entities[index].attributes.count - 1].derivationExpression = "title.length"
        let issues = model.validate()
        #expect(issues.map(\.severity) == [.warning] && issues.first?.property == "titleLength", "\(issues)")
        #expect(!StoreLayout(model: model).triggers.contains { $0.name.contains("titleLength") })
        // 5 for each one-to-many aggregate (3), 4 for the to-one value, 3 for the many-to-many count, 2 for each of the others (3).
        #expect(StoreLayout(model: model).triggers.count == 3 * 5 + 4 + 3 + 3 * 2)
    }

    @Test func aCreatedStoreHasCoreDatasTriggers() throws {
        let folder = try TemporaryFolder()
        let store = try PersistentStore.create(at: folder.path("Books.sqlite"), model: try JSONModelReader.read(Data(Self.model.utf8), path: "m.json"))
        defer { store.close() }
        let found = try triggers(of: store.database)
        for sql in Self.pagesCountTriggers {
            let name = String(sql.split(separator: " ")[2])
            #expect(found[name] == sql, "\(name)")
        }
        let names = Set(found.keys)
        for expected in [
            "Z_DA_ZBOOK_Book_shoutedTitle_INSERT", "Z_DA_ZBOOK_Book_shoutedTitle_UPDATE", "Z_DA_ZBOOK_Book_savedAt_UPDATE",
            "Z_DA_ZBOOK_Book_authorName_SOURCE_INSERT", "Z_DA_ZBOOK_Book_authorName_SOURCE_UPDATE",
            "Z_DA_ZAUTHOR_Book_authorName_PARAMETER_INSERT", "Z_DA_ZAUTHOR_Book_authorName_PARAMETER_UPDATE",
            "Z_DA_ZPAGE_Book_words_PARAMETER_UPDATE_INCREMENT", "Z_DA_ZPAGE_Book_longestPage_UPDATE_UNSET",
            "Z_DA_Z_2TAGS_Book_tagCount_PARAMETER_INSERT", "Z_DA_Z_2TAGS_Book_tagCount_PARAMETER_DELETE", "Z_DA_ZBOOK_Book_tagCount_SOURCE_INSERT",
        ] {
            #expect(names.contains(expected), "\(expected) among \(names.sorted())")
        }
        #expect(found["Z_DA_ZBOOK_Book_shoutedTitle_UPDATE"]?.contains("AFTER UPDATE OF ZTITLE ON ZBOOK") == true)
        #expect(found["Z_DA_ZBOOK_Book_savedAt_UPDATE"]?.contains("AFTER UPDATE OF Z_OPT ON ZBOOK") == true)
    }

    @Test func valuesAreCurrentAfterInsertsMovesAndDeletesInTheStoreAndInMemory() throws {
        let folder = try TemporaryFolder()
        let store = try PersistentStore.create(at: folder.path("Books.sqlite"), model: try JSONModelReader.read(Data(Self.model.utf8), path: "m.json"))
        defer { store.close() }
        let context = ObjectContext(store: store)
        try context.performAndWait {
            let tolkien = try context.make("Author", ["name": "Tolkien"])
            let hobbit = try context.make("Book", ["title": "Hobbit Éclair", "author": tolkien])
            let silmarillion = try context.make("Book", ["title": "Silmarillion"])
            var pages: [ManagedObject] = []
            for words in [100, 250, 50] { pages.append(try context.make("Page", ["words": words, "book": hobbit])) }
            let fantasy = try context.make("Tag", ["name": "fantasy"])
            try fantasy.setValue([hobbit, silmarillion], forKey: "books")
            try context.save()

            // In memory, without a fetch: the triggers reported the values.
            #expect(try integer(hobbit, "pagesCount") == 3)
            #expect(try integer(silmarillion, "pagesCount") == 0)
            #expect(try integer(hobbit, "words") == 400)
            #expect(try integer(hobbit, "longestPage") == 250)
            #expect(try integer(hobbit, "tagCount") == 1)
            #expect(try string(hobbit, "shoutedTitle") == "HOBBIT ÉCLAIR")
            #expect(try string(hobbit, "searchTitle") == "hobbit eclair")
            #expect(try string(hobbit, "authorName") == "Tolkien")
            #expect(try hobbit.attributeValue(forKey: "savedAt") != nil)
            // In the store.
            #expect(try stored(store, "ZBOOK", "ZPAGESCOUNT", hobbit) == .integer(3))
            #expect(try stored(store, "ZBOOK", "ZSHOUTEDTITLE", hobbit) == .text("HOBBIT ÉCLAIR"))

            // A page moves to the other book: both counts and sums follow.
            try pages[1].setValue(silmarillion, forKey: "book")
            try context.save()
            #expect(try integer(hobbit, "pagesCount") == 2)
            #expect(try integer(silmarillion, "pagesCount") == 1)
            #expect(try integer(hobbit, "words") == 150)
            #expect(try integer(hobbit, "longestPage") == 100)
            #expect(try integer(silmarillion, "words") == 250)
            #expect(try stored(store, "ZBOOK", "ZPAGESCOUNT", silmarillion) == .integer(1))

            // A page deleted, a title and the author's name changed (the books not saved themselves).
            try context.delete(pages[0])
            try hobbit.setValue("There and Back", forKey: "title")
            try tolkien.setValue("J. R. R. Tolkien", forKey: "name")
            try fantasy.setValue([silmarillion], forKey: "books")
            try context.save()
            #expect(try integer(hobbit, "pagesCount") == 1)
            #expect(try integer(hobbit, "words") == 50)
            #expect(try string(hobbit, "shoutedTitle") == "THERE AND BACK")
            #expect(try string(hobbit, "authorName") == "J. R. R. Tolkien")
            #expect(try integer(hobbit, "tagCount") == 0)
            #expect(try stored(store, "ZBOOK", "ZAUTHORNAME", hobbit) == .text("J. R. R. Tolkien"))
            #expect(try stored(store, "ZBOOK", "ZPAGESCOUNT", hobbit) == .integer(1))
        }
        // A fresh context reads what the store holds.
        let reader = ObjectContext(store: store)
        try reader.performAndWait {
            let books = try reader.all("Book", by: "pagesCount")
            #expect(try books.map { try integer($0, "pagesCount") } == [1, 1])
        }
    }

    @Test func aDerivedAttributeCannotBeSet() throws {
        let folder = try TemporaryFolder()
        let store = try PersistentStore.create(at: folder.path("Books.sqlite"), model: try JSONModelReader.read(Data(Self.model.utf8), path: "m.json"))
        defer { store.close() }
        let context = ObjectContext(store: store)
        try context.performAndWait {
            let book = try context.make("Book", ["title": "Dune"])
            #expect(throws: ContextError.derivedAttribute(entity: "Book", attribute: "pagesCount", derivation: "pages.@count")) {
                try book.setValue(12, forKey: "pagesCount")
            }
            #expect(throws: ContextError.derivedAttribute(entity: "Book", attribute: "pagesCount", derivation: "pages.@count")) {
                try book.setAttribute(.integer(12), forKey: "pagesCount")
            }
            try context.save()
            do {
                try context.execute(BatchUpdateRequest(entityName: "Book", propertiesToUpdate: ["pagesCount": .integer(12)]))
                Issue.record("a batch update set a derived attribute")
            } catch {
                #expect(String(describing: error).contains("Book.pagesCount is derived"), "\(error)")
            }
        }
    }

    @Test func contextsThatMergeSeeTheDerivedValuesOfASave() throws {
        let folder = try TemporaryFolder()
        let store = try PersistentStore.create(at: folder.path("Books.sqlite"), model: try JSONModelReader.read(Data(Self.model.utf8), path: "m.json"))
        defer { store.close() }
        let writer = ObjectContext(store: store), reader = ObjectContext(store: store)
        let id = try writer.performAndWait {
            let book = try writer.make("Book", ["title": "Dune"])
            try writer.save()
            return book.objectID
        }
        let book = try reader.performAndWait {
            let book = try reader.existingObject(with: id)
            #expect(try integer(book, "pagesCount") == 0)
            return book
        }
        let observation = writer.addDidSaveObserver { notification in reader.performAndWait { reader.mergeChanges(fromContextDidSave: notification) } }
        defer { observation.cancel() }
        try writer.performAndWait {
            // The writer never loaded the book: its page count reaches the reader all the same.
            writer.reset()
            let page = try writer.make("Page", ["words": 10])
            try page.setValue(writer.object(with: id), forKey: "book")
            try writer.save()
        }
        let merged = try reader.performAndWait { try integer(book, "pagesCount") }
        #expect(merged == 1)
    }

    @Test(.enabled(if: Corpus.available, Corpus.skipReason))
    func aSaveToCoreDatasStoreKeepsItsCountCurrent() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("SampleModel2_V1.sqlite")
        for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: Self.storeSample2.path + suffix) {
            try FileManager.default.copyItem(atPath: Self.storeSample2.path + suffix, toPath: path + suffix)
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path + suffix)
        }
        let store = try PersistentStore.open(at: path)
        defer { store.close() }
        #expect(store.modelSource == .modelCache)
        let book = try #require(store.model.entity(named: "Book")?.attribute(named: "pagesCount"))
        #expect(book.derivationExpression == "count:(pages)")
        // The layout Strata makes for the model cache has the store's own triggers.
        let found = try triggers(of: store.database)
        #expect(Dictionary(uniqueKeysWithValues: store.layout.triggers.map { ($0.name, $0.createStatement) }) == found)
        #expect(Set(found.values) == Set(Self.pagesCountTriggers))

        let context = ObjectContext(store: store)
        try context.performAndWait {
            var request = FetchRequest(entityName: "Book", sortDescriptors: [ObjectSortDescriptor("title")])
            request.fetchLimit = 1
            let first = try #require(try context.fetch(request).first)
            let before = try #require(try integer(first, "pagesCount"))
            let counted = try store.database.scalar("SELECT COUNT(*) FROM ZPAGE WHERE ZBOOK = ?", [.integer(first.objectID.primaryKey!)])
            #expect(counted == .integer(before), "Core Data's count agrees with the pages")
            let pages = try context.fetch(FetchRequest(entityName: "Page", predicate: try ObjectPredicate(format: "book == %@", first)))
            #expect(pages.count == Int(before))
            let page = try context.insert("Page")
            try page.setValue(Int64(999), forKey: "number")
            try page.setValue(try pages.first?.attributeValue(forKey: "content"), forKey: "content")
            try page.setValue(first, forKey: "book")
            try context.save()
            #expect(try integer(first, "pagesCount") == before + 1)
            #expect(try stored(store, "ZBOOK", "ZPAGESCOUNT", first) == .integer(before + 1))
        }
    }

    @Test func aMigrationCreatesTheTriggersAndComputesExistingRows() throws {
        let plain = """
            {"entities": [
              {"name": "Book", "attributes": [{"name": "title", "type": "string"}],
               "relationships": [{"name": "pages", "destination": "Page", "inverse": "book", "toMany": true}]},
              {"name": "Page", "attributes": [{"name": "words", "type": "integer64"}],
               "relationships": [{"name": "book", "destination": "Book", "inverse": "pages"}]}
            ]}
            """
        let derived = plain.replacingOccurrences(of: #"{"name": "title", "type": "string"}"#, with: """
            {"name": "title", "type": "string"}, {"name": "pagesCount", "type": "integer64", "derived": true, "derivationExpression": "pages.@count"},
            {"name": "shoutedTitle", "type": "string", "derived": true, "derivationExpression": "uppercase:(title)"}
            """)
        let renamed = derived.replacingOccurrences(of: #""name": "words""#, with: #""name": "wordCount""#)
        let fixture = try MigrationFixture(versions: [("V1", plain), ("V2", derived), ("V3", renamed)]) { context in
            let book = try context.make("Book", ["title": "Dune"])
            for words in [1, 2] { try context.make("Page", ["words": words, "book": book]) }
            try context.make("Book", ["title": "Emma"])
        }
        try fixture.migrator(to: "V2").migrate()
        let second = try PersistentStore.open(at: fixture.path, model: try fixture.bundle.version(named: "V2").model)
        let context = ObjectContext(store: second)
        try context.performAndWait {
            let books = try context.all("Book", by: "title")
            #expect(try books.map { try integer($0, "pagesCount") } == [2, 0])
            #expect(try books.map { try string($0, "shoutedTitle") } == ["DUNE", "EMMA"])
            let page = try context.make("Page", ["words": 3])
            try page.setValue(books[1], forKey: "book")
            try context.save()
            #expect(try integer(books[1], "pagesCount") == 1)
        }
        // A migration from a store that has the triggers keeps them.
        let before = try triggers(of: second.database)
        second.close()
        #expect(before.count == 7)
        try fixture.migrator(to: "V3").migrate()
        let migrated = try PersistentStore.open(at: fixture.path, model: fixture.bundle.currentVersion.model)
        defer { migrated.close() }
        #expect(try triggers(of: migrated.database) == before)
        #expect(try migrated.database.rows("SELECT ZPAGESCOUNT FROM ZBOOK ORDER BY ZTITLE").map { $0[0] } == [.integer(2), .integer(1)])
    }

    /// Strata's version hash misses the one Core Data recorded for an entity with a derived
    /// attribute; the store still opens with its own model given, and refuses a model that
    /// differs from the store's in such an entity.
    @Test(.enabled(if: Corpus.available, Corpus.skipReason))
    func aStoreWithDerivedAttributesOpensWithItsOwnModelAndRefusesAnother() throws {
        let own = try PersistentStore.open(at: Self.storeSample2.path, configuration: .readOnly)
        let model = own.model
        own.close()
        let given = try PersistentStore.open(at: Self.storeSample2.path, model: model, configuration: .readOnly)
        #expect(given.comparison.isMatch)
        given.close()

        var changed = model
        let book = try #require(changed.entities.firstIndex { $0.name == "Book" })
        let price = try #require(changed.entities[book].attributes.firstIndex { $0.name == "price" })
        changed.entities[book].attributes[price].isOptional.toggle()
        #expect(throws: StoreError.self) {
            try PersistentStore.open(at: Self.storeSample2.path, model: changed, configuration: .readOnly).close()
        }
    }

    final class DerivedBook: ManagedObject, @unchecked Sendable {
        override class var entityName: String { "Book" }
        @Attribute("title") var title: String?
        // Get-only: `book.shoutedTitle = "x"` does not compile.
        @DerivedAttribute("shoutedTitle") var shoutedTitle: String?
    }

    /// Typed subclasses read a derived attribute and have no setter for it: codegen writes it so.
    @Test func aTypedDerivedAttributeIsReadOnly() throws {
        let model = try JSONModelReader.read(Data(Self.model.utf8), path: "m.json")
        let folder = try TemporaryFolder()
        let store = try PersistentStore.create(at: folder.path("Books.sqlite"), model: model)
        defer { store.close() }
        let context = ObjectContext(store: store)
        try context.performAndWait {
            context.register(DerivedBook.self, for: "Book")
            let book = try DerivedBook(context: context)
            book.title = "Dune"
            try context.save()
            #expect(book.shoutedTitle == "DUNE")
        }
        let source = SubclassGenerator.files(for: model, modelName: "Books").first { $0.name == "Book.swift" }?.contents ?? ""
        #expect(source.contains(#"    @DerivedAttribute("shoutedTitle") public var shoutedTitle: String?"#))
        #expect(source.contains(#"    @Attribute("title") public var title: String?"#))
    }
}
