import Foundation
import Testing
@testable import Strata
import StrataTestSupport

/// Reading `.xcmappingmodel` folders as Xcode saves them: archived value expressions, and
/// errors that name the file and the element.
@Suite(.enabled(if: Corpus.available, Corpus.skipReason)) struct MappingModelLoadingTests {
    @Test func archivedValueExpressionsAreReadAsTheManagerFunctionsTheyCall() throws {
        let mapping = try MappingModel.load(contentsOf: Corpus.folder.appendingPathComponent("models/coredataplus/mapping/V2toV3.xcmappingmodel"))
        #expect(Set(mapping.policyClasses.map(\.className)) == ["REPLACE_AT_RUNTIME.V2to3MakerPolicy"])
        let archived = mapping.entityMappings.flatMap(\.relationshipMappings).filter { $0.name.hasPrefix("previous") }
        #expect(archived.count == 4)
        for property in archived {
            guard case .function("FUNCTION", let arguments)? = property.valueExpression, arguments.count == 4,
                case .value(.string(let name)) = arguments[2], case .keyPath(let path) = arguments[3]
            else {
                Issue.record("\(property.name): \(String(describing: property.valueExpression))")
                continue
            }
            #expect(arguments[0] == .variable("manager"))
            #expect(path.first == "$source")
            switch arguments[1] {
            case .value(.string("destinationInstancesForEntityMappingNamed:sourceInstances:")):
                #expect(mapping.entityMapping(named: name) != nil, "\(name) is one of the model's entity mappings")
            case .value(.string("destinationInstancesForSourceRelationshipNamed:sourceInstances:")):
                let owner = mapping.entityMappings.first { $0.relationshipMappings.contains { $0.name == property.name && $0.valueExpression == property.valueExpression } }
                let entity = try #require(owner?.sourceEntityName.flatMap { mapping.sourceModel.entity(named: $0) })
                #expect(mapping.sourceModel.allRelationships(of: entity).contains { $0.name == name }, "\(name) is a relationship of \(entity.name)")
            default:
                Issue.record("\(property.name) calls \(arguments[1])")
            }
        }
    }

    /// The models a mapping model keeps are compiled ones (keyed archives of Xcode's classes),
    /// whose entities' uniqueness constraints are part of their version hashes: CoreDataPlus's
    /// V2toV3 matches the step from its bundle's SampleModel2 to SampleModel3, and no other.
    @Test func compiledModelsKeepTheirUniquenessConstraintsAndMatchTheirStep() throws {
        let mapping = try MappingModel.load(contentsOf: Corpus.folder.appendingPathComponent("models/coredataplus/mapping/V2toV3.xcmappingmodel"))
        #expect(mapping.sourceModel.entity(named: "Car")?.uniquenessConstraints == [["numberPlate"]])
        #expect(mapping.sourceModel.entity(named: "Person")?.uniquenessConstraints == [["firstName", "lastName"]])
        #expect(mapping.sourceModel.entity(named: "SportCar")?.uniquenessConstraints == [])
        let bundle = try ModelLoader.load(Corpus.folder.appendingPathComponent("models/coredataplus/SampleModel.xcdatamodeld"))
        let versions = bundle.versions.map { ($0.name, $0.model) }
        let matching = versions.flatMap { source in versions.filter { mapping.matches(source: source.1, destination: $0.1) }.map { "\(source.0) → \($0.0)" } }
        #expect(matching == ["SampleModel2 → SampleModel3"])
    }

    @Test func errorsNameTheFileAndTheElement() throws {
        let original = try String(contentsOf: BookMigration.folder.appendingPathComponent("mapping/Model1_to_Model2.xcmappingmodel/xcmapping.xml"), encoding: .utf8)
        let folder = try TemporaryFolder()
        func load(_ text: String) throws -> MappingModel {
            let url = folder.url.appendingPathComponent("Broken.xcmappingmodel")
            try? FileManager.default.removeItem(at: url)
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            try text.write(to: url.appendingPathComponent("xcmapping.xml"), atomically: true, encoding: .utf8)
            return try MappingModel.load(contentsOf: url)
        }
        #expect(try load(original).entityMappings.count == 3)
        let unknownEntity = original.replacingOccurrences(of: #"<attribute name="destinationname" type="string">Author</attribute>"#, with: #"<attribute name="destinationname" type="string">Writer</attribute>"#)
        #expect {
            try load(unknownEntity)
        } throws: { error in
            let error = error as? MappingModelError
            return error?.path.hasSuffix("Broken.xcmappingmodel/xcmapping.xml") == true && error?.element == "XDDEVENTITYMAPPING z112" && error?.message.contains("Writer") == true
        }
        #expect {
            try load(original.replacingOccurrences(of: "</database>", with: ""))
        } throws: { error in (error as? MappingModelError).map { $0.location != nil && $0.element == nil } == true }
        let badModel = original.replacingOccurrences(of: #"<attribute name="sourcemodeldata" type="binary">YnBsaXN0MDDUAAEAAgADAAQABQAGCgYKB1gkdmVyc2lvblgkb2JqZWN0c1kkYXJjaGl2ZXJUJHRv"#, with: #"<attribute name="sourcemodeldata" type="binary">AAAA"#)
        #expect(badModel != original)
        #expect {
            try load(badModel)
        } throws: { error in (error as? MappingModelError)?.element == "XDDEVMAPPINGMODEL z105" }
        // User info that is base64 but no archive: the cause in its own words, not `Optional(…)`.
        let userInfo = #"<attribute name="userinfodata" type="binary">YnBsaXN0MDDUAQIDBAUGGhtYJHZlcnNpb25YJG9iamVjdHNZJGFyY2hpdmVyVCR0b3ASAAGGoKUH"#
        #expect(original.contains(userInfo))
        #expect {
            try load(original.replacingOccurrences(of: userInfo, with: #"<attribute name="userinfodata" type="binary">AAAA"#))
        } throws: { error in
            guard let error = error as? MappingModelError, error.element == "XDDEVENTITYMAPPING z109" else { return false }
            let prefix = "its user info cannot be read: "
            return error.message.hasPrefix(prefix) && error.message.count > prefix.count + 3
                && !error.message.contains("Optional(") && !error.message.hasSuffix("nil")
        }
        #expect(throws: MappingModelError.self) { try MappingModel.load(contentsOf: folder.url.appendingPathComponent("Missing.xcmappingmodel")) }
    }
}
