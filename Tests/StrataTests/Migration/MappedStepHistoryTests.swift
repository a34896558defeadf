import Foundation
import Testing
@testable import Strata

/// A step that a mapping model carries out keeps the persistent history: every transaction,
/// each change re-pointed to the object made from its object (new primary key, entity number
/// and updated properties), and the changes of objects the mapping does not carry dropped.
@Suite struct MappedStepHistoryTests {
    /// `line` for each change of `transaction`: `Person/p3 update`.
    static func lines(_ transaction: PersistentHistoryTransaction) -> [String] {
        transaction.changes.map { "\($0.entityName)/p\($0.primaryKey) \($0.changeType)" }
    }

    @Test func aMappedStepRepointsTheHistoryToTheObjectsItMakes() throws {
        let fixture = try MappingModelRunTests.fixture()
        var configuration = Database.Configuration()
        configuration.tracksPersistentHistory = true
        let store = try PersistentStore.open(at: fixture.path, model: try fixture.bundle.version(named: "V1").model, configuration: configuration)
        let context = ObjectContext(store: store, name: "tracked")
        try context.performAndWait {
            let people = try context.all("Person", by: "first")    // Ada, Alan, Robo
            try context.make("Person", ["first": "Grace", "last": "Hopper", "age": 85, "kind": "human"])
            try context.save()
            try people[0].setValue("Augusta", forKey: "first")
            try people[2].setValue(4, forKey: "age")               // the robot, which the mapping filters out
            try context.save()
            try context.all("Junk", by: "note")[0].setValue("older", forKey: "note")   // an entity the mapping removes
            try context.delete(try context.all("Pet", by: "name")[0])                // Bolt, the robot's
            try context.save()
        }
        let before = try store.fetchHistory(after: nil)
        store.close()
        #expect(before.map { $0.changes.count } == [1, 2, 3])

        var migrator = try fixture.migrator(to: "V2")
        migrator.mappingModels = [try MappingModelRunTests.mapping(fixture)]
        let plan = try migrator.plan()
        #expect(plan.steps.first?.sourceHasHistory == true)
        #expect(plan.description.contains("persistent history: every transaction kept; each change re-pointed"), "\(plan.description)")
        #expect(!plan.steps[0].leftOut.contains { $0.contains("ACHANGE") || $0.contains("ATRANSACTION") })
        try migrator.migrate(plan)

        let migrated = try PersistentStore.open(at: fixture.path, model: try fixture.bundle.version(named: "V2").model)
        defer { migrated.close() }
        let after = try migrated.fetchHistory(after: nil)
        #expect(after.map(\.transactionNumber) == before.map(\.transactionNumber), "every transaction, with its number")
        #expect(after.map(\.contextName) == ["tracked", "tracked", "tracked"])
        let reader = ObjectContext(store: migrated)
        let keys = try reader.performAndWait {
            Dictionary(uniqueKeysWithValues: try reader.all("Person", by: "fullName").map { person in
                guard case .string(let name)? = try person.attributeValue(forKey: "fullName") else { return ("?", Int64(0)) }
                return (name, person.objectID.primaryKey ?? 0)
            })
        }
        let grace = try #require(keys.first { $0.key.contains("Grace") }?.value)
        let augusta = try #require(keys.first { $0.key.contains("Augusta") }?.value)
        #expect(Self.lines(after[0]) == ["Person/p\(grace) insert"])
        #expect(Self.lines(after[1]) == ["Person/p\(augusta) update"], "the robot's update is dropped with the robot")
        // `first` is read by the mappings of fullName and first.
        #expect(after[1].changes.first?.updatedProperties == ["fullName", "first"])
        #expect(after[2].changes.isEmpty, "Junk is removed, Bolt was deleted, the robot filtered out")
        #expect(try migrated.database.rows("SELECT Z_ENT, Z_NAME FROM Z_PRIMARYKEY WHERE Z_ENT > 16000").map { $0.map(\.description) }
            == [["16001", "'CHANGE'"], ["16002", "'TRANSACTION'"], ["16003", "'TRANSACTIONSTRING'"]])
    }

    /// A store without history gets none.
    @Test func aStoreWithoutHistoryGetsNone() throws {
        let fixture = try MappingModelRunTests.fixture()
        var migrator = try fixture.migrator(to: "V2")
        migrator.mappingModels = [try MappingModelRunTests.mapping(fixture)]
        let plan = try migrator.plan()
        #expect(plan.steps.first?.sourceHasHistory == false)
        try migrator.migrate(plan)
        let migrated = try PersistentStore.open(at: fixture.path, model: try fixture.bundle.version(named: "V2").model)
        defer { migrated.close() }
        #expect(try migrated.database.scalar("SELECT count(*) FROM sqlite_master WHERE name IN ('ACHANGE', 'ATRANSACTION', 'ATRANSACTIONSTRING')") == .integer(0))
    }
}
