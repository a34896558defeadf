import Foundation
import Testing
@testable import Strata

/// The plan counts the values each property a step removes held, so that a user sees what a
/// migration drops before it runs.
@Suite struct MigrationDroppedValuesTests {
    @Test func thePlanCountsTheValuesOfRemovedAttributesAndToOnes() throws {
        let fixture = try MappingModelRunTests.fixture()
        let plan = try fixture.migrator(to: "V3").plan()
        #expect(plan.steps.map(\.isMapped) == [false])
        #expect(plan.steps[0].droppedValueCounts == ["Person.age": 3, "Person.last": 3])
        #expect(plan.description.contains("  - Person.last removed, dropping 3 values\n"))
        #expect(plan.description.contains("  - Person.age removed, dropping 3 values\n"))
    }

    @Test func aPropertyWithoutValuesDropsNone() throws {
        let fixture = try MigrationFixture(versions: [("V1", MappingModelRunTests.version1), ("V3", MappingModelRunTests.version3)]) { context in
            try context.make("Person", ["first": "Ada"])
        }
        let plan = try fixture.migrator(to: "V3").plan()
        #expect(plan.steps[0].droppedValueCounts == [:])
        #expect(plan.description.contains("  - Person.last removed\n"))
    }
}
