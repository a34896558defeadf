import Foundation
import Testing
@testable import Strata

/// What a mapped step does not carry is said in its plan.
@Suite struct MappedStepHistoryTests {
    @Test func aMappedStepsPlanSaysThatItLeavesThePersistentHistoryOut() throws {
        let fixture = try MappingModelRunTests.fixture()
        var configuration = Database.Configuration()
        configuration.tracksPersistentHistory = true
        let store = try PersistentStore.open(at: fixture.path, model: try fixture.bundle.version(named: "V1").model, configuration: configuration)
        store.close()
        var migrator = try fixture.migrator(to: "V2")
        migrator.mappingModels = [try MappingModelRunTests.mapping(fixture)]
        let plan = try migrator.plan()
        #expect(plan.steps.first?.sourceHasHistory == true)
        #expect(plan.description.contains("left out: the persistent history"))
    }
}
