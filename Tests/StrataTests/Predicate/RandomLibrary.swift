import Foundation
import Testing
@testable import Strata

/// A Library store filled from a seed: authors, books and e-books, tags, pages, some values nil.
/// The domains its values are drawn from are public so that random predicates can aim at them.
struct RandomLibrary {
    static let authorNames = ["Tolkien", "Le Guin", "Lèvi", "herbert"]
    static let tagNames = ["Fantasy", "Classic", "Sci-Fi", "Epic"]
    static let titles = ["The Hobbit", "the hobbit", "Dune", "Élan Vital", "The Lord of the Rings", "Earthsea", "Mort", "Solaris"]
    static let pageTexts = ["Once upon", "ONCE more", "The end"]
    static let formats = ["epub", "pdf"]
    static let bookCount = 30
    /// Every value `published` can take: seconds since 2001 of a whole number of megaseconds.
    static func published(_ step: Int) -> Double { Double(step) * 1e6 - 2e8 }

    let fixture: LibraryFixture
    /// A second connection's context, so that the evaluator reads what was saved, not what the
    /// writing context still holds.
    let reader: ObjectContext

    init(seed: UInt64) throws {
        let fixture = try LibraryFixture()
        self.fixture = fixture
        var random = SplitMix(state: seed)
        let context = fixture.context
        try context.performAndWait {
            let authors = try Self.authorNames.enumerated().map { index, name in
                let author = try context.insert("Author")
                try author.setValue(name, forKey: "name")
                try author.setValue(Int64(index * 3 + random.next(3)), forKey: "remoteID")
                return author
            }
            let tags = try Self.tagNames.map { name in
                let tag = try context.insert("Tag")
                try tag.setValue(name, forKey: "name")
                return tag
            }
            for index in 0..<Self.bookCount {
                let book = try context.insert(random.next(4) == 0 ? "EBook" : "Book")
                try book.setValue(Self.titles[random.next(Self.titles.count)], forKey: "title")
                try book.setValue(String(format: "978%010d", index), forKey: "isbn")
                try book.setValue(random.next(5) == 0 ? nil : Double(random.next(11)) / 2, forKey: "rating")
                if random.next(3) != 0 { try book.setValue(Date(timeIntervalSinceReferenceDate: Self.published(random.next(400))), forKey: "published") }
                if random.next(4) != 0 { try book.setValue(authors[random.next(authors.count)], forKey: "author") }
                for tag in tags where random.next(3) == 0 { try book.add(tag, toKey: "tags") }
                for number in 0..<random.next(4) {
                    let page = try context.insert("Page")
                    try page.setValue(number + 1, forKey: "number")
                    if random.next(2) == 0 { try page.setValue(Self.pageTexts[random.next(Self.pageTexts.count)], forKey: "text") }
                    try book.add(page, toKey: "pages")
                }
                if book.entity.name == "EBook" {
                    try book.setValue(Self.formats[random.next(Self.formats.count)], forKey: "format")
                    try book.setValue(Int64(random.next(300)), forKey: "fileSize")
                }
            }
            try context.save()
        }
        reader = try fixture.otherContext()
    }

    func keysSelected(by predicate: ObjectPredicate, entity name: String) throws -> Set<Int64> {
        try fixture.keysSelected(by: predicate, entity: name)
    }

    func keysAccepted(by predicate: ObjectPredicate, entity name: String) throws -> Set<Int64> {
        try fixture.keysAccepted(by: predicate, entity: name, in: reader)
    }

    func someTag() throws -> ObjectID {
        let key = try #require(try fixture.store.database.scalar("SELECT MIN(Z_PK) FROM ZTAG")?.int64Value)
        return ObjectID(entityName: "Tag", storeIdentifier: fixture.store.metadata.uuid, key: .permanent(key))
    }
}

extension LibraryFixture {
    /// The keys of the rows of `name` (sub-entities included) that the compiled predicate selects.
    func keysSelected(by predicate: ObjectPredicate, entity name: String) throws -> Set<Int64> {
        let model = store.model
        let entity = try #require(model.entity(named: name)), table = try #require(store.layout.entity(named: name))
        let compiled = try PredicateSQL(predicate, entity: entity, model: model, layout: store.layout)
        let sql = "SELECT t0.Z_PK FROM \(table.tableName) t0 WHERE t0.Z_ENT BETWEEN \(table.numberRange.lowerBound) AND \(table.numberRange.upperBound) AND (\(compiled.condition))"
        return Set(try store.database.rows(sql, compiled.arguments).compactMap { $0[0].int64Value })
    }

    /// The keys of the rows of `name` whose objects, read in `context`, the evaluator accepts.
    func keysAccepted(by predicate: ObjectPredicate, entity name: String, in context: ObjectContext? = nil) throws -> Set<Int64> {
        let table = try #require(store.layout.entity(named: name))
        let names = Dictionary(uniqueKeysWithValues: store.layout.entities.map { ($0.number, $0.name) })
        let rows = try store.database.rows(
            "SELECT Z_PK, Z_ENT FROM \(table.tableName) WHERE Z_ENT BETWEEN \(table.numberRange.lowerBound) AND \(table.numberRange.upperBound)")
        let context = try context ?? otherContext()
        let storeID = store.metadata.uuid
        return try context.performAndWait {
            var accepted: Set<Int64> = []
            for row in rows {
                let key = row[0].int64Value ?? 0, entity = names[Int(row[1].int64Value ?? 0)] ?? name
                let object = context.object(with: ObjectID(entityName: entity, storeIdentifier: storeID, key: .permanent(key)))
                if try predicate.evaluate(with: object) { accepted.insert(key) }
            }
            return accepted
        }
    }
}

/// A small seeded generator, so a failing case can be replayed.
struct SplitMix {
    var state: UInt64

    mutating func next(_ bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int((z ^ (z >> 31)) % UInt64(bound))
    }

    /// True `numerator` times in `denominator`.
    mutating func chance(_ numerator: Int, in denominator: Int) -> Bool { next(denominator) < numerator }

    mutating func pick<T>(_ values: [T]) -> T { values[next(values.count)] }
}
