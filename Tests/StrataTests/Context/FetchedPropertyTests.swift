import Foundation
import Testing
@testable import Strata
import StrataTestSupport

/// Fetched properties as Core Data evaluates them (issue 32): a fetch of the destination with
/// `$FETCH_SOURCE` filled in, kept until the object is refreshed, never stored, never set.
@Suite struct FetchedPropertyTests {
    static func fetched(_ name: String, _ entity: String, _ predicate: String?, userInfo: [String: String] = [:]) -> FetchedPropertyDescription {
        var property = FetchedPropertyDescription(name: name, fetchRequest: FetchRequestTemplate(name: "fetchedPropertyFetchRequest", entityName: entity, predicate: predicate))
        property.userInfo = userInfo
        return property
    }

    static let model: ObjectModel = {
        var author = EntityDescription(name: "Author")
        author.attributes = [AttributeDescription(name: "name", type: .string), AttributeDescription(name: "genre", type: .string)]
        var books = RelationshipDescription(name: "books", destination: "Book", isToMany: true)
        books.inverseName = "author"
        author.relationships = [books]
        author.fetchedProperties = [
            fetched("sameGenre", "Book", "genre == $FETCH_SOURCE.genre"),
            fetched("ownBooks", "Book", "author == $FETCH_SOURCE"),
            fetched("configured", "Book", "genre == $FETCHED_PROPERTY.userInfo.genre AND author == $FETCH_SOURCE", userInfo: ["genre": "fantasy"]),
            fetched("everyBook", "Book", nil),
        ]
        var book = EntityDescription(name: "Book")
        book.attributes = [AttributeDescription(name: "title", type: .string), AttributeDescription(name: "genre", type: .string)]
        var writtenBy = RelationshipDescription(name: "author", destination: "Author")
        writtenBy.inverseName = "books"
        book.relationships = [writtenBy]
        return ObjectModel(entities: [author, book])
    }()

    /// The model with fetched properties that cannot be evaluated, which a store of
    /// ``model`` opens with (fetched properties are no part of the entity hashes).
    static let brokenModel: ObjectModel = {
        var model = Self.model
        model.entities[0].fetchedProperties += [
            fetched("badSourceKey", "Book", "title == $FETCH_SOURCE.nme"),
            fetched("badDestinationKey", "Book", "titel == $FETCH_SOURCE.name"),
            fetched("badVariable", "Book", "title == $TITLE"),
            fetched("badDestination", "Bok", "title == $FETCH_SOURCE.name"),
        ]
        return model
    }()

    private func titles(_ objects: [ManagedObject]) throws -> [String] {
        try objects.map { try $0.value(forKey: "title") as? String ?? "" }.sorted()
    }

    /// A store with Le Guin (fantasy: Earthsea, The Dispossessed as sf) and Tolkien (fantasy: The Hobbit).
    private func library(_ folder: TemporaryFolder, model: ObjectModel = Self.model) throws -> (PersistentStore, ObjectContext) {
        let path = folder.path("Library.sqlite")
        try PersistentStore.create(at: path, model: Self.model).close()
        let store = try PersistentStore.open(at: path, model: model)
        let context = ObjectContext(store: store)
        try context.performAndWait {
            for (name, genre, titles) in [("Le Guin", "fantasy", [("Earthsea", "fantasy"), ("The Dispossessed", "sf")]), ("Tolkien", "fantasy", [("The Hobbit", "fantasy")])] {
                let author = try context.insert("Author")
                try author.setValue(name, forKey: "name")
                try author.setValue(genre, forKey: "genre")
                for (title, genre) in titles {
                    let book = try context.insert("Book")
                    try book.setValue(title, forKey: "title")
                    try book.setValue(genre, forKey: "genre")
                    try book.setValue(author, forKey: "author")
                }
            }
            try context.save()
        }
        return (store, context)
    }

    private func author(_ name: String, in context: ObjectContext) throws -> ManagedObject {
        try #require(try context.fetch(FetchRequest(entityName: "Author", predicate: try ObjectPredicate(format: "name == %@", name))).first)
    }

