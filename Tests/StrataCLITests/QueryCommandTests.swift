import Foundation
import Strata
import Testing
import StrataTestSupport

/// `strata query --select` parsed with parentheses and quotes, with date parts, and refusing a
/// value beside an aggregate without --group-by (issue 34, point 3).
@Suite struct QueryCommandTests {
    /// A Library store whose books were published at chosen instants in UTC.
    private func store(in folder: TemporaryFolder) throws -> String {
        let store = folder.url.appendingPathComponent("Library.sqlite").path
        let books = """
            [{"isbn": "9780000000001", "title": "A", "published": "2023-12-31T23:30:00Z", "rating": 4},
             {"isbn": "9780000000002", "title": "B", "published": "2024-01-01T00:30:00Z", "rating": 3},
             {"isbn": "9780000000003", "title": "C", "published": "2024-02-29T12:00:00Z", "rating": 5},
             {"isbn": "9780000000004", "title": "D", "published": "2024-02-01T06:00:00Z", "rating": 2},
             {"isbn": "9780000000005", "title": "E", "published": null}]
            """
        let made = try StrataRunner.run(["import", "Book", "-", "--create", "--store", store, "--model", ImportCommandTests.model], input: Data(books.utf8))
        #expect(made.status == 0, "\(made.standardError)")
        return store
    }

    @Test func groupsByYearAndMonthInUTC() throws {
        let folder = try TemporaryFolder()
        let store = try store(in: folder)
        // A time zone far from UTC changes nothing: parts are taken in UTC.
        let byYear = try StrataRunner.run(
            ["query", "Book", "--store", store, "--select", "FUNCTION(published, 'year') as y, count(*), avg(rating) as mean", "--group-by", "y", "--sort", "y", "--format", "csv"],
            environment: ["TZ": "Pacific/Kiritimati"])
        #expect(byYear.status == 0, "\(byYear.standardError)")
        // The book without a date has the model's default rating, 0.0.
        #expect(byYear.standardOutput == "y,count,mean\r\n,1,0.0\r\n2023,1,4.0\r\n2024,3,3.3333333333333335\r\n", "\(byYear.standardOutput)")

        let byMonth = try StrataRunner.run(
            ["query", "Book", "--store", store, "--select", "FUNCTION(published, 'strftime:', '%Y-%m') as month, count(*) as n", "--group-by", "month",
             "--where", "published != nil", "--having", "n > 1", "--format", "json"])
        #expect(byMonth.status == 0, "\(byMonth.standardError)")
        let rows = try #require(JSONSerialization.jsonObject(with: Data(byMonth.standardOutput.utf8)) as? [[String: Any]])
        #expect(rows.count == 1 && rows[0]["month"] as? String == "2024-02" && rows[0]["n"] as? Int == 2, "\(byMonth.standardOutput)")

        let filtered = try StrataRunner.run(
            ["fetch", "Book", "--store", store, "--where", "FUNCTION(published, 'weekday') == 5", "--select", "title", "--sort", "title", "--format", "csv"])
        let titles: [String] = filtered.standardOutput.components(separatedBy: "\r\n").dropFirst().dropLast().map { line in
            line.components(separatedBy: ",").last ?? ""
        }
        #expect(titles == ["C", "D"], "\(filtered.standardOutput)\(filtered.standardError)")
    }

    @Test func aValueBesideAnAggregateWithoutGroupByIsRefused() throws {
        let folder = try TemporaryFolder()
        let store = try store(in: folder)
        let refused = try StrataRunner.run(["query", "Book", "--store", store, "--select", "title, count(*)"])
        #expect(refused.status == 2)
        #expect(refused.standardOutput.isEmpty)
        #expect(refused.standardError.contains("'title' is beside an aggregate but neither grouped nor aggregated"), "\(refused.standardError)")
        #expect(refused.standardError.contains("add --group-by title"), "\(refused.standardError)")

        let unclosed = try StrataRunner.run(["query", "Book", "--store", store, "--select", "FUNCTION(published, 'year' as y, count(*)"])
        #expect(unclosed.status == 2)
        #expect(unclosed.standardError.contains("expected ')' to close FUNCTION(…)"), "\(unclosed.standardError)")
    }
}
