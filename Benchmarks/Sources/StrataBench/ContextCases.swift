import CBaseline
import Foundation
import GRDB
import Strata

/// Cases 1 to 4: a context inserting, fetching and updating against the same work in C and GRDB.
struct ContextCases {
    let bench: Workbench
    let rounds: Int
    /// How many predicate fetches case 3 runs.
    let fetches: Int

    // MARK: - 1. Insert

    func insert() throws -> [CaseResult] {
        var strata = Timings(), c = Timings(), grdb = Timings()
        for _ in 0..<rounds {
            let strataPath = try bench.fresh(bench.empty)
            try strata.time { try insertThroughContext(into: strataPath) }
            let cPath = try bench.fresh(bench.empty)
            try withBaselineRows(bench.people) { rows, count in
                try c.time { try baseline { baseline_insert(cPath, rows, count, $0, $1) } }
            }
            let grdbPath = try bench.fresh(bench.empty)
            try grdb.time { try GRDBPerson.insert(bench.people, into: grdbPath) }
            try expectSameRows(strataPath, cPath, grdbPath)
            [strataPath, cPath, grdbPath].forEach(bench.discard)
        }
        return [
            CaseResult(number: "1", title: "insert \(bench.people.count) through a context and save", strata: strata.median,
                       baselineName: "C insert", baseline: c.median, goal: .atMost(1.5)),
            CaseResult(number: "1b", title: "the same insert", strata: strata.median, baselineName: "GRDB PersistableRecord",
                       baseline: grdb.median, goal: .none),
        ]
    }

    /// Case 1's work: a context inserts every person and saves; with `history`, on a store
    /// that records persistent history.
    func insertThroughContext(into path: String, history: Bool = false) throws {
        let context = try context(on: path, history: history)
        try context.performAndWait {
            for record in bench.people {
                let person = try Person(context: context)
                person.id = record.id
                person.name = record.name
                person.age = record.age
                person.score = record.score
                person.city = record.city
            }
            try context.save()
        }
    }

    // MARK: - 2. Fetch all

    /// Case 2 on the store of `bench.people` (rows "2" and "2b"), or on `store` holding `count`
    /// people (case 7's big store: rows "2m" and "2mb").
    func fetchAll(from store: String? = nil, count: Int? = nil) throws -> [CaseResult] {
        let path = store ?? bench.full, number = store == nil ? "2" : "2m"
        var strata = Timings(), c = Timings(), grdb = Timings()
        for _ in 0..<rounds {
            let fetched = try strata.time { try fetchEveryone(from: path) }
            var expected = baseline_digest()
            try c.time { try baseline { baseline_fetch_all(path, &expected, $0, $1) } }
            let records = try grdb.time { try GRDBPerson.fetchAll(from: path) }
            try expect(fetched, equals: Digest(expected), "fetch all")
            try expect(Digest(records), equals: Digest(expected), "GRDB fetch all")
        }
        return [
            CaseResult(number: number, title: "fetch \(count ?? bench.people.count) objects, read every attribute", strata: strata.median,
                       baselineName: "C step and read", baseline: c.median, goal: .atMost(3)),
            CaseResult(number: number + "b", title: "the same fetch", strata: strata.median, baselineName: "GRDB FetchableRecord",
                       baseline: grdb.median, goal: .atMost(0.77)),
        ]
    }

    private func fetchEveryone(from path: String) throws -> Digest {
        let context = try context(on: path)
        return try context.performAndWait {
            var request = FetchRequest(entityName: People.entityName)
            request.returnsObjectsAsFaults = false
            var digest = Digest()
            for case let person as Person in try context.fetch(request) { digest.add(person) }
            return digest
        }
    }

    // MARK: - 3. ObjectPredicate fetches

    /// The (city, age) pairs of case 3: each selects about a hundredth of a city's people.
    private var queries: [(city: String, age: Int32)] {
        (0..<fetches).map { ("City \($0 % People.cityCount)", 89) }
    }

    func predicateFetches() throws -> [CaseResult] {
        var strata = Timings(), c = Timings()
        let queries = self.queries
        let cities = queries.map { strdup($0.city) }
        defer { cities.forEach { free($0) } }
        let ages = queries.map(\.age)
        for _ in 0..<rounds {
            let fetched = try strata.time { try fetchMatching(queries, from: bench.full) }
            var expected = baseline_digest()
            try c.time {
                try cities.map { UnsafePointer($0) }.withUnsafeBufferPointer { cityList in
                    try baseline { baseline_fetch_matching(bench.full, cityList.baseAddress, ages, Int32(ages.count), &expected, $0, $1) }
                }
            }
            try expect(fetched, equals: Digest(expected), "predicate fetches")
        }
        return [
            CaseResult(number: "3", title: "\(fetches) fetches `city == %@ AND age > %@`", strata: strata.median,
                       baselineName: "C, same SQL", baseline: c.median, goal: .atMost(2)),
        ]
    }

