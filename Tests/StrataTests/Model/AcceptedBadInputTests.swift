import Foundation
import Testing
@testable import Strata
import StrataTestSupport

/// Models that were accepted and are now refused (issue 31, point 7): an inverse leading to a
/// third entity, tables SQLite cannot hold or that take another table's name, values a type
/// cannot hold, patterns and template predicates that do not parse.
@Suite struct AcceptedBadInputTests {
    private func entity(_ name: String, attributes: [AttributeDescription] = [], parent: String? = nil) -> EntityDescription {
        var entity = EntityDescription(name: name)
        entity.attributes = attributes
        entity.superentityName = parent
        return entity
    }

    private func relationship(_ name: String, to destination: String, inverse: String?) -> RelationshipDescription {
        var relationship = RelationshipDescription(name: name, destination: destination)
        relationship.inverseName = inverse
        return relationship
    }

    private func errors(_ issues: [ModelIssue]) -> [String] {
        issues.filter { $0.severity == .error }.map(\.description)
    }

    // MARK: - Inverses

    @Test func anInverseLeadingToAThirdEntityIsAnError() {
        var a = entity("A"), b = entity("B")
        a.relationships = [relationship("b", to: "B", inverse: "c")]
        b.relationships = [relationship("c", to: "C", inverse: nil)]
        let model = ObjectModel(entities: [a, b, entity("C")])
        #expect(errors(model.validate()) == [
            "error: entity 'A', property 'b': the inverse 'B.c' leads to 'C', a third entity: an inverse must lead back to 'A' (or an entity of its hierarchy)"
        ])
    }

    /// An inverse leading to the source's parent or to one of its sub-entities stays allowed.
    @Test(arguments: ["Animal", "Cat"])
    func anInverseLeadingIntoTheSourceHierarchyIsAllowed(inverseDestination: String) {
        var animal = entity("Animal"), owner = entity("Owner")
        animal.relationships = [relationship("owner", to: "Owner", inverse: "pets")]
        owner.relationships = [relationship("pets", to: inverseDestination, inverse: "owner")]
        owner.relationships[0].isToMany = true
        owner.relationships[0].maxCount = 0
        let model = ObjectModel(entities: [animal, entity("Cat", parent: "Animal"), owner])
        #expect(errors(model.validate()).isEmpty)
    }

    // MARK: - Tables

    @Test(arguments: ["_MODELCACHE", "_PRIMARYKEY", "_METADATA", "_metadata"])
    func anEntityTableNamedAsCoreDataBookkeepingIsAnError(name: String) {
        let model = ObjectModel(entities: [entity(name, attributes: [AttributeDescription(name: "x", type: .string)])])
        #expect(model.validate().isEmpty)
        #expect(errors(model.validateForStore()) == [
            "error: entity '\(name)': the entity's table would be named Z\(name.uppercased()), the name of a table Core Data keeps for itself; rename the entity"
        ])
    }

    @Test func twoEntitiesWhoseTablesDifferOnlyByCaseAreAnError() {
        let model = ObjectModel(entities: [entity("Book"), entity("BOOK")])
        #expect(errors(model.validateForStore()) == [
            "error: entity 'Book': the entity's table would be named ZBOOK, as is the table of entity 'BOOK': SQLite does not tell names apart by case; rename one entity"
        ])
    }

    /// Sub-entities share their root's table: their names never become tables.
    @Test func aSubEntityNamedLikeAnotherRootIsAllowed() {
        let model = ObjectModel(entities: [entity("Book"), entity("Item"), entity("BOOK", parent: "Item")])
        #expect(errors(model.validateForStore()).isEmpty)
    }

    @Test func anEntityTableNamedAsAJoinTableIsAnError() {
        var a = entity("A"), b = entity("B")
        var tags = relationship("tags", to: "B", inverse: "owners")
        tags.isToMany = true
        tags.maxCount = 0
        var owners = relationship("owners", to: "A", inverse: "tags")
        owners.isToMany = true
        owners.maxCount = 0
        a.relationships = [tags]
        b.relationships = [owners]
        let model = ObjectModel(entities: [a, b, entity("_1TAGS")])
        #expect(errors(model.validateForStore()) == [
            "error: entity '_1TAGS': the entity's table has the name of the many-to-many join table Z_1TAGS; rename the entity"
        ])
    }

    /// 1,997 attributes and the three bookkeeping columns fill a table; one more column, here
    /// the `Z<n>_` column of a to-one whose destination has sub-entities, is refused.
    @Test func aTableOfMoreThan2000ColumnsIsAnError() throws {
        let attributes = (0..<1997).map { AttributeDescription(name: String(format: "a%04d", $0), type: .integer32) }
        var wide = entity("Wide", attributes: attributes)
        var full = ObjectModel(entities: [wide])
        #expect(errors(full.validateForStore()).isEmpty)
        #expect(StoreLayout(model: full).tables[0].columns.count == 2000)
        wide.relationships = [relationship("shape", to: "Shape", inverse: nil)]
        full = ObjectModel(entities: [wide, entity("Shape"), entity("Circle", parent: "Shape")])
        #expect(errors(full.validateForStore()) == [
            "error: entity 'Wide', property 'shape': the table ZWIDE of entity 'Wide' and its sub-entities would have 2002 columns; SQLite allows at most 2000 (Z_PK, Z_ENT, Z_OPT, one per attribute and to-one key, and a Z<n>_ column per to-one whose destination has sub-entities), and the column ZSHAPE is past the limit"
        ])
        // Refused before any file is made.
        let temporary = try TemporaryFolder("strata-wide")
        let folder = temporary.url
        let path = folder.appendingPathComponent("wide.sqlite").path
        #expect(throws: StoreError.self) { try PersistentStore.create(at: path, model: full) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }

    /// A sub-entity's columns count in the table of its root.
    @Test func theColumnsOfSubEntitiesCountInTheirRootTable() {
        let half = { (prefix: String) in (0..<1000).map { AttributeDescription(name: "\(prefix)\($0)", type: .string) } }
        let model = ObjectModel(entities: [entity("Root", attributes: half("r")), entity("Leaf", attributes: half("l"), parent: "Root")])
        let found = errors(model.validateForStore())
        #expect(found.count == 1)
        #expect(found.first?.contains("the table ZROOT of entity 'Root' and its sub-entities would have 2003 columns") == true)
    }

    // MARK: - Fetch request templates

    @Test func aTemplateWhosePredicateDoesNotParseIsAnError() {
        var model = ObjectModel(entities: [entity("Book", attributes: [AttributeDescription(name: "title", type: .string)])])
        model.fetchRequestTemplates = [FetchRequestTemplate(name: "Broken", entityName: "Book", predicate: "title == == 'x'")]
        #expect(model.validate().isEmpty)
        let found = errors(model.validateForStore())
        #expect(found.count == 1)
        #expect(found.first?.hasPrefix("error: entity 'Book': fetch request 'Broken': the predicate does not parse: expected a value after '=='") == true)
        model.fetchRequestTemplates[0].predicate = "title == $TITLE"
        #expect(errors(model.validateForStore()).isEmpty)
    }

    /// A fetched property's predicate names the object it belongs to as `$FETCH_SOURCE`.
    @Test func aFetchedPropertyWhosePredicateDoesNotParseIsAnError() {
        var book = entity("Book", attributes: [AttributeDescription(name: "title", type: .string)])
        book.fetchedProperties = [
            FetchedPropertyDescription(name: "sameTitle", fetchRequest: FetchRequestTemplate(name: "sameTitle", entityName: "Book", predicate: "title == $FETCH_SOURCE.title")),
            FetchedPropertyDescription(name: "broken", fetchRequest: FetchRequestTemplate(name: "broken", entityName: "Book", predicate: "title ==")),
        ]
        let found = errors(ObjectModel(entities: [book]).validateForStore())
        #expect(found.count == 1)
        #expect(found.first?.hasPrefix("error: entity 'Book': fetched property 'broken': the predicate does not parse: expected a value after '=='") == true)
    }

    /// `model validate` and `create` agree: what `create` refuses, the store checks refuse too.
    @Test func aCompositeAttributeIsRefusedByTheStoreChecksAsByCreate() throws {
        var location = AttributeDescription(name: "location", type: .composite)
        location.compositeName = "Point"
        var model = ObjectModel(entities: [entity("Place", attributes: [location])])
        model.composites = [CompositeDescription(name: "Point", attributes: [AttributeDescription(name: "x", type: .double)])]
        #expect(errors(model.validate()).isEmpty)
        #expect(errors(model.validateForStore()) == ["error: entity 'Place', property 'location': Strata cannot store Composite attributes yet"])
        let folder = try TemporaryFolder()
        #expect(throws: StoreError.self) { try PersistentStore.create(at: folder.path("Place.sqlite"), model: model) }
    }

    @Test func loadingWithTheStoreChecksRefusesWhatValidateAlonePasses() {
        let bundle = ModelBundle(
            url: URL(fileURLWithPath: "/models/m.json"),
            versions: [.init(name: "m", file: URL(fileURLWithPath: "/models/m.json"), model: ObjectModel(entities: [entity("_METADATA")]))],
            currentVersionName: "m", currentVersionReason: "the only version")
        #expect(throws: Never.self) { try ModelLoader.validated(bundle) }
        #expect {
            try ModelLoader.validated(bundle, checkingWith: { $0.validateForStore() })
        } throws: { error in
            (error as? ModelError)?.description.hasPrefix("/models/m.json: the model has 1 error\n/models/m.json: error: entity '_METADATA'") == true
        }
    }

    // MARK: - Readers name the line

    @Test(arguments: [
        (#"{"name": "n", "type": "integer16", "default": 99999}"#, "default value '99999' is out of the range of Integer 16 (-32768…32767)"),
        (#"{"name": "n", "type": "double", "min": 1e400}"#, "minimum '1e400' is not a finite number"),
        (#"{"name": "n", "type": "float", "max": "1e39"}"#, "maximum '1e39' is out of the range of Float (±3.4028235e+38)"),
        (#"{"name": "n", "type": "date", "default": "today"}"#, "default value 'today' is not a valid Date (seconds since 2001-01-01)"),
        (#"{"name": "n", "type": "string", "regularExpression": "[a-"}"#, "regular expression '[a-' does not compile"),
    ])
    func theJSONReaderRefusesAValueNamingLineEntityAndAttribute(attribute: String, message: String) {
        let text = "{\"strataModelFormat\": 1, \"entities\": [\n{\"name\": \"E\", \"attributes\": [\n\(attribute)]}]}"
        #expect {
            try JSONModelReader.read(Data(text.utf8), path: "m.json")
        } throws: { error in
            guard case .invalidContent(let path, let location, let found) = error as? ModelError else { return false }
            return path == "m.json" && location?.line == 3 && found == "entity 'E', attribute 'n': the \(message)"
        }
    }

    @Test func theXcodeReaderRefusesAValueNamingLineEntityAndAttribute() {
        let xml = """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
                <entity name="Event" syncable="YES">
                    <attribute name="count" optional="YES" attributeType="Integer 32" defaultValueString="4294967296"/>
                </entity>
            </model>
            """
        #expect {
            try XcodeModelReader.read(Data(xml.utf8), path: "contents")
        } throws: { error in
            guard case .invalidContent(let path, let location, let found) = error as? ModelError else { return false }
            return path == "contents" && location?.line == 4
                && found == "entity 'Event', attribute 'count': the default value '4294967296' is out of the range of Integer 32 (-2147483648…2147483647)"
        }
    }
}
