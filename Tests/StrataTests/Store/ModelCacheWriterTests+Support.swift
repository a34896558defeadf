import Foundation
@testable import Strata

extension ModelCacheWriterTests {
    /// A model with every part a cache archives: a hierarchy with an abstract root, user info,
    /// renaming identifiers, version hash modifiers, constraints, a fetch index, defaults of
    /// several types, derived attributes, an ordered to-many, a fetched property, a
    /// configuration and a fetch request template.
    static var fullModel: ObjectModel {
        var item = EntityDescription(name: "Item")
        item.isAbstract = true
        item.versionHashModifier = "v2"
        var id = AttributeDescription(name: "id", type: .uuid)
        id.preservesValueInHistoryOnDeletion = true
        item.attributes = [id]

        var book = EntityDescription(name: "Book")
        book.superentityName = "Item"
        book.className = "BookObject"
        book.userInfo = ["table": "books"]
        book.renamingIdentifier = "Volume"
        var isbn = AttributeDescription(name: "isbn", type: .string)
        isbn.isOptional = false
        isbn.isIndexed = true
        var title = AttributeDescription(name: "title", type: .string)
        title.userInfo = ["search": "yes"]
        title.renamingIdentifier = "name"
        var rating = AttributeDescription(name: "rating", type: .integer16)
        rating.defaultValue = "3"
        var isRead = AttributeDescription(name: "isRead", type: .boolean)
        isRead.defaultValue = "NO"
        var added = AttributeDescription(name: "added", type: .date)
        added.defaultValue = "12.5"
        var cover = AttributeDescription(name: "cover", type: .binary)
        cover.allowsExternalBinaryDataStorage = true
        var payload = AttributeDescription(name: "payload", type: .transformable)
        payload.valueTransformerName = "PayloadTransformer"
        payload.customClassName = "Payload"
        var pageCount = AttributeDescription(name: "pageCount", type: .integer64)
        pageCount.isDerived = true
        pageCount.derivationExpression = "pages.@count"
        var authorName = AttributeDescription(name: "authorName", type: .string)
        authorName.isDerived = true
        authorName.derivationExpression = "uppercase:(author.name)"
        var transientNote = AttributeDescription(name: "note", type: .string)
        transientNote.isTransient = true
        book.attributes = [isbn, title, rating, isRead, added, cover, payload, pageCount, authorName, transientNote]
        var pages = RelationshipDescription(name: "pages", destination: "Page", isToMany: true)
        pages.isOrdered = true
        pages.deleteRule = .cascade
        pages.inverseName = "book"
        var author = RelationshipDescription(name: "author", destination: "Author")
        author.inverseName = "books"
        author.versionHashModifier = "2"
        book.relationships = [pages, author]
        book.uniquenessConstraints = [["isbn"], ["title", "author"]]
        book.fetchIndexes = [FetchIndexDescription(name: "byTitle", elements: [.init(property: "title", isAscending: false)])]
        book.compoundIndexes = [["title", "rating"]]
        var sameAuthor = FetchedPropertyDescription(
            name: "sameAuthor", fetchRequest: FetchRequestTemplate(name: "sameAuthor", entityName: "Book", predicate: "author == $FETCH_SOURCE.author"))
        sameAuthor.userInfo = ["kind": "fetched"]
        book.fetchedProperties = [sameAuthor]

        var ebook = EntityDescription(name: "EBook")
        ebook.superentityName = "Book"
        ebook.attributes = [AttributeDescription(name: "format", type: .string)]

        var page = EntityDescription(name: "Page")
        var number = AttributeDescription(name: "number", type: .integer32)
        number.isOptional = false
        page.attributes = [number]
        var pageBook = RelationshipDescription(name: "book", destination: "Book")
        pageBook.inverseName = "pages"
        page.relationships = [pageBook]

        var writer = EntityDescription(name: "Author")
        writer.attributes = [AttributeDescription(name: "name", type: .string)]
        var books = RelationshipDescription(name: "books", destination: "Book", isToMany: true)
        books.inverseName = "author"
        writer.relationships = [books]

        var model = ObjectModel(entities: [item, book, ebook, page, writer])
        model.versionIdentifier = "7"
        model.configurations = [ModelConfiguration(name: "Library", entityNames: ["Author", "Book"])]
        model.fetchRequestTemplates = [FetchRequestTemplate(name: "allBooks", entityName: "Book")]
        return model
    }