    private func fetchMatching(_ queries: [(city: String, age: Int32)], from path: String) throws -> Digest {
        let context = try context(on: path)
        return try context.performAndWait {
            var digest = Digest()
            for query in queries {
                var request = FetchRequest(
                    entityName: People.entityName,
                    predicate: try ObjectPredicate(format: "city == %@ AND age > %@", PredicateArgument(.string(query.city)),
                                             PredicateArgument(.integer(Int64(query.age)))))
                request.returnsObjectsAsFaults = false
                for case let person as Person in try context.fetch(request) { digest.add(person) }
            }
            return digest
        }
    }

    // MARK: - 4. Update all

    /// Case 4 against C, then against GRDB.
    func updateAll() throws -> [CaseResult] {
        var strata = Timings(), c = Timings(), grdb = Timings()
        for _ in 0..<rounds {
            let strataPath = try bench.fresh(bench.full)
            try strata.time { try raiseScores(in: strataPath) }
            let cPath = try bench.fresh(bench.full)
            try c.time { try baseline { baseline_update_scores(cPath, $0, $1) } }
            let grdbPath = try bench.fresh(bench.full)
            try grdb.time { try GRDBPerson.raiseScores(in: grdbPath) }
            try expectSameRows(strataPath, cPath, grdbPath)
            try expectSameVersions(strataPath, cPath, grdbPath)
            [strataPath, cPath, grdbPath].forEach(bench.discard)
        }
        return [
            CaseResult(number: "4", title: "change one attribute of \(bench.people.count) objects and save",
                       strata: strata.median, baselineName: "C update loop", baseline: c.median, goal: .atMost(2)),
            CaseResult(number: "4b", title: "the same change", strata: strata.median, baselineName: "GRDB PersistableRecord update",
                       baseline: grdb.median, goal: .none),
        ]
    }

    /// Every contender raised each row's `Z_OPT` once.
    private func expectSameVersions(_ paths: String...) throws {
        let sums = try paths.map { path in
            try GRDBPerson.queue(path).read { db in try Int64.fetchOne(db, sql: "SELECT sum(Z_OPT) FROM ZPERSON") ?? 0 }
        }
        for (path, sum) in zip(paths, sums).dropFirst() where sum != sums[0] {
            throw CommandFailure(description: "\(path) holds versions summing to \(sum), but \(paths[0]) \(sums[0])")
        }
    }

    /// Case 4's work: fetch everyone, raise each score, save; with `history`, on a store that
    /// records persistent history.
    func raiseScores(in path: String, history: Bool = false) throws {
        let context = try context(on: path, history: history)
        try context.performAndWait {
            var request = FetchRequest(entityName: People.entityName)
            request.returnsObjectsAsFaults = false
            for case let person as Person in try context.fetch(request) { person.score += 1 }
            try context.save()
        }
    }

    // MARK: - Support

    private func context(on path: String, history: Bool = false) throws -> ObjectContext {
        var configuration = Database.Configuration()
        configuration.tracksPersistentHistory = history
        let store = try PersistentStore.open(at: path, model: People.model, configuration: configuration)
        let context = ObjectContext(store: store, name: "bench")
        context.register([Person.self])
        return context
    }
}

/// What reading people saw, compared between contenders so that each did the same work.
struct Digest: Equatable {
    var rows: Int64 = 0
    var idSum: Int64 = 0
    var ageSum: Int64 = 0
    var scoreSum: Double = 0
    var textBytes: Int64 = 0

    init() {}

    init(_ digest: baseline_digest) {
        rows = digest.rows
        idSum = digest.id_sum
        ageSum = digest.age_sum
        scoreSum = digest.score_sum
        textBytes = digest.text_bytes
    }

    init(_ records: [GRDBPerson]) {
        for record in records {
            add(id: record.id, name: record.name, age: record.age, score: record.score, city: record.city)
        }
    }

    mutating func add(_ person: Person) {
        add(id: person.id, name: person.name, age: person.age, score: person.score, city: person.city)
    }

    mutating func add(id: Int64, name: String, age: Int32, score: Double, city: String) {
        rows += 1
        idSum += id
        ageSum += Int64(age)
        scoreSum += score
        textBytes += Int64(name.utf8.count + city.utf8.count)
    }

    static func == (lhs: Digest, rhs: Digest) -> Bool {
        lhs.rows == rhs.rows && lhs.idSum == rhs.idSum && lhs.ageSum == rhs.ageSum && lhs.textBytes == rhs.textBytes
            && abs(lhs.scoreSum - rhs.scoreSum) <= 1e-6 * max(1, abs(lhs.scoreSum))
    }
}

func expect(_ digest: Digest, equals expected: Digest, _ what: String) throws {
    guard digest == expected else {
        throw CommandFailure(description: "\(what) read \(digest), but the baseline read \(expected)")
    }
}

/// Checks that contenders left the same rows behind.
func expectSameRows(_ paths: String...) throws {
    let digests = try paths.map { path -> Digest in
        var digest = baseline_digest()
        try baseline { baseline_fetch_all(path, &digest, $0, $1) }
        return Digest(digest)
    }
    for (path, digest) in zip(paths, digests).dropFirst() where digest != digests[0] {
        throw CommandFailure(description: "\(path) holds \(digest), but \(paths[0]) holds \(digests[0])")
    }
}
