import Foundation
import Testing
@testable import Strata

/// The aggregates' one vocabulary: every spelling Core Data and Strata give an aggregate maps
/// to it and back, an unknown name is an error naming it, and the parsers, the derivations and
/// the select lists all read the names through it.
@Suite struct AggregateFunctionTests {
    /// Each aggregate's spellings as Core Data writes them (`NSExpression`'s function names,
    /// the collection operators of key paths) and as a select list does.
    static let spellings: [(function: AggregateFunction, name: String, coreData: String, keyPath: String?)] = [
        (.average, "avg", "average:", "@avg"),
        (.sum, "sum", "sum:", "@sum"),
        (.stddev, "stddev", "stddev:", nil),
        (.min, "min", "min:", "@min"),
        (.max, "max", "max:", "@max"),
        (.median, "median", "median:", nil),
        (.count, "count", "count:", "@count"),
        (.mode, "mode", "mode:", nil),
    ]

    @Test func everySpellingMapsToItsAggregateAndBack() throws {
        #expect(Self.spellings.map(\.function) == AggregateFunction.allCases)
        for (function, name, coreData, keyPath) in Self.spellings {
            #expect(function.rawValue == name)
            #expect(function.coreDataName == coreData)
            #expect(function.keyPathOperator == keyPath)
            #expect(AggregateFunction(coreDataName: coreData) == function)
            #expect(keyPath.flatMap(AggregateFunction.init(keyPathOperator:)) == keyPath.map { _ in function })
            for spelling in [name, name.uppercased(), coreData, String(coreData.dropLast())] + (keyPath.map { [$0] } ?? []) {
                #expect(try AggregateFunction(named: spelling) == function, "\(spelling)")
            }
        }
        #expect(try AggregateFunction(named: "Average") == .average)
        #expect(AggregateFunction.keyPathAggregates.map(\.keyPathOperator) == ["@count", "@sum", "@avg", "@min", "@max"])
    }

    @Test func anUnknownNameIsAnErrorNamingIt() {
        #expect(throws: UnknownAggregateError(name: "total")) { try AggregateFunction(named: "total") }
        let error = #expect(throws: UnknownAggregateError.self) { try AggregateFunction(named: "@median") }
        #expect(error?.description == "unknown aggregate '@median'; aggregates: avg, sum, stddev, min, max, median, count, mode")
        // The exact lookups take the spelling as Core Data writes it, and nothing else.
        #expect(AggregateFunction(coreDataName: "average") == nil)
        #expect(AggregateFunction(coreDataName: "avg:") == nil)
        #expect(AggregateFunction(keyPathOperator: "@median") == nil)
        #expect(AggregateFunction(keyPathOperator: "avg") == nil)
    }

    @Test func eachSaysWhatItGivesAndWhereItIsOffered() {
        let results = AggregateFunction.allCases.map { "\($0.rawValue): \($0.result)" }
        #expect(results == [
            "avg: real", "sum: numberLikeValues", "stddev: real", "min: oneOfValues", "max: oneOfValues", "median: real", "count: integer",
            "mode: list",
        ])
        #expect(AggregateFunction.allCases.filter(\.takesNumbers) == [.average, .sum, .stddev, .median, .mode])
        #expect(AggregateFunction.allCases.filter { !$0.isSelectable } == [.mode])
        #expect(AggregateFunction.allCases.filter(\.isDerivable) == [.sum, .min, .max, .count])
    }

    /// `mode:`'s list is no column's value: a dictionary fetch refuses it, and a select list
    /// reads `mode(…)` as the predicate syntax's function, as it did before `mode` was an
    /// ``AggregateFunction``.
    @Test func aDictionaryFetchRefusesModesList() throws {
        let library = try FetchTestLibrary()
        var request = FetchRequest(entityName: "Book")
        request.propertiesToFetch = [.aggregate(.mode, of: "rating")]
        #expect(throws: FetchRequestError("mode(rating): mode gives a list, which a dictionary fetch does not select")) {
            try library.store.fetchDictionaries(request)
        }
        let listed = try FetchedProperty.list("mode(rating)")
        #expect(listed.first?.function == nil && listed.first?.expression != nil)
    }

    /// The predicate syntax, the select lists and the derivations name an aggregate by any of
    /// its spellings and keep Core Data's.
    @Test func theParsersReadTheNamesThroughIt() throws {
        for (function, name, coreData, keyPath) in Self.spellings {
            let called = try ObjectPredicate.Expression(format: "\(name)({1, 2})")
            guard case .function(let calledName, let arguments) = called else {
                Issue.record("\(name)({1, 2}) is \(called), not a function")
                continue
            }
            #expect(calledName == coreData && arguments.count == 1, "\(called)")
            #expect(ExpressionFunction(rawValue: coreData) == .aggregate(function))
            if function.isSelectable {
                #expect(try FetchedProperty.list("\(name.uppercased())(age)") == [.aggregate(function, of: "age")])
            }
            if let keyPath {
                let predicate = try ObjectPredicate(format: "books.\(keyPath.uppercased()).rating > 1")
                #expect(predicate.description.contains("books.\(keyPath).rating"), "\(predicate)")
            }
            if function.isDerivable, function != .count {
                #expect(try Derivation(parsing: "pages.\(keyPath!).number") == .aggregate(relationship: "pages", function: function, attribute: "number"))
                #expect(try Derivation(parsing: "\(coreData)(pages.number)") == .aggregate(relationship: "pages", function: function, attribute: "number"))
            }
        }
        #expect(try ObjectPredicate.Expression(format: "average({1})") == ObjectPredicate.Expression(format: "avg({1})"))
        #expect(throws: DerivationError.self) { try Derivation(parsing: "pages.@avg.number") }
        #expect(throws: DerivationError.self) { try Derivation(parsing: "median:(pages.number)") }
    }
}
