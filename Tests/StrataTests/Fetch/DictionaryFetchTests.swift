import Foundation
import Testing
@testable import Strata

/// Dictionary fetches, aggregates, groups and HAVING agree with plain SQL on the same data.
@Suite struct DictionaryFetchTests {
    /// Runs plain SQL on the library's store.
    private func sql(_ library: FetchTestLibrary, _ text: String) throws -> [[DatabaseValue]] {
        try library.store.withConnection { try library.store.database.rows(text) }
    }

    private func request(_ select: String, groupBy: [String] = [], having: String? = nil, sort: [String] = [], where format: String? = nil) throws -> FetchRequest {
        var request = FetchRequest(entityName: "Book", predicate: try format.map { try ObjectPredicate(format: $0) })
        request.resultType = .dictionary
        request.propertiesToFetch = try FetchedProperty.list(select)
        request.propertiesToGroupBy = groupBy
        request.havingPredicate = try having.map { try ObjectPredicate(format: $0) }
        request.sortDescriptors = try sort.map { try ObjectSortDescriptor(parsing: $0) }
        return request
    }

    @Test func groupedAggregatesAgreeWithPlainSQL() throws {
        let library = try FetchTestLibrary()
        let rows = try library.store.fetchDictionaries(
            request("author.name as author, avg(rating) as mean, sum(rating), min(rating), max(rating), count(rating), count(*)",
                groupBy: ["author.name"], sort: ["author"]))
        let expected = try sql(library, """
            SELECT a.ZNAME, AVG(b.ZRATING), TOTAL(b.ZRATING), MIN(b.ZRATING), MAX(b.ZRATING), COUNT(b.ZRATING), COUNT(*)
            FROM ZBOOK b LEFT JOIN ZAUTHOR a ON a.Z_PK = b.ZAUTHOR GROUP BY a.ZNAME ORDER BY a.ZNAME
            """)
        #expect(rows.count == expected.count)
        for (row, plain) in zip(rows, expected) {
            #expect(row["author"]?.attributeValue == plain[0].stringValue.map(AttributeValue.string))
            #expect(row["mean"]?.attributeValue == plain[1].doubleValue.map(AttributeValue.double))
            #expect(row["sum_rating"] == .attribute(.double(plain[2].doubleValue ?? -1)))
            #expect(row["min_rating"]?.attributeValue == plain[3].doubleValue.map(AttributeValue.double))
            #expect(row["max_rating"]?.attributeValue == plain[4].doubleValue.map(AttributeValue.double))
            #expect(row["count_rating"] == .attribute(.integer(plain[5].int64Value ?? -1)))
            #expect(row["count"] == .attribute(.integer(plain[6].int64Value ?? -1)))
        }
        #expect(rows.first?["author"] == nil, "the group of books without an author comes first, as NULL sorts first")
    }

    @Test func havingFiltersGroupsByTheFetchedNames() throws {
        let library = try FetchTestLibrary()
        let rows = try library.store.fetchDictionaries(
            request("author.name as author, count(*) as books, avg(rating) as mean", groupBy: ["author.name"], having: "books >= 2 AND mean > 3.9",
                sort: ["mean:desc"], where: "rating != nil"))
        let expected = try sql(library, """
            SELECT a.ZNAME, COUNT(*), AVG(b.ZRATING) AS mean FROM ZBOOK b JOIN ZAUTHOR a ON a.Z_PK = b.ZAUTHOR WHERE b.ZRATING IS NOT NULL
            GROUP BY a.ZNAME HAVING COUNT(*) >= 2 AND mean > 3.9 ORDER BY mean DESC
            """)
        #expect(rows.map { $0["author"]?.attributeValue } == expected.map { $0[0].stringValue.map(AttributeValue.string) })
        #expect(rows.map { $0["books"] } == expected.map { .attribute(.integer($0[1].int64Value ?? -1)) })
        #expect(!rows.isEmpty && rows.count < 3)
    }

