import Foundation
import Testing
@testable import Strata

/// The CoreDataMonk-style DSL builds exactly what the format parser builds.
@Suite struct PredicateDSLTests {
    /// Expects `dsl` to equal what `format` parses to with `arguments`.
    func check(
        _ dsl: ObjectPredicate, _ format: String, _ arguments: PredicateArgument...,
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) throws {
        let parsed = try ObjectPredicate(format: format, arguments: arguments)
        #expect(dsl == parsed, "\(format)", sourceLocation: sourceLocation)
    }

    let author = ObjectID(entityName: "Author", storeIdentifier: "F1E2D3C4-0000-4000-8000-000000000001", key: .permanent(7))

    @Test func keysAreKeyPathsSplitAtDots() {
        #expect((%"friend.age").components == ["friend", "age"])
        #expect(("name"%).expression == .keyPath(["name"]))
        #expect(PredicateKey("books.@sum.rating").components == ["books", "@sum", "rating"])
        #expect(PredicateKey(components: ["a.b"]).expression == .keyPath(["a.b"]))
        #expect((%"title").quantifier == nil)
        #expect((%"friends.age").any.quantifier == .any)
        #expect((%"friends.age").none.key.components == ["friends", "age"])
    }

    @Test func theModuloOperatorIsUntouched() {
        let seven = 7
        #expect(seven % 3 == 1)
        #expect(seven%3 == 1)
    }

    @Test func comparisonsWithSwiftValues() throws {
        let name = "Monk"
        try check(%"name" == "Monk", "name == 'Monk'")
        try check(%"name" == name, "name == %@", "Monk")
        try check(%"name" != "Monk", "name != 'Monk'")
        try check(%"age" < 30, "age < 30")
        try check(%"age" <= Int64(30), "age <= 30")
        try check(%"age" > Int32(30), "age > %d", 30)
        try check(%"age" >= Int16(-2), "age >= -2")
        try check(%"rating" >= 4.5, "rating >= 4.5")
        try check(%"weight" < Float(2.5), "weight < 2.5")
        try check(%"isRead" == true, "isRead == YES")
        try check(%"isRead" != false, "isRead != NO")
        try check(%"friend.age" == 30, "friend.age == 30")
        try check(%"pages.@count" > 2, "pages.@count > 2")
        let date = Date(timeIntervalSinceReferenceDate: 1000)
        try check(%"published" < date, "published < %@", .date(date))
        try check(%"author" == author, "author == %@", .object(author))
        let uuid = UUID()
        try check(%"uuid" == uuid, "uuid == %@", PredicateArgument(.uuid(uuid)))
    }

    @Test func nilAndUnsetOptionalsCompareWithNil() throws {
        try check(%"author" == nil, "author == nil")
        try check(%"author" != nil, "author != NULL")
        try check(%"author" == .null, "author == nil")
        let unset: Date? = nil
        try check(%"published" == unset, "published == nil")
        let set: String? = "x"
        try check(%"name" == set, "name == 'x'")
        #expect((%"author" == nil).description == "author == nil")
    }

    @Test func keysCompareWithKeys() throws {
        try check(%"owner" == %"author", "owner == author")
        try check(%"owner" != %"author", "owner != author")
        try check(%"started" < %"finished", "started < finished")
        try check(%"spent" <= %"budget.total", "spent <= budget.total")
        try check(%"finished" > %"started", "finished > started")
        try check(%"budget" >= %"spent", "budget >= spent")
        try check(%"friends.age"%.any > %"age", "ANY friends.age > age")
    }

    @Test func quantifiersAsCoreDataMonkWritesThem() throws {
        try check(%"friends.age"%.any > 30, "ANY friends.age > 30")
        try check(%"pages.number"%.all > 0, "ALL pages.number > 0")
        try check(%"tags.name"%.none == "Horror", "NONE tags.name == 'Horror'")
        try check((%"friends.age").any > 30, "SOME friends.age > 30")
        try check("friends.age"%.any > 30, "ANY friends.age > 30")
        try check("tags.name"%.any.beginsWith("F", options: .caseInsensitive), "ANY tags.name BEGINSWITH[c] 'F'")
        try check("tags.name"%.none.in(["a", "b"]), "NONE tags.name IN {'a', 'b'}")
    }

    @Test func andOrNotGroupAsTheParserDoes() throws {
        let a = %"a" == 1, b = %"b" == 2, c = %"c" == 3, d = %"d" == 4
        try check(a && b && c, "a == 1 AND b == 2 AND c == 3")
        try check(a || b || c, "a == 1 OR b == 2 OR c == 3")
        try check(a || b && c, "a == 1 OR b == 2 AND c == 3")
        try check(a && b || c && d, "a == 1 AND b == 2 OR c == 3 AND d == 4")
        try check(a && (b || c), "a == 1 AND (b == 2 OR c == 3)")
        try check(a && (b && c), "a == 1 AND (b == 2 AND c == 3)")
        try check(a || (b || c), "a == 1 OR (b == 2 OR c == 3)")
        try check(!a && b, "NOT a == 1 AND b == 2")
        try check(!(a || b), "NOT (a == 1 OR b == 2)")
        try check(!(!a), "NOT NOT a == 1")
        try check(try ObjectPredicate(format: "a == 1 AND b == 2") && c, "a == 1 AND b == 2 AND c == 3")
        try check(
            %"name" == "Monk" && %"age" > 30 || !(%"location" == "Taipei"),
            "name == 'Monk' AND age > 30 OR NOT location == 'Taipei'")
    }