    @Test func aFetchedPropertyFetchesItsDestinationWithTheSourceFilledIn() throws {
        let folder = try TemporaryFolder()
        let (store, context) = try library(folder)
        defer { store.close() }
        try context.performAndWait {
            let leGuin = try author("Le Guin", in: context)
            #expect(try titles(leGuin.fetchedObjects(forProperty: "sameGenre")) == ["Earthsea", "The Hobbit"])
            #expect(try titles(leGuin.fetchedObjects(forProperty: "ownBooks")) == ["Earthsea", "The Dispossessed"])
            #expect(try titles(leGuin.fetchedObjects(forProperty: "configured")) == ["Earthsea"])
            #expect(try titles(leGuin.fetchedObjects(forProperty: "everyBook")) == ["Earthsea", "The Dispossessed", "The Hobbit"])
            // value(forKey:) answers a fetched property as Core Data's does: an array of objects.
            let byKey = try #require(try leGuin.value(forKey: "ownBooks") as? [ManagedObject])
            #expect(try titles(byKey) == ["Earthsea", "The Dispossessed"])
            // Nothing is stored or changed by reading it.
            #expect(!context.hasChanges)
            #expect(try store.database.columns(of: "ZAUTHOR").map(\.name).allSatisfy { !$0.contains("SAMEGENRE") })
        }
    }

    @Test func theResultIsKeptUntilTheObjectIsRefreshed() throws {
        let folder = try TemporaryFolder()
        let (store, context) = try library(folder)
        defer { store.close() }
        try context.performAndWait {
            let tolkien = try author("Tolkien", in: context)
            #expect(try titles(tolkien.fetchedObjects(forProperty: "ownBooks")) == ["The Hobbit"])
            let book = try context.insert("Book")
            try book.setValue("The Silmarillion", forKey: "title")
            try book.setValue(tolkien, forKey: "author")
            try context.save()
            // As Core Data's: not kept up to date.
            #expect(try titles(tolkien.fetchedObjects(forProperty: "ownBooks")) == ["The Hobbit"])
            context.refresh(tolkien, mergeChanges: true)
            #expect(try titles(tolkien.fetchedObjects(forProperty: "ownBooks")) == ["The Hobbit", "The Silmarillion"])
        }
    }

    /// An object not read yet keeps its result too (a property whose predicate does not name
    /// the source does not read it), when a fetch hands the object out again with its row.
    @Test func theResultOfAnUnreadObjectIsKeptWhenAFetchReturnsItAgain() throws {
        let folder = try TemporaryFolder()
        let (store, context) = try library(folder)
        defer { store.close() }
        try context.performAndWait {
            context.reset()
            let tolkien = try author("Tolkien", in: context)
            #expect(try tolkien.fetchedObjects(forProperty: "everyBook").count == 3)
            #expect(tolkien.isFault)
            let book = try context.insert("Book")
            try book.setValue("The Silmarillion", forKey: "title")
            try context.save()
            #expect(try author("Tolkien", in: context) === tolkien)
            #expect(try titles(tolkien.fetchedObjects(forProperty: "everyBook")) == ["Earthsea", "The Dispossessed", "The Hobbit"])
            #expect(try tolkien.value(forKey: "name") as? String == "Tolkien")
        }
    }

    /// Unsaved objects take part, as in any fetch of the context, and so does an unsaved source.
    @Test func unsavedChangesCountWhenTheFetchRuns() throws {
        let folder = try TemporaryFolder()
        let (store, context) = try library(folder)
        defer { store.close() }
        try context.performAndWait {
            let newcomer = try context.insert("Author")
            try newcomer.setValue("sf", forKey: "genre")
            let book = try context.insert("Book")
            try book.setValue("Unsaved", forKey: "title")
            try book.setValue(newcomer, forKey: "author")
            #expect(try titles(newcomer.fetchedObjects(forProperty: "sameGenre")) == ["The Dispossessed"])
            #expect(try titles(newcomer.fetchedObjects(forProperty: "ownBooks")) == ["Unsaved"])
        }
    }