    @Test func standardDeviationAndMedianAgreeWithSwift() throws {
        let library = try FetchTestLibrary()
        let ratings = try sql(library, "SELECT ZRATING FROM ZBOOK WHERE ZRATING IS NOT NULL ORDER BY ZRATING").compactMap { $0[0].doubleValue }
        let mean = ratings.reduce(0, +) / Double(ratings.count)
        let deviation = (ratings.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(ratings.count)).squareRoot()
        let median = ratings.count % 2 == 1 ? ratings[ratings.count / 2] : (ratings[ratings.count / 2 - 1] + ratings[ratings.count / 2]) / 2
        let row = try #require(library.store.fetchDictionaries(request("stddev(rating) as sd, median(rating) as middle, average(rating)")).first)
        let sd = try #require(row["sd"]?.attributeValue.flatMap { if case .double(let value) = $0 { value } else { nil } })
        #expect(abs(sd - deviation) < 1e-12)
        #expect(row["middle"] == .attribute(.double(median)))
        #expect(row["avg_rating"] == .attribute(.double(mean)))
        let empty = try #require(library.store.fetchDictionaries(request("median(rating) as m, stddev(rating) as s, sum(pages.@count) as p", where: "FALSEPREDICATE")).first)
        #expect(empty["m"] == nil && empty["s"] == nil)
    }

    @Test func toOnesComeBackAsObjectIDsAndDistinctRowsOnce() throws {
        let library = try FetchTestLibrary()
        var request = try request("author", where: "author != nil")
        request.returnsDistinctResults = true
        let rows = try library.store.fetchDictionaries(request)
        #expect(rows.count == 3)
        #expect(rows.allSatisfy { if case .object(let id)? = $0["author"] { id.entityName == "Author" && id.primaryKey != nil } else { false } })
        let all = try library.store.fetchDictionaries(FetchRequest(entityName: "Author").dictionaries())
        #expect(all.first?.names.sorted() == ["born", "name", "remoteID"])
        #expect(all.count == 3)
    }

    @Test(arguments: [
        ("avg(title)", [String](), "avg(title): avg needs a numeric attribute; 'title' is a string attribute"),
        ("title, count(*)", ["author.name"], "'title' is fetched but neither grouped nor aggregated; add it to the group-by keys or aggregate it"),
        ("title, title", [], "two fetched properties are named 'title'; give one an alias with 'as'"),
        ("titel", [], "entity 'Book' has no property 'titel' (in titel); did you mean 'title'?"),
    ])
    func badSelectionsNameTheirFault(select: String, groupBy: [String], message: String) throws {
        let library = try FetchTestLibrary()
        #expect(performing: { _ = try library.store.fetchDictionaries(try request(select, groupBy: groupBy)) }, throws: { error in
            String(describing: error).hasPrefix(message)
        })
    }

    @Test func aFetchedNameSortsWhateverTheRequestsResultType() throws {
        let library = try FetchTestLibrary()
        var request = FetchRequest(entityName: "Book", sortDescriptors: [ObjectSortDescriptor("n", ascending: false), ObjectSortDescriptor("author")])
        request.propertiesToFetch = try FetchedProperty.list("author.name as author, count(*) as n")
        request.propertiesToGroupBy = ["author.name"]
        let rows = try library.store.fetchDictionaries(request)
        #expect(rows.map { $0["n"] } == [.attribute(.integer(3)), .attribute(.integer(2)), .attribute(.integer(2)), .attribute(.integer(1))])
    }

    @Test func selectListsParseWithColumnsInTheirErrors() throws {
        #expect(try FetchedProperty.list("location, avg(age) as mean_age, COUNT(*)") == [
            .keyPath("location"), .aggregate(.average, of: "age", as: "mean_age"), .count(),
        ])
        #expect(try FetchedProperty.list("median(a.b)")[0].name == "median_a_b")
        #expect(throws: FetchRequestError("select list, column 6 ('avrg(age)'): unknown function 'avrg'; functions: avg, sum, stddev, min, max, median, count")) {
            try FetchedProperty.list("name, avrg(age)")
        }
        #expect(throws: FetchRequestError("select list, column 1 ('sum(*)'): only count takes '*'")) { try FetchedProperty.list("sum(*)") }
        #expect(try FetchedProperty.list("avg( age ) as mean, count (*)") == [.aggregate(.average, of: "age", as: "mean"), .count()])
        for text in ["a as", "title as x as y", "first last"] {
            #expect(throws: FetchRequestError("select list, column 1 ('\(text)'): expected one key path or aggregate, then optionally 'as NAME'")) {
                try FetchedProperty.list(text)
            }
        }
        #expect(throws: FetchRequestError("select list, column 6 (''): expected a key path or an aggregate such as avg(age)")) { try FetchedProperty.list("name,") }
    }
}

extension FetchRequest {
    /// The request with dictionary results.
    fileprivate func dictionaries() -> FetchRequest {
        var request = self
        request.resultType = .dictionary
        return request
    }
}