    @Test func descriptionsParseBackToTheSamePredicate() throws {
        let predicate = %"name" == "Monk" && (%"age" >= 18 || %"tags.name"%.any == "x") && !(%"author" == nil)
            && "title"%.like("T*", options: .caseInsensitive) && (%"rating").between(1...5)
        #expect(predicate.description == "name == \"Monk\" AND (age >= 18 OR ANY tags.name == \"x\") AND NOT author == nil"
            + " AND title LIKE[c] \"T*\" AND rating BETWEEN {1, 5}")
        #expect(try ObjectPredicate(format: predicate.description) == predicate)
    }

    @Test func stringAndCollectionMethods() throws {
        try check((%"name").in(["Monk", "Knight"]), "name IN {'Monk', 'Knight'}")
        try check((%"name").in(["Monk", "Knight"]), "name IN %@", .array(["Monk", "Knight"]))
        try check((%"rating").in([3].lazy.map { $0 + 1 }), "rating IN {4}")
        try check((%"rating").between(1...5), "rating BETWEEN {1, 5}")
        try check("rating"%.between(1.5...4.5), "rating BETWEEN {1.5, 4.5}")
        try check("title"%.contains("ring", options: [.caseInsensitive, .diacriticInsensitive]), "title CONTAINS[cd] 'ring'")
        try check("title"%.beginsWith("the", options: .caseInsensitive), "title BEGINSWITH[c] 'the'")
        try check("title"%.endsWith("bit", options: .diacriticInsensitive), "title ENDSWITH[d] 'bit'")
        try check("title"%.like("The H?bb*"), "title LIKE 'The H?bb*'")
        try check("isbn"%.matches("[0-9]{13}"), "isbn MATCHES '[0-9]{13}'")
        try check("tags"%.contains(author), "tags CONTAINS %@", .object(author))
    }

    @Test func whereParsesAFormatWithSwiftValues() throws {
        let pattern = "Mo*"
        try check(.where("name like %@", pattern), "name LIKE 'Mo*'")
        try check(.where("%K >= %d AND name IN %@", "age", 18, ["a", "b"]), "age >= 18 AND name IN {'a', 'b'}")
        let date = Date(timeIntervalSinceReferenceDate: 1000)
        try check(.where("published < %@ OR author == %@", date, PredicateArgument.object(author)),
            "published < %@ OR author == %@", .date(date), .object(author))
        try check(ObjectPredicate.where("TRUEPREDICATE") && %"a" == 1, "TRUEPREDICATE AND a == 1")
        let parserError = #expect(throws: PredicateSyntaxError.self) { try ObjectPredicate(format: "name == AND x") }
        let whereError = #expect(throws: PredicateSyntaxError.self) { try ObjectPredicate.where("name == AND x") }
        #expect(whereError == parserError)
    }

    /// Expects `predicate` to hold for the Hobbit and the bare book as given.
    func expect(
        _ predicate: ObjectPredicate, hobbit: Bool, bare: Bool, on shelf: PredicateEvaluatorTests.Shelf,
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) throws {
        let results = try shelf.fixture.context.performAndWait {
            (try predicate.evaluate(with: shelf.hobbit), try predicate.evaluate(with: shelf.bare))
        }
        #expect(results == (hobbit, bare), "\(predicate)", sourceLocation: sourceLocation)
    }

    @Test func evaluatesOnObjects() throws {
        let shelf = try PredicateEvaluatorTests.Shelf()
        try expect(%"title" == "The Hobbit", hobbit: true, bare: false, on: shelf)
        try expect(%"rating" > 4 && %"author" != nil, hobbit: true, bare: false, on: shelf)
        try expect(%"published" == nil, hobbit: false, bare: true, on: shelf)
        try expect("title"%.contains("ELAN", options: [.caseInsensitive, .diacriticInsensitive]), hobbit: false, bare: true, on: shelf)
        try expect(%"tags.name"%.any == "Classic", hobbit: true, bare: false, on: shelf)
        try expect(%"tags.name"%.none == "Classic", hobbit: false, bare: true, on: shelf)
        try expect(%"pages.number"%.all > 1, hobbit: false, bare: true, on: shelf)
        try expect(%"author" == shelf.tolkien.objectID, hobbit: true, bare: false, on: shelf)
        try expect("tags"%.contains(shelf.fantasy.objectID), hobbit: true, bare: false, on: shelf)
        try expect(%"author.name" == "Tolkien" || "isbn"%.matches("[0-9]{10}"), hobbit: true, bare: true, on: shelf)
        try expect(!(%"pages.@count" == 3), hobbit: false, bare: true, on: shelf)
        try expect("rating"%.between(4...5), hobbit: true, bare: false, on: shelf)
    }
}
