import Foundation
import Testing
@testable import Strata

/// Transformable attributes through export and import: values in their JSON form, objects of
/// other classes and an app's own transformer's bytes kept, with a warning naming each such
/// attribute; imported into an empty store, the same archives. The same for the real stores
/// that hold transformable values.
@Suite struct TransformableExportTests {
    static let model = """
        {"entities": [
          {"name": "Shelf", "attributes": [
             {"name": "name", "type": "string", "userInfo": {"hyper.isPrimaryKey": "YES"}},
             {"name": "tags", "type": "transformable"},
             {"name": "settings", "type": "transformable", "valueTransformer": "NSKeyedUnarchiveFromData"},
             {"name": "color", "type": "transformable", "valueTransformer": "ColorTransformer"}]}
        ]}
        """

    static let settings: TransformableValue = .dictionary([
        "fontSize": .integer(12), "zoom": .real(1.5), "opened": .date(Date(timeIntervalSinceReferenceDate: 700_000_000.5)),
        "home": .url(URL(string: "https://example.com")!), "id": .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!),
        "none": .null, "letters": .set([.string("a"), .string("b")]), "steps": .orderedSet([.integer(2), .integer(1)]),
        "$private": .bool(true),
    ])

    static func seeded() throws -> ImportFixture {
        let fixture = try ImportFixture(modelJSON: model)
        try fixture.context.performAndWait {
            let context = fixture.context
            let first = try context.insert("Shelf")
            try first.setValue("first", forKey: "name")
            try first.setValue(["fantasy", "classic"], forKey: "tags")
            try first.setTransformableValue(settings, forKey: "settings")
            try first.setValue(Data([1, 2, 3]), forKey: "color")
            let second = try context.insert("Shelf")
            try second.setValue("second", forKey: "name")
            try second.setTransformableValue(.array([.object(try ArchivedObject(archive: TransformableValueTests.archive(ofContent: "x", inside: false)))]), forKey: "tags")
            try second.setValue(TransformableValueTests.archive(ofContent: "red", inside: false), forKey: "color")
            _ = try context.insert("Shelf").setValue("empty", forKey: "name")
            try context.save()
        }
        return fixture
    }

    /// The stored bytes of `attribute` of every object of `entity`, by `key`.
    static func stored(_ fixture: ImportFixture, _ entity: String, _ attribute: String, by key: String) throws -> [String: Data?] {
        try fixture.context.performAndWait {
            var values: [String: Data?] = [:]
            for object in try fixture.context.fetch(FetchRequest(entityName: entity)) {
                let name = try object.attributeValue(forKey: key).map(ImportFixture.text) ?? "nil"
                guard case .binary(let data)? = try object.attributeValue(forKey: attribute) else {
                    values[name] = .some(nil)
                    continue
                }
                values[name] = data
            }
            return values
        }
    }

    @Test func exportWritesValuesAndImportWritesTheSameArchivesBack() throws {
        let source = try Self.seeded()
        let (text, warnings) = try source.context.performAndWait {
            let exporter = try Exporter(context: source.context)
            return (JSONWriter.string(from: try exporter.export()), exporter.warnings)
        }
        let records = try #require(try JSONReader.parse(Data(text.utf8)).objectMembers?.first?.value.arrayValue)
        let first = try #require(records.first { $0["name"]?.stringValue == "first" })
        #expect(JSONWriter.string(from: try #require(first["tags"]), pretty: false) == #"["fantasy","classic"]"#)
        #expect(try TransformableValue(json: try #require(first["settings"])) == Self.settings)
        #expect(JSONWriter.string(from: try #require(first["color"]), pretty: false) == #"{"$bytes":"AQID"}"#)
        #expect(warnings.map(\.description) == [
            #"Shelf.color: 2 values go through the value transformer ColorTransformer, which Strata cannot run: exported as stored, in base64: keyed archives (of root class Content) as {"$class", "$archive"}, other bytes as {"$bytes"}; an import writes them back unchanged"#,
            "Shelf.tags: 1 value holds objects of class Content, which Strata cannot read as values: exported as their keyed archives in base64 ($archive); an import writes them back unchanged",
        ])

        let copy = try ImportFixture(modelJSON: Self.model)
        try copy.importJSON(text)
        for attribute in ["tags", "settings", "color"] {
            let expected = try Self.stored(source, "Shelf", attribute, by: "name"), actual = try Self.stored(copy, "Shelf", attribute, by: "name")
            #expect(actual.count == 3)
            #expect(actual == expected, "\(attribute)")
        }
    }

    @Test func typedPropertiesReadAndWriteTheArchivesValues() throws {
        let fixture = try Self.seeded()
        try fixture.context.performAndWait {
            let first = try #require(try fixture.context.fetch(FetchRequest(entityName: "Shelf", predicate: try ObjectPredicate(format: "name == 'first'"))).first)
            #expect([String](attributeValue: try first.attributeValue(forKey: "tags")) == ["fantasy", "classic"])
            #expect(try first.transformableValue(forKey: "settings")?["fontSize"] == .integer(12))
            #expect(try first.transformableValue(forKey: "color") == .bytes(Data([1, 2, 3])))
            #expect { try first.setTransformableValue(.string("blue"), forKey: "color") } throws: {
                guard case .transformableValue(entity: "Shelf", property: "color", let error)? = $0 as? ContextError else { return false }
                return error.message.contains("ColorTransformer")
            }
            #expect { try first.transformableValue(forKey: "name") } throws: { ($0 as? ContextError) != nil }
            let settings = try #require([String: TransformableValue](attributeValue: try first.attributeValue(forKey: "settings")))
            #expect(settings["zoom"] == .real(1.5))
            try first.setValue(Set(["x", "y"]), forKey: "tags")
            #expect(try first.transformableValue(forKey: "tags") == .set([.string("x"), .string("y")]))
            try first.setTransformableValue(nil, forKey: "tags")
            #expect(try first.attributeValue(forKey: "tags") == nil)
        }
    }

    /// A typed subclass declares Transformable attributes as the Swift types their archives
    /// hold; codegen writes them as TransformableValue, or as bytes behind an app's transformer.
    @Test func typedSubclassesHoldTheSwiftTypesOfTheirArchives() throws {
        final class Shelf: ManagedObject, @unchecked Sendable {
            override class var entityName: String { "Shelf" }
            @Attribute("tags") var tags: [String]?
            @Attribute("settings") var settings: [String: TransformableValue]?
            @Attribute("color") var color: Data?
        }
        let fixture = try Self.seeded()
        let context = ObjectContext(store: fixture.store, name: "typed")
        context.register(Shelf.self, for: "Shelf")
        try context.performAndWait {
            let shelves = try context.fetch(FetchRequest(entityName: "Shelf", sortDescriptors: [ObjectSortDescriptor("name")])).compactMap { $0 as? Shelf }
            try #require(shelves.count == 3)
            #expect(shelves[1].tags == ["fantasy", "classic"])
            #expect(shelves[1].settings?["zoom"] == .real(1.5))
            #expect(shelves[1].color == Data([1, 2, 3]))
            #expect(shelves[0].tags == nil)
            shelves[0].tags = ["new"]
            shelves[0].settings = ["count": .integer(2)]
            try context.save()
            #expect(try shelves[0].transformableValue(forKey: "tags") == .array([.string("new")]))
        }
        let files = SubclassGenerator.files(for: fixture.context.model, modelName: "Shelves")
        let source = try #require(files.first?.contents)
        #expect(source.contains(#"@Attribute("tags") public var tags: TransformableValue?"#))
        #expect(source.contains(#"@Attribute("settings") public var settings: TransformableValue?"#))
        #expect(source.contains(#"@Attribute("color") public var color: Data?"#))
    }

    // MARK: - Real stores

    /// The stores of the shared fixtures with transformable values, exported and imported
    /// into an empty store of the same model: every value the same, bytes for bytes behind an
    /// app's own transformer (Final Cut Pro's), as the same value behind Core Data's default
    /// one (BookMigration's strings, archived anew).
    @Test(.enabled(if: Fixtures.available && Corpus.available, Corpus.skipReason), arguments: [
        "real-stores/FinalCutLibrary.sqlite", "real-stores/FinalCutEvent.sqlite", "corpus/stores/bookmigration/Model1.sqlite",
    ])
    func realStoresKeepTheirTransformableValuesThroughExportAndImport(path: String) throws {
        let model = try TransformableCorpusTests.model(of: path)
        let source = try PersistentStore.open(at: Fixtures.coreData.appendingPathComponent(path).path, model: model, configuration: .readOnly)
        defer { source.close() }
        let context = ObjectContext(store: source, name: "export")
        let (text, warnings) = try context.performAndWait {
            let exporter = try Exporter(context: context)
            return (JSONWriter.string(from: try exporter.export()), exporter.warnings)
        }
        let copy = try ImportFixture(model: model)
        try copy.importJSON(text)
        var compared = 0
        for entity in model.entities where !entity.isAbstract {
            for attribute in model.allAttributes(of: entity) where attribute.type == .transformable {
                // Opaque values by their bytes, values read from archives by what they hold.
                func blobs(_ context: ObjectContext) throws -> [String] {
                    try context.performAndWait {
                        var request = FetchRequest(entityName: entity.name)
                        request.includesSubentities = false
                        return try context.fetch(request).map { object in
                            guard case .binary(let data)? = try object.attributeValue(forKey: attribute.name) else { return "nil" }
                            return attribute.storesKeyedArchives ? attribute.transformableValue(storedData: data).canonicalText : data.base64EncodedString()
                        }.sorted()
                    }
                }
                let expected = try blobs(context), actual = try blobs(copy.context)
                #expect(actual == expected, "\(entity.name).\(attribute.name)")
                compared += expected.filter { $0 != "nil" }.count
            }
        }
        #expect(compared == ["real-stores/FinalCutLibrary.sqlite": 12, "real-stores/FinalCutEvent.sqlite": 24, "corpus/stores/bookmigration/Model1.sqlite": 4][path])
        // An app's own transformer: the values are kept as archives, and the export says so.
        #expect(warnings.map(\.attribute).allSatisfy { $0 == "dictionaryData" })
        #expect(warnings.isEmpty == path.contains("bookmigration"))
        // Each value once, though a record made from rows may be made again from its object.
        #expect(warnings.reduce(0) { $0 + $1.valueCount } == (path.contains("bookmigration") ? 0 : compared))
    }
}
