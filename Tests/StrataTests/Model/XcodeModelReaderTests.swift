import Foundation
import Testing
@testable import Strata

@Suite(.enabled(if: Fixtures.available, Fixtures.skipReason))
struct XcodeModelReaderFixtureTests {
    @Test(arguments: Fixtures.modelBundles)
    func everyFixtureBundleReadsAndValidates(bundleURL: URL) throws {
        let bundle = try ModelLoader.load(bundleURL)
        #expect(!bundle.versions.isEmpty)
        for version in bundle.versions {
            let errors = version.model.validate().filter { $0.severity == .error }
            #expect(errors.isEmpty, "\(version.name): \(errors)")
            #expect(!version.model.entities.isEmpty)
        }
    }

    @Test func swiftGenBundleHasBothVersionsAndTheMarkedCurrentOne() throws {
        let bundle = try ModelLoader.load(Fixtures.model("SwiftGen.xcdatamodeld"))
        #expect(bundle.versions.map(\.name) == ["Model", "Model 2"])
        #expect(bundle.currentVersionName == "Model 2")
        #expect(bundle.currentVersionReason == "named by .xccurrentversion")
    }

    @Test func swiftGenModelCarriesEverythingXcodeWrote() throws {
        let model = try ModelLoader.load(Fixtures.model("SwiftGen.xcdatamodeld")).version(named: "Model 2").model
        #expect(model.entities.map(\.name) == [
            "AbstractEntity", "AutoClassGen", "AutoExtensionGen", "ChildEntity", "ImpossibleType", "MainEntity",
            "NewEntity", "SecondaryEntity",
        ])
        let main = try #require(model.entity(named: "MainEntity"))
        #expect(main.attributes.count == 26)
        #expect(main.attribute(named: "int16")?.type == .integer16)
        #expect(main.attribute(named: "int16")?.isOptional == false)
        #expect(main.attribute(named: "int16")?.defaultValue == "0")
        #expect(main.attribute(named: "uuid")?.type == .uuid)
        #expect(main.attribute(named: "uri")?.type == .uri)
        #expect(main.attribute(named: "decimal")?.type == .decimal)
        #expect(main.attribute(named: "transient")?.isTransient == true)
        #expect(main.attribute(named: "attributedString")?.customClassName == "NSAttributedString")
        #expect(main.attribute(named: "integerEnum")?.userInfo == ["RawType": "IntegerEnum", "unwrapOptional": "true"])
        #expect(main.attribute(named: "boolean")?.xcodeSettings["usesScalarValueType"] == "YES")
        #expect(main.userInfo == ["key": "value"])

        let oneToMany = try #require(main.relationship(named: "oneToMany"))
        #expect(oneToMany.isToMany && oneToMany.isOrdered)
        #expect(oneToMany.destinationEntityName == "SecondaryEntity")
        #expect(oneToMany.inverseName == "oneToMany")
        let oneToOne = try #require(main.relationship(named: "oneToOne"))
        #expect(!oneToOne.isToMany && oneToOne.maxCount == 1)
        #expect(oneToOne.deleteRule == .nullify)

        let fetched = try #require(main.fetchedProperties.first)
        #expect(fetched.name == "fetchedProperty")
        #expect(fetched.fetchRequest.entityName == "NewEntity")
        #expect(fetched.fetchRequest.predicate == "true == true")

        let newEntity = try #require(model.entity(named: "NewEntity"))
        #expect(newEntity.superentityName == "AbstractEntity")
        #expect(newEntity.uniquenessConstraints == [["identifier"]])
        #expect(newEntity.fetchIndexes == [
            FetchIndexDescription(name: "byIdentifierIndex", elements: [.init(property: "identifier", kind: "Binary")])
        ])
        #expect(model.entity(named: "AbstractEntity")?.isAbstract == true)
        #expect(model.entity(named: "ChildEntity")?.superentityName == "MainEntity")
        #expect(model.entity(named: "AutoExtensionGen")?.xcodeSettings["codeGenerationType"] == "category")

        #expect(model.configurations == [ModelConfiguration(name: "Custom", entityNames: ["NewEntity"])])
        #expect(model.fetchRequestTemplates.map(\.name) == ["DictionaryFetchRequest", "ObjectFetchRequest", "ObjectIDFetchRequest"])
        let objectRequest = model.fetchRequestTemplates[1]
        #expect(objectRequest.predicate == "uuid == $UUID")
        #expect(objectRequest.returnsDistinctResults == true)
        #expect(objectRequest.includesSubentities == true)
        #expect(model.fetchRequestTemplates[0].resultType == .dictionary)
        #expect(model.fetchRequestTemplates[2].resultType == .managedObjectID)
        #expect(model.xcodeSettings["sourceLanguage"] == "Swift")
    }

    @Test func syncModelKeepsItsUserInfoKeys() throws {
        let model = try ModelLoader.load(Fixtures.model("Sync-151-many-to-many.xcdatamodeld")).currentVersion.model
        let noteID = try #require(model.entity(named: "Note")?.attribute(named: "noteID"))
        #expect(noteID.userInfo == ["sync.isPrimaryKey": "true", "sync.remoteKey": "id"])
        let summarize = try ModelLoader.load(Fixtures.model("Sync-113.xcdatamodeld")).currentVersion.model
            .entity(named: "AwesomeStory")?.relationship(named: "awesomeSummarize")
        #expect(summarize?.userInfo == ["hyper.remoteKey": "summarize_text"])
    }

    @Test func inheritedPropertiesComeFromTheParent() throws {
        let model = try ModelLoader.load(Fixtures.model("SwiftGen.xcdatamodeld")).currentVersion.model
        let child = try #require(model.entity(named: "ChildEntity"))
        #expect(child.attributes.isEmpty)
        #expect(model.allAttributes(of: child).count == 26)
        #expect(model.relationship(named: "manyToMany", in: child)?.destinationEntityName == "SecondaryEntity")
        #expect(model.rootEntity(of: child).name == "MainEntity")
        #expect(model.allSubentities(of: model.entity(named: "MainEntity")!).map(\.name) == ["ChildEntity"])
    }
}