    /// What the archives say of one class: its `$classes` chain, every key any of its objects
    /// has, and the keys every one of its objects has.
    struct ArchivedClass {
        var chain: [String]
        var allKeys: Set<String> = []
        var everyObjectKeys: Set<String>
    }

    /// The classes of a keyed archive, by name.
    static func classes(of archiveData: Data) throws -> [String: ArchivedClass] {
        let archive = try KeyedArchive(data: archiveData)
        var classes: [String: ArchivedClass] = [:]
        for object in archive.objects {
            guard let fields = object.dictionaryValue, fields["$class"] != nil, let name = archive.className(of: object) else { continue }
            let keys = Set(fields.keys).subtracting(["$class"])
            let chain = archive.object(object["$class"])?["$classes"]?.arrayValue?.compactMap(\.stringValue) ?? []
            var entry = classes[name] ?? ArchivedClass(chain: chain, everyObjectKeys: keys)
            entry.allKeys.formUnion(keys)
            entry.everyObjectKeys.formIntersection(keys)
            classes[name] = entry
        }
        return classes
    }

    /// The classes of every model cache of the corpus and the real stores together.
    static func classesOfCorpusCaches() throws -> [String: ArchivedClass] {
        var merged: [String: ArchivedClass] = [:]
        for url in corpusCacheStores {
            for (name, entry) in try classes(of: try inflatedCache(of: url)) {
                guard var known = merged[name] else {
                    merged[name] = entry
                    continue
                }
                known.allKeys.formUnion(entry.allKeys)
                known.everyObjectKeys.formIntersection(entry.everyObjectKeys)
                merged[name] = known
            }
        }
        return merged
    }

    /// An archived value as comparable text: entities and properties by name (they refer to
    /// each other), collections by their elements, plain values as they are.
    static func described(_ reference: PropertyListValue?, in archive: KeyedArchive, depth: Int = 0) -> String {
        guard let value = archive.object(reference) else { return "nil" }
        guard depth < 6, let fields = value.dictionaryValue, fields["$class"] != nil else { return "\(value)" }
        switch archive.className(of: value) {
        case "NSEntityDescription": return "entity " + (archive.string(value["NSEntityName"]) ?? "?")
        case "NSAttributeDescription", "NSRelationshipDescription", "NSDerivedAttributeDescription", "NSFetchedPropertyDescription":
            return "property " + (archive.string(value["NSPropertyName"]) ?? "?")
        case "NSFetchIndexDescription":
            let elements = archive.array(value["NSIndexElements"]).map { described($0["NSPropertyName"], in: archive, depth: depth + 1) }
            return "index \(archive.string(value["NSIndexName"]) ?? "?") \(elements)"
        case "NSMutableString", "NSString": return "\(PropertyListValue.string(archive.string(value) ?? ""))"
        default:
            if fields["NS.keys"] != nil {
                return "\(archive.dictionary(value).map { "\($0.key): \(described($0.value, in: archive, depth: depth + 1))" }.sorted())"
            }
            if fields["NS.objects"] != nil { return "\(archive.array(value).map { described($0, in: archive, depth: depth + 1) })" }
            return "\(archive.className(of: value) ?? "?")"
        }
    }

    /// The stores of the corpus and of `real-stores` that have a model cache.
    static var corpusCacheStores: [URL] {
        let real = ["FinalCutEvent.sqlite", "FinalCutLibrary.sqlite"].map(Fixtures.store)
        let corpus = Corpus.stores.map(\.url).filter { url in
            guard let database = try? Fixtures.readOnlyDatabase(at: url.path) else { return false }
            defer { database.close() }
            return (try? database.scalar("SELECT count(*) FROM sqlite_master WHERE name = 'Z_MODELCACHE'"))??.int64Value == 1
        }
        return real + corpus
    }

    static func inflatedCache(of url: URL) throws -> Data {
        let database = try Fixtures.readOnlyDatabase(at: url.path)
        defer { database.close() }
        let blob = try database.scalar("SELECT Z_CONTENT FROM Z_MODELCACHE")?.dataValue ?? Data()
        return try RawDeflate.inflate(blob)
    }
}
