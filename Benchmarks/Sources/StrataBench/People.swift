import CBaseline
import Foundation
import Strata

// MARK: - Model

/// The benchmarks' one entity: five attributes, an index on city, and `id` as the identity
/// imports match records by (a one-attribute uniqueness constraint, as a Core Data model
/// would declare it).
enum People {
    static let entityName = "Person"
    static let cityCount = 100

    static var model: ObjectModel {
        var person = EntityDescription(name: entityName)
        func attribute(_ name: String, _ type: AttributeType, indexed: Bool = false) -> AttributeDescription {
            var attribute = AttributeDescription(name: name, type: type)
            attribute.isIndexed = indexed
            return attribute
        }
        person.attributes = [
            attribute("id", .integer64),
            attribute("name", .string),
            attribute("age", .integer32),
            attribute("score", .double),
            attribute("city", .string, indexed: true),
        ]
        person.uniquenessConstraints = [["id"]]
        return ObjectModel(entities: [person])
    }
}

/// A Person as Swift code uses one: the typed subclass `strata model codegen` writes.
final class Person: ManagedObject, @unchecked Sendable {
    override class var entityName: String { People.entityName }

    @Attribute("id") var id: Int64
    @Attribute("name") var name: String
    @Attribute("age") var age: Int32
    @Attribute("score") var score: Double
    @Attribute("city") var city: String
}

// MARK: - Data

/// One generated person: the same values for every round and every contender.
struct PersonRecord {
    var id: Int64
    var name: String
    var age: Int32
    var score: Double
    var city: String

    /// `count` people with ids from `firstID`; `generation` changes names and scores (not
    /// ids, ages or cities), so that an import's records differ from the rows they update.
    static func generate(count: Int, firstID: Int64 = 1, generation: Int = 0) -> [PersonRecord] {
        var random = SplitMix64(seed: 0x5EED + UInt64(firstID))
        return (0..<count).map { index in
            let id = firstID + Int64(index)
            let city = Int(random.next() % UInt64(People.cityCount))
            let age = Int32(random.next() % 100)
            let score = Double(random.next() % 10_000) / 100 + Double(generation)
            return PersonRecord(id: id, name: "Person \(id)\(generation == 0 ? "" : " v\(generation)")", age: age,
                                score: score, city: "City \(city)")
        }
    }

    /// The record as one JSON object, keys in the model's order.
    var json: String {
        #"{"id":\#(id),"name":"\#(name)","age":\#(age),"score":\#(score),"city":"\#(city)"}"#
    }
}

/// The records as C rows: the strings stay alive as long as `body` runs.
func withBaselineRows<T>(_ records: [PersonRecord], _ body: (UnsafePointer<baseline_person>, Int64) throws -> T) rethrows -> T {
    let names = records.map { strdup($0.name)! }
    let cities = records.map { strdup($0.city)! }
    defer { (names + cities).forEach { free($0) } }
    let rows = records.indices.map { index in
        baseline_person(id: records[index].id, name: names[index], age: records[index].age,
                        score: records[index].score, city: cities[index])
    }
    return try rows.withUnsafeBufferPointer { try body($0.baseAddress!, Int64(rows.count)) }
}

/// A small, fast, reproducible generator (Vigna's SplitMix64), so every run uses the same data.
struct SplitMix64 {
    private var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