/// Reading `contents` XML that a user broke by hand.
@Suite struct XcodeModelReaderErrorTests {
    private func readError(_ xml: String) -> ModelError? {
        do {
            _ = try XcodeModelReader.read(Data(xml.utf8), path: "Broken.xcdatamodel/contents")
            return nil
        } catch {
            return error
        }
    }

    @Test func malformedXMLNamesFileLineAndColumn() {
        let error = readError("<?xml version=\"1.0\"?>\n<model>\n    <entity name=\"A\">\n    </entiti>\n</model>")
        guard case .malformed(let path, let location, let message) = error else {
            Issue.record("expected a malformed-XML error, got \(String(describing: error))")
            return
        }
        #expect(path == "Broken.xcdatamodel/contents")
        #expect(location?.line == 4)
        #expect(message.contains("does not match <entity> opened at line 3"))
        #expect(error!.description.hasPrefix("Broken.xcdatamodel/contents: \(location!): "))
    }

    @Test func truncatedXMLIsMalformed() {
        guard case .malformed(_, let location, let message) = readError("<model>\n<entity name=\"A\">") else {
            Issue.record("expected a malformed-XML error")
            return
        }
        #expect(location?.line == 2)
        #expect(message == "the document ends inside <entity>")
    }

    @Test(arguments: [
        ("", "Broken.xcdatamodel/contents: line 1, column 1: the file is empty"),
        ("  \n ", "Broken.xcdatamodel/contents: line 2, column 2: the file is empty"),
        ("# Model\nnot xml", "Broken.xcdatamodel/contents: line 1, column 1: not XML: expected '<'"),
        ("<model/>\n<model/>", "Broken.xcdatamodel/contents: line 2, column "),
    ])
    func filesThatAreNotOneXMLDocument(text: String, expected: String) {
        #expect(readError(text)?.description.hasPrefix(expected) == true, "\(String(describing: readError(text)))")
    }