    @Test func assigningAFetchedPropertyIsRefused() throws {
        let folder = try TemporaryFolder()
        let (store, context) = try library(folder)
        defer { store.close() }
        try context.performAndWait {
            let leGuin = try author("Le Guin", in: context)
            let error = #expect(throws: ContextError.self) { try leGuin.setValue([], forKey: "ownBooks") }
            #expect(error?.description == "Author.ownBooks (fetched property, fetching Book) is read-only: its value is the result of its fetch request")
            #expect(!context.hasChanges)
        }
    }

    @Test func whatCannotBeEvaluatedNamesEntityPropertyAndToken() throws {
        let folder = try TemporaryFolder()
        let (store, context) = try library(folder, model: Self.brokenModel)
        defer { store.close() }
        try context.performAndWait {
            let leGuin = try author("Le Guin", in: context)
            func failure(_ property: String) -> String {
                do {
                    _ = try leGuin.value(forKey: property)
                    return "no error"
                } catch {
                    guard case .fetchedProperty(let failure) = error else { return "\(error)" }
                    #expect(failure.entity == "Author" && failure.property == property)
                    return failure.description
                }
            }
            let badSourceKey = failure("badSourceKey")
            #expect(badSourceKey.hasPrefix(
                "Author.badSourceKey (fetched property, fetching Book): $FETCH_SOURCE.nme cannot be read on the object: \(store.path): entity 'Author' has no property 'nme'; did you mean 'name'?"),
                "\(badSourceKey)")
            #expect(badSourceKey.hasSuffix("\n  title == $FETCH_SOURCE.nme\n           ^"), "\(badSourceKey)")
            #expect(failure("badDestinationKey").hasPrefix("Author.badDestinationKey (fetched property, fetching Book): entity 'Book' has no property 'titel'"))
            #expect(failure("badDestinationKey").hasSuffix("\n  titel == $FETCH_SOURCE.name\n  ^"))
            #expect(failure("badVariable") == """
                Author.badVariable (fetched property, fetching Book): $TITLE has no value: a fetched property gives $FETCH_SOURCE (the object) and $FETCHED_PROPERTY.userInfo.KEY
                  title == $TITLE
                           ^
                """)
            #expect(failure("badDestination").hasPrefix("Author.badDestination (fetched property, fetching Bok): the model has no entity 'Bok'; did you mean 'Book'?"))
        }
        // Loading refuses an unknown destination before any object is read.
        #expect(Self.brokenModel.validate().map(\.description).contains {
            $0.contains("entity 'Author', property 'badDestination'") && $0.contains("unknown entity 'Bok'")
        })
    }

    @Test func aSubEntityInheritsItsParentsFetchedProperties() throws {
        var model = Self.model
        var poet = EntityDescription(name: "Poet")
        poet.superentityName = "Author"
        model.entities.append(poet)
        let found = model.fetchedProperty(named: "ownBooks", in: poet)
        #expect(found?.fetchRequest.predicate == "author == $FETCH_SOURCE")
        #expect(model.allFetchedProperties(of: poet).map(\.name) == ["sameGenre", "ownBooks", "configured", "everyBook"])
        #expect(model.fetchedProperty(named: "title", in: poet) == nil)
    }

    // MARK: - Typed subclasses

    final class TypedAuthor: ManagedObject, @unchecked Sendable {
        override class var entityName: String { "Author" }
        @Attribute("name") var name: String?
        @Fetched("ownBooks") var ownBooks: [ManagedObject]
    }

    @Test func aTypedSubclassReadsAFetchedPropertyAsAnArray() throws {
        let folder = try TemporaryFolder()
        let (store, _) = try library(folder)
        defer { store.close() }
        // A context that holds no Author yet hands out the registered class.
        let context = ObjectContext(store: store)
        try context.performAndWait {
            context.register(TypedAuthor.self, for: "Author")
            let tolkien = try #require(try author("Tolkien", in: context) as? TypedAuthor)
            #expect(try titles(tolkien.ownBooks) == ["The Hobbit"])
        }
        let source = SubclassGenerator.files(for: Self.model, modelName: "Library").first { $0.name == "Author.swift" }?.contents ?? ""
        #expect(source.contains(#"    @Fetched("ownBooks") public var ownBooks: [Book]"#))
    }

    // MARK: - Real models

    /// Aidoku's `Manga.unreadChapters`: chapters of the same source and manga whose history is
    /// missing or not completed.
    @Test(.enabled(if: Corpus.available, Corpus.skipReason))
    func aidokusUnreadChaptersAreEvaluated() throws {
        let bundle = Corpus.folder.appendingPathComponent("models/aidoku/Aidoku.xcdatamodeld")
        let model = try #require(try ModelLoader.load(bundle).versions.first { $0.name == "0.9" }).model
        let folder = try TemporaryFolder()
        let store = try PersistentStore.create(at: folder.path("Aidoku.sqlite"), model: model)
        defer { store.close() }
        let context = ObjectContext(store: store)
        try context.performAndWait {
            let manga = try context.insert("Manga")
            try manga.setValue("src", forKey: "sourceId")
            try manga.setValue("m1", forKey: "id")
            for (id, mangaId, completed) in [("c1", "m1", nil), ("c2", "m1", true), ("c3", "m1", false), ("c4", "m2", nil)] as [(String, String, Bool?)] {
                let chapter = try context.insert("Chapter")
                try chapter.setValue("src", forKey: "sourceId")
                try chapter.setValue(mangaId, forKey: "mangaId")
                try chapter.setValue(id, forKey: "id")
                if let completed {
                    let history = try context.insert("History")
                    try history.setValue(completed, forKey: "completed")
                    try chapter.setValue(history, forKey: "history")
                }
            }
            try context.save()
            let unread = try manga.fetchedObjects(forProperty: "unreadChapters")
            #expect(try unread.map { try $0.value(forKey: "id") as? String ?? "" }.sorted() == ["c1", "c3"])
        }
    }

    /// A store opened without its model reads the fetched properties of its `Z_MODELCACHE`,
    /// their archived predicates included, and evaluates them: CoreDataPlus's `Author.feedbacks`
    /// and `favFeedbacks` (whose predicate reads `$FETCHED_PROPERTY.userInfo.search`).
    @Test(.enabled(if: Corpus.available, Corpus.skipReason))
    func fetchedPropertiesComeFromAStoresModelCache() throws {
        let path = Corpus.folder.appendingPathComponent("stores/coredataplus/SampleModel2_V1.sqlite").path
        let store = try PersistentStore.open(at: path, configuration: .readOnly)
        defer { store.close() }
        #expect(store.modelSource == .modelCache)
        let author = try #require(store.model.entity(named: "Author"))
        let predicates = Dictionary(uniqueKeysWithValues: author.fetchedProperties.map { ($0.name, $0.fetchRequest.predicate ?? "") })
        #expect(predicates["feedbacks"] == "authorAlias == $FETCH_SOURCE.alias")
        // Core Data archives CONTAINS[c]'s option as the operator's `NSFlags`.
        #expect(predicates["favFeedbacks"] == "(authorAlias == $FETCH_SOURCE.alias) AND (comment CONTAINS[c] $FETCHED_PROPERTY.userInfo.search)")
        let search = try #require(author.fetchedProperties.first { $0.name == "favFeedbacks" }?.userInfo["search"])

        let database = try Fixtures.readOnlyDatabase(at: path)
        defer { database.close() }
        let alias = try #require(try database.scalar("SELECT ZALIAS FROM ZWRITER WHERE Z_ENT = (SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Author') ORDER BY Z_PK LIMIT 1")?.stringValue)
        let expected = try database.scalar("SELECT count(*) FROM ZFEEDBACK WHERE ZAUTHORALIAS = ?", [.text(alias)])?.int64Value
        let expectedFavourites = try database.scalar(
            "SELECT count(*) FROM ZFEEDBACK WHERE ZAUTHORALIAS = ? AND instr(lower(ZCOMMENT), lower(?)) > 0", [.text(alias), .text(search)])?.int64Value
        let context = ObjectContext(store: store)
        try context.performAndWait {
            let first = try #require(try context.fetch(FetchRequest(entityName: "Author", predicate: ObjectPredicate(format: "alias == %@", alias))).first)
            #expect(Int64(try first.fetchedObjects(forProperty: "feedbacks").count) == expected)
            #expect(Int64(try first.fetchedObjects(forProperty: "favFeedbacks").count) == expectedFavourites)
            #expect((expected ?? 0) > 0)
        }
    }
}
