import Foundation
import Testing
@testable import Strata

/// Mapping models written here, carried out on stores made here: each kind of entity mapping,
/// value expressions (key paths, constants, arithmetic, Foundation methods, the manager's
/// functions), filter predicates, mapping order, and a chain that mixes mapped and inferred steps.
@Suite struct MappingModelRunTests {
    static let version1 = """
        {"entities": [
          {"name": "Person", "attributes": [{"name": "first", "type": "string"}, {"name": "last", "type": "string"}, {"name": "age", "type": "integer16"},
             {"name": "kind", "type": "string"}],
           "relationships": [{"name": "pets", "destination": "Pet", "inverse": "owner", "toMany": true}]},
          {"name": "Pet", "attributes": [{"name": "name", "type": "string"}],
           "relationships": [{"name": "owner", "destination": "Person", "inverse": "pets"}]},
          {"name": "Junk", "attributes": [{"name": "note", "type": "string"}]}
        ]}
        """
    static let version2 = """
        {"entities": [
          {"name": "Person", "attributes": [{"name": "fullName", "type": "string"}, {"name": "ageInMonths", "type": "integer32"},
             {"name": "first", "type": "string"}, {"name": "kind", "type": "string"}],
           "relationships": [{"name": "pets", "destination": "Pet", "inverse": "owner", "toMany": true}]},
          {"name": "Pet", "attributes": [{"name": "name", "type": "string"}, {"name": "nickname", "type": "string", "optional": false}],
           "relationships": [{"name": "owner", "destination": "Person", "inverse": "pets"}]},
          {"name": "Tag", "attributes": [{"name": "label", "type": "string"}]}
        ]}
        """
    /// Version 2 with an e-mail address: a change Core Data infers.
    static let version3 = version2.replacingOccurrences(of: #"{"name": "kind", "type": "string"}"#, with: #"{"name": "kind", "type": "string"}, {"name": "email", "type": "string"}"#)

    static func fixture() throws -> MigrationFixture {
        try MigrationFixture(versions: [("V1", version1), ("V2", version2), ("V3", version3)]) { context in
            let ada = try context.make("Person", ["first": "Ada", "last": "Lovelace", "age": 36, "kind": "human"])
            let alan = try context.make("Person", ["first": "Alan", "last": "Turing", "age": 41, "kind": "human"])
            let robot = try context.make("Person", ["first": "Robo", "last": "Bot", "age": 3, "kind": "robot"])
            try context.make("Pet", ["name": "Rex", "owner": ada])
            try context.make("Pet", ["name": "Tom", "owner": alan])
            try context.make("Pet", ["name": "Bolt", "owner": robot])
            try context.make("Junk", ["note": "old"])
        }
    }

    static func mapping(_ fixture: MigrationFixture) throws -> MappingModel {
        let manager = "FUNCTION($manager, "
        return MappingModel(
            name: "V1ToV2", sourceModel: try fixture.bundle.version(named: "V1").model, destinationModel: try fixture.bundle.version(named: "V2").model,
            entityMappings: [
                .init(kind: .transform, sourceEntityName: "Pet", destinationEntityName: "Pet",
                      attributeMappings: [try .init(name: "name", format: "$source.name"), try .init(name: "nickname", format: #"FUNCTION($source.name, "lowercaseString")"#)],
                      relationshipMappings: [try .init(name: "owner", format: manager + #""destinationInstancesForEntityMappingNamed:sourceInstances:", "PersonToPerson", $source.owner)"#)]),
                .init(kind: .transform, sourceEntityName: "Person", destinationEntityName: "Person", filterPredicate: try ObjectPredicate(format: "kind != 'robot'"),
                      attributeMappings: [
                        try .init(name: "fullName", format: #"FUNCTION(FUNCTION($source.first, "stringByAppendingString:", " "), "stringByAppendingString:", $source.last)"#),
                        try .init(name: "ageInMonths", format: "$source.age * 12"),
                        try .init(name: "first", format: #"FUNCTION($source.first, "uppercaseString")"#),
                        try .init(name: "kind", format: #""human being""#),
                      ],
                      relationshipMappings: [try .init(name: "pets", format: manager + #""destinationInstancesForSourceRelationshipNamed:sourceInstances:", "pets", $source.pets)"#)]),
                .init(kind: .add, sourceEntityName: nil, destinationEntityName: "Tag", attributeMappings: [.init(name: "label", valueExpression: nil)]),
                .init(kind: .remove, sourceEntityName: "Junk", destinationEntityName: nil),
            ])
    }

    @Test func eachKindOfEntityMappingAndExpressionIsCarriedOut() throws {
        let fixture = try Self.fixture()
        var migrator = try fixture.migrator(to: "V2")
        migrator.mappingModels = [try Self.mapping(fixture)]
        let plan = try migrator.plan()
        #expect(plan.steps.count == 1 && plan.steps[0].isMapped)
        #expect(plan.sql == "-- V1 → V2", "no SQL: the step runs object by object")
        let result = try migrator.migrate(plan)
        #expect(result.counts == ["Person": 2, "Pet": 3, "Tag": 0])
        let store = try PersistentStore.open(at: fixture.path, model: try fixture.bundle.version(named: "V2").model)
        defer { store.close() }
        let context = ObjectContext(store: store)
        try context.performAndWait {
            let people = try context.all("Person", by: "fullName")
            #expect(try sortedNames(people, "fullName") == ["Ada Lovelace", "Alan Turing"], "the robot is filtered out")
            #expect(try people.map { try $0.attributeValue(forKey: "ageInMonths") } == [.integer(432), .integer(492)])
            #expect(try sortedNames(people, "first") == ["ADA", "ALAN"])
            #expect(try sortedNames(people, "kind") == ["human being", "human being"])
            let pets = try context.all("Pet", by: "name")
            #expect(try sortedNames(pets, "nickname") == ["bolt", "rex", "tom"])
            #expect(try pets.map { try toOneName($0, "owner", "fullName") } == [nil, "Ada Lovelace", "Alan Turing"], "Bolt's owner was not migrated")
            #expect(try people.map { try sortedNames(try $0.objects(forKey: "pets")) } == [["Rex"], ["Tom"]])
        }
    }

    @Test func entityMappingsRunInTheirOrder() throws {
        let fixture = try Self.fixture()
        var migrator = try fixture.migrator(to: "V2")
        var mapping = try Self.mapping(fixture)
        let recorder = OrderRecorder()
        migrator.policy = recorder
        migrator.mappingModels = [mapping]
        _ = try migrator.check(try migrator.plan())
        #expect(recorder.order == ["PetToPet", "PersonToPerson"])
        mapping.entityMappings.swapAt(0, 1)
        migrator.mappingModels = [mapping]
        recorder.order = []
        _ = try migrator.check(try migrator.plan())
        #expect(recorder.order == ["PersonToPerson", "PetToPet"])
    }

    @Test func aChainMixesMappedAndInferredStepsAndNeverInfersAStepThatHasAMappingModel() throws {
        let fixture = try Self.fixture()
        var migrator = try fixture.migrator(to: "V3", through: ["V2"])
        migrator.mappingModels = [try Self.mapping(fixture)]
        let plan = try migrator.plan()
        #expect(plan.steps.map(\.isMapped) == [true, false])
        #expect(plan.steps[1].description.contains("Person.email added"))
        let result = try migrator.migrate(plan)
        #expect(result.counts == ["Person": 2, "Pet": 3, "Tag": 0])
        try fixture.read { context in
            let people = try context.all("Person", by: "fullName"), pets = try context.all("Pet", by: "name")
            #expect(try sortedNames(people, "fullName") == ["Ada Lovelace", "Alan Turing"])
            #expect(try pets.map { try toOneName($0, "owner", "fullName") } == [nil, "Ada Lovelace", "Alan Turing"])
        }
    }

    @Test func theDirectRouteUsesItsMappingModelWhereOneMatchesAndInfersWhereNone() throws {
        let fixture = try Self.fixture()
        // V1 → V3 directly: the V1 → V2 mapping model does not match, so the step is inferred.
        var direct = try fixture.migrator(to: "V3")
        direct.mappingModels = [try Self.mapping(fixture)]
        #expect(try direct.plan().steps.map(\.isMapped) == [false])
        var mapped = try fixture.migrator(to: "V2")
        mapped.mappingModels = [try Self.mapping(fixture)]
        #expect(try mapped.plan().steps.map(\.isMapped) == [true])
    }

    @Test func aCustomEntityMappingWithoutAPolicyIsRefused() throws {
        let fixture = try Self.fixture()
        var mapping = try Self.mapping(fixture)
        mapping.entityMappings[0].kind = .custom
        mapping.entityMappings[0].policyClassName = "PetPolicy"
        var migrator = try fixture.migrator(to: "V2")
        migrator.mappingModels = [mapping]
        let before = try fixture.bytes()
        #expect {
            try migrator.plan()
        } throws: { error in
            guard case .unmappable(_, _, let reasons) = error as? MigrationError else { return false }
            return reasons == ["entity mapping PetToPet of V1ToV2 names the custom policy class PetPolicy, whose Objective-C code Strata cannot run; give a Lua policy with a hook for PetToPet (strata migrate --policy FILE)"]
        }
        #expect(try fixture.bytes() == before)
    }

    @Test func anExpressionThatGivesAWrongValueFailsTheStepAndTheStoreStaysAsItWas() throws {
        let fixture = try Self.fixture()
        var mapping = try Self.mapping(fixture)
        mapping.entityMappings[1].attributeMappings[1] = try .init(name: "ageInMonths", format: "$source.first")
        var migrator = try fixture.migrator(to: "V2")
        migrator.mappingModels = [mapping]
        let before = try fixture.bytes()
        #expect {
            try migrator.migrate()
        } throws: { error in
            guard case .mappingFailed(_, let step, let cause) = error as? MigrationError, let failure = cause as? MigrationManagerError else { return false }
            guard case .wrongValue(let value, .integer32) = failure.reason else { return false }
            return step == "V1 → V2" && failure.mapping == "PersonToPerson" && failure.property == "ageInMonths" && failure.message == "gets \(value), which is no Integer 32 value"
        }
        #expect(try fixture.bytes() == before)
        #expect(try fixture.otherFiles().isEmpty, "no migrated copy or backup is left")
    }

    @Test func aRequiredAttributeTheMappingLeavesEmptyFailsTheSave() throws {
        let fixture = try Self.fixture()
        var mapping = try Self.mapping(fixture)
        mapping.entityMappings[0].attributeMappings[1].valueExpression = nil
        var migrator = try fixture.migrator(to: "V2")
        migrator.mappingModels = [mapping]
        #expect {
            try migrator.migrate()
        } throws: { error in
            guard case .mappingFailed(_, _, let cause) = error as? MigrationError else { return false }
            return "\(cause)".contains("nickname")
        }
    }

    @Test func expressionsParseFromTheirFormatAndRefuseUnknownMethods() throws {
        #expect(try ObjectPredicate.Expression(format: "$source.title") == .keyPath(["$source", "title"]))
        #expect(try ObjectPredicate.Expression(format: "42") == .value(.integer(42)))
        #expect(throws: PredicateSyntaxError.self) { try ObjectPredicate.Expression(format: #"FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", "A", $source.b)"#) }
        #expect(throws: PredicateSyntaxError.self) { try MappingModel.PropertyMapping(name: "x", format: "$source.a ==") }
    }
}

/// A policy that only records the order in which entity mappings make objects.
final class OrderRecorder: MigrationPolicy, @unchecked Sendable {
    var order: [String] = []

    func handles(_ mapping: MappingModel.EntityMapping) -> Bool { mapping.sourceEntityName != nil && mapping.destinationEntityName != nil }

    func createDestinationInstances(forSource source: ManagedObject, mapping: MappingModel.EntityMapping, manager: MigrationManager) throws {
        if order.last != mapping.name { order.append(mapping.name) }
        try manager.createDefaultDestinationInstance(forSource: source, mapping: mapping)
    }
}