    /// Regression (found by fuzz-model-xml): a byte that is not UTF-8 in an element or attribute
    /// name trapped in Foundation's XMLParser, which read model files then, and crashed the
    /// process.
    @Test(arguments: [
        (document("<m", invalid: [0xFF], "odel></model>"), "Broken.xcdatamodel/contents: line 1, column 3: the file is not valid UTF-8"),
        (document("<model>\n  <entity n", invalid: [0xC3], "ame=\"A\"/></model>"), "Broken.xcdatamodel/contents: line 2, column 12: the file is not valid UTF-8"),
        (document("<model a=\"", invalid: [0xE2, 0x82], "\"/>"), "Broken.xcdatamodel/contents: line 1, column 11: the file is not valid UTF-8"),
    ])
    func bytesThatAreNotUTF8AreAnErrorNotACrash(data: Data, expected: String) {
        do {
            _ = try XcodeModelReader.read(data, path: "Broken.xcdatamodel/contents")
            Issue.record("read")
        } catch {
            #expect(error.description == expected)
        }
    }

    /// Regression (found by fuzz-model-xml): a processing instruction without data (`<?xm?>`)
    /// made Foundation's XMLParser, which read model files then, read a null pointer and crash
    /// the process. Model files have none but the XML declaration.
    @Test(arguments: [
        ("<?xm?><model/>", "Broken.xcdatamodel/contents: line 1, column 1: a processing instruction (<?…?>), which a model file does not have"),
        ("<?xml version=\"1.0\"?>\n<model>\n <?x?></model>", "Broken.xcdatamodel/contents: line 3, column 2: a processing instruction (<?…?>), which a model file does not have"),
        (" <?xml version=\"1.0\"?><model/>", "Broken.xcdatamodel/contents: line 1, column 2: a processing instruction (<?…?>), which a model file does not have"),
    ])
    func processingInstructionsAreAnErrorNotACrash(xml: String, expected: String) {
        #expect(readError(xml)?.description == expected)
    }

    @Test func aModelWithItsXMLDeclarationReads() throws {
        let model = try XcodeModelReader.read(Data("\u{FEFF}<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<model><entity name=\"A\"/></model>".utf8), path: "contents")
        #expect(model.entities.map(\.name) == ["A"])
    }

    @Test func trailingContentIsNamed() {
        #expect(readError("<model/>\n<model/>")?.description.contains("extra content after the root element <model>") == true)
    }

    @Test func unknownAttributeTypeNamesTheLine() {
        let error = readError("<model>\n<entity name=\"A\">\n<attribute name=\"x\" attributeType=\"Strin\"/>\n</entity>\n</model>")
        guard case .invalidContent(_, let location, let message) = error else {
            Issue.record("expected invalid content, got \(String(describing: error))")
            return
        }
        #expect(location?.line == 3)
        #expect(message.contains("attribute 'x' has an unknown attributeType 'Strin'"))
    }

    @Test func nonNumericCountNamesTheRelationship() {
        let error = readError("<model><entity name=\"A\"><relationship name=\"r\" destinationEntity=\"A\" maxCount=\"many\"/></entity></model>")
        #expect(error?.description.contains("maxCount=\"many\", which is not a whole number") == true)
    }

    @Test func missingNameIsAnError() {
        let error = readError("<model><entity><attribute name=\"x\" attributeType=\"String\"/></entity></model>")
        #expect(error?.description.contains("<entity> has no 'name'") == true)
    }

    @Test func wrongRootElementIsAnError() {
        #expect(readError("<plist/>")?.description.contains("expected a <model> root element") == true)
    }
}

/// `head`, then bytes that are not UTF-8, then `tail`.
private func document(_ head: String, invalid bytes: [UInt8], _ tail: String) -> Data {
    var data = Data(head.utf8)
    data.append(contentsOf: bytes)
    data.append(contentsOf: Data(tail.utf8))
    return data
}
