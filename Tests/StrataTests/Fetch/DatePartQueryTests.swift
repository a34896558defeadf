import Foundation
import Testing
@testable import Strata

/// Select lists split at top-level commas only, date parts (in UTC) in values, groups and
/// predicates, and a value beside an aggregate refused without groups (issue 34, point 3).
@Suite struct DatePartQueryTests {
    /// Authors born at instants chosen around the edges of years, months and days in UTC:
    /// the answers below are computed by hand from these.
    private static let births: [(name: String, born: String)] = [
        ("Old", "1892-01-03T00:00:00Z"),  // a Sunday, long before 1970
        ("Eve", "2000-12-31T23:59:59.500Z"),  // before 2001: a negative stored value with a fraction
        ("Late", "2023-12-31T23:30:00Z"),  // 2024 east of Greenwich, 2023 in UTC
        ("New", "2024-01-01T00:30:00Z"),  // a Monday
        ("Leap", "2024-02-29T12:00:00Z"),  // a Thursday
        ("Feb", "2024-02-01T06:00:00Z"),  // a Thursday
    ]

    private func library() throws -> LibraryFixture {
        let fixture = try LibraryFixture()
        try fixture.context.performAndWait {
            for (index, entry) in Self.births.enumerated() {
                let author = try fixture.context.insert("Author")
                try author.setValue(entry.name, forKey: "name")
                try author.setValue(Int64(index + 1), forKey: "remoteID")
                try author.setValue(ISO8601Text.date(from: entry.born), forKey: "born")
            }
            try fixture.context.save()
        }
        return fixture
    }

    private func rows(_ fixture: LibraryFixture, _ select: String, groupBy: [String] = [], where format: String? = nil, sort: String? = nil) throws -> [[String]] {
        var request = FetchRequest(entityName: "Author", predicate: try format.map { try ObjectPredicate(format: $0) })
        request.resultType = .dictionary
        request.propertiesToFetch = try FetchedProperty.list(select)
        request.propertiesToGroupBy = groupBy
        request.sortDescriptors = try sort.map { [try ObjectSortDescriptor(parsing: $0)] } ?? []
        return try fixture.store.fetchDictionaries(request).map { row in
            row.names.map { name in
                switch row[name] {
                case .attribute(.integer(let value))?: String(value)
                case .attribute(.string(let value))?: value
                case .attribute(.double(let value))?: String(value)
                case nil: "nil"
                case let other?: "\(other)"
                }
            }
        }
    }

    @Test func aSelectListSplitsAtTopLevelCommasOnly() throws {
        let list = try FetchedProperty.list(#"FUNCTION(born, 'year') as y, count(*), FUNCTION(born, "strftime:", '%Y,%m') as ym, name"#)
        #expect(list.map(\.name) == ["y", "count", "ym", "name"])
        #expect(list[0].expression == .function("FUNCTION", arguments: [.keyPath(["born"]), .value(.string("year"))]))
        #expect(list[1] == .count())
        #expect(list[2].expression == .function("FUNCTION", arguments: [.keyPath(["born"]), .value(.string("strftime:")), .value(.string("%Y,%m"))]))
        #expect(list[3] == .keyPath("name"))
        #expect(try FetchedProperty.list("FUNCTION(born, 'month')")[0].name == "month_born")
        #expect(try FetchedProperty.list("max(FUNCTION(born, 'year')) as last")[0] == .value(list[0].expression!, function: .max, as: "last"))
        #expect(throws: FetchRequestError("select list, column 7 ('FUNCTION(born, 'year' as y'): expected ')' to close FUNCTION(…), found 'the end of the predicate', at column 30")) {
            try FetchedProperty.list("title, FUNCTION(born, 'year' as y")
        }
    }

    @Test func datePartsAreTakenInUTC() throws {
        let fixture = try library()
        let parts = try rows(
            fixture,
            "name, FUNCTION(born, 'year'), FUNCTION(born, 'month'), FUNCTION(born, 'day'), FUNCTION(born, 'weekday'), FUNCTION(born, 'hour'), FUNCTION(born, 'minute'), FUNCTION(born, 'second')",
            sort: "remoteID")
        #expect(parts == [
            ["Old", "1892", "1", "3", "1", "0", "0", "0"],
            ["Eve", "2000", "12", "31", "1", "23", "59", "59"],
            ["Late", "2023", "12", "31", "1", "23", "30", "0"],
            ["New", "2024", "1", "1", "2", "0", "30", "0"],
            ["Leap", "2024", "2", "29", "5", "12", "0", "0"],
            ["Feb", "2024", "2", "1", "5", "6", "0", "0"],
        ])
    }

    @Test func groupsByYearAndByMonthCountAsComputedByHand() throws {
        let fixture = try library()
        #expect(try rows(fixture, "FUNCTION(born, 'year') as year, count(*) as n", groupBy: ["year"], sort: "year")
            == [["1892", "1"], ["2000", "1"], ["2023", "1"], ["2024", "3"]])
        #expect(try rows(fixture, "FUNCTION(born, 'strftime:', '%Y-%m') as month, count(*) as n", groupBy: ["FUNCTION(born, 'strftime:', '%Y-%m')"], sort: "month")
            == [["1892-01", "1"], ["2000-12", "1"], ["2023-12", "1"], ["2024-01", "1"], ["2024-02", "2"]])
        #expect(try rows(fixture, "FUNCTION(born, 'weekday') as weekday, count(*) as n", groupBy: ["weekday"], sort: "weekday")
            == [["1", "3"], ["2", "1"], ["5", "2"]])
    }

    @Test func datePartsFilterAsTheStoreAndTheContextAgree() throws {
        let fixture = try library()
        let predicate = "FUNCTION(born, 'year') == 2024 AND FUNCTION(born, 'month') == 2"
        #expect(try rows(fixture, "name", where: predicate, sort: "name") == [["Feb"], ["Leap"]])
        let inMemory = try fixture.context.performAndWait {
            let parsed = try ObjectPredicate(format: predicate)
            return try fixture.context.fetch(FetchRequest(entityName: "Author")).filter { try parsed.evaluate(with: $0) }
                .map { try $0.value(forKey: "name") as? String ?? "" }.sorted()
        }
        #expect(inMemory == ["Feb", "Leap"])
    }

    @Test func aValueBesideAnAggregateIsRefusedWithoutGroups() throws {
        let fixture = try library()
        #expect(throws: FetchRequestError("'name' is fetched beside an aggregate but is not grouped; group by it or aggregate it")) {
            try rows(fixture, "name, count(*)")
        }
        #expect(throws: FetchRequestError("'name' is fetched but neither grouped nor aggregated; add it to the group-by keys or aggregate it")) {
            try rows(fixture, "name, FUNCTION(born, 'year') as year, count(*)", groupBy: ["year"])
        }
        #expect(try rows(fixture, "min(name), count(*)") == [["Eve", "6"]])
    }
}
