import Foundation
import Testing
@testable import Strata

/// The predicates Strata writes into `Z_MODELCACHE` (fetched properties, fetch request
/// templates, validation rules): read back as they were written, and archived as Core Data
/// archives them in the corpus caches.
@Suite struct ModelCachePredicateTests {
    /// Each predicate form Strata's parser knows and archives (SUBQUERY is not archived: see
    /// ObjectPredicate+CacheArchive.swift), and the predicate it reads back as: itself, but
    /// NONE, which Core Data keeps as NOT of ANY.
    static let forms: [(written: String, readBack: String)] = [
        ("rating == 3", "rating == 3"),
        ("rating != 3", "rating != 3"),
        ("rating < 3", "rating < 3"),
        ("rating <= 2.5", "rating <= 2.5"),
        ("rating > 1", "rating > 1"),
        ("rating >= 0.25", "rating >= 0.25"),
        ("title BEGINSWITH[c] 'the'", "title BEGINSWITH[c] 'the'"),
        ("title ENDSWITH[d] 'end'", "title ENDSWITH[d] 'end'"),
        ("title CONTAINS[cd] 'wind'", "title CONTAINS[cd] 'wind'"),
        ("title LIKE 'A*'", "title LIKE 'A*'"),
        ("title MATCHES '[a-z]+ \"quoted\" \\\\d'", "title MATCHES '[a-z]+ \"quoted\" \\\\d'"),
        ("rating IN {1, 2, 3}", "rating IN {1, 2, 3}"),
        ("title IN {'a', 'b'}", "title IN {'a', 'b'}"),
        ("rating BETWEEN {1, 5}", "rating BETWEEN {1, 5}"),
        ("ANY pages.number == 4", "ANY pages.number == 4"),
        ("ALL pages.number > 0", "ALL pages.number > 0"),
        ("NONE pages.number == 13", "NOT (ANY pages.number == 13)"),
        ("NOT (rating == 1)", "NOT (rating == 1)"),
        ("rating == 1 AND (title == 'a' OR title == nil)", "rating == 1 AND (title == 'a' OR title == nil)"),
        ("TRUEPREDICATE", "TRUEPREDICATE"),
        ("FALSEPREDICATE", "FALSEPREDICATE"),
        ("isRead == YES", "isRead == YES"),
        ("author.name == $FETCH_SOURCE.author.name", "author.name == $FETCH_SOURCE.author.name"),
        ("title CONTAINS[c] $FETCHED_PROPERTY.userInfo.search", "title CONTAINS[c] $FETCHED_PROPERTY.userInfo.search"),
        ("title == $TITLE", "title == $TITLE"),
        ("SELF == $FETCH_SOURCE", "SELF == $FETCH_SOURCE"),
        ("added > CAST(12.5, 'NSDate')", "added > CAST(12.5, 'NSDate')"),
        ("rating + 1 > 3", "rating + 1 > 3"),
        ("rating * 2 - 1 >= -rating", "rating * 2 - 1 >= -rating"),
        ("sqrt(rating) < 2", "sqrt(rating) < 2"),
        ("added < now()", "added < now()"),
        ("CAST(rating, 'NSDate') > added", "CAST(rating, 'NSDate') > added"),
        ("FUNCTION(title, 'uppercaseString') == 'A'", "FUNCTION(title, 'uppercaseString') == 'A'"),
        ("count(pages) > 1", "count(pages) > 1"),
    ]

    /// A model whose Book has a fetched property, and the model a template, per predicate.
    static func model(predicates: [String]) -> ObjectModel {
        var model = ModelCacheWriterTests.fullModel
        var book = model.entity(named: "Book")!
        book.fetchedProperties = predicates.enumerated().map { index, text in
            FetchedPropertyDescription(name: "p\(index)", fetchRequest: FetchRequestTemplate(name: "p\(index)", entityName: "Book", predicate: text))
        }
        model.entities = model.entities.map { $0.name == "Book" ? book : $0 }
        model.fetchRequestTemplates = predicates.enumerated().map { index, text in
            FetchRequestTemplate(name: "t\(index)", entityName: "Book", predicate: text)
        }
        return model
    }

    @Test func everyPredicateFormIsReadBackFromTheCache() throws {
        let model = Self.model(predicates: Self.forms.map(\.written))
        let decoded = try ModelCacheDecoder.decode(try ModelCacheEncoder.blob(for: model, predicates: .objectPredicates))
        let fetched = try #require(decoded.entity(named: "Book")).fetchedProperties
        let templates = Dictionary(uniqueKeysWithValues: decoded.fetchRequestTemplates.map { ($0.name, $0) })
        for (index, form) in Self.forms.enumerated() {
            let expected = try ObjectPredicate(format: form.readBack, arguments: [])
            let property = fetched.first { $0.name == "p\(index)" }
            #expect(try property?.fetchRequest.predicate.map { try ObjectPredicate(format: $0, arguments: []) } == expected, "\(form.written)")
            #expect(property?.fetchRequest.entityName == "Book")
            #expect(try templates["t\(index)"]?.predicate.map { try ObjectPredicate(format: $0, arguments: []) } == expected, "\(form.written)")
        }
    }

    @Test func withoutAnArchiverThePredicatesAreNull() throws {
        let model = Self.model(predicates: ["rating == 3"])
        let archive = try KeyedArchive(data: ModelCacheEncoder.archive(of: model))
        let requests = archive.objects.filter { archive.className(of: $0) == "NSFetchRequest" }
        #expect(!requests.isEmpty)
        #expect(requests.allSatisfy { archive.object($0["NSPredicate"]) == nil })
        // A template without a predicate is read back as one (it fetches every object).
        var plain = ModelCacheWriterTests.fullModel
        plain.fetchRequestTemplates = [FetchRequestTemplate(name: "all", entityName: "Book")]
        let decoded = try ModelCacheDecoder.decode(try ModelCacheEncoder.blob(for: plain, predicates: .objectPredicates))
        #expect(decoded.fetchRequestTemplates == plain.fetchRequestTemplates)
    }

    @Test func aPredicateWithoutAnArchivedFormIsNullAndLeavesNothingBehind() throws {
        let model = Self.model(predicates: ["SUBQUERY(pages, $p, $p.number > 1).@count > 0"])
        let plain = ModelCacheEncoder.archive(of: model)
        let archived = ModelCacheEncoder.archive(of: model, predicates: .objectPredicates)
        #expect(archived == plain)
    }

    /// Every fetched property and template of the corpus models reads back from Strata's cache
    /// as the predicate the model file holds.
    @Test(.enabled(if: Corpus.available, Corpus.skipReason))
    func everyCorpusPredicateRoundTrips() throws {
        var checked = 0
        for version in Corpus.modelVersions where Self.mayHoldPredicates(version) {
            let model = try Corpus.model(of: version)
            let fetched = model.entities.flatMap { entity in entity.fetchedProperties.map { (entity.name, $0) } }
            guard !fetched.isEmpty || !model.fetchRequestTemplates.isEmpty else { continue }
            let decoded = try ModelCacheDecoder.decode(try ModelCacheEncoder.blob(for: model, predicates: .objectPredicates))
            for (entityName, property) in fetched {
                let read = decoded.entity(named: entityName)?.fetchedProperties.first { $0.name == property.name }
                #expect(try Self.parsed(read?.fetchRequest.predicate) == Self.parsed(property.fetchRequest.predicate),
                        "\(version.testDescription): \(entityName).\(property.name)")
                #expect(read?.fetchRequest.entityName == property.fetchRequest.entityName)
                checked += 1
            }
            let templates = Dictionary(uniqueKeysWithValues: decoded.fetchRequestTemplates.map { ($0.name, $0) })
            for template in model.fetchRequestTemplates {
                let read = templates[template.name]
                #expect(read != nil, "\(version.testDescription): template \(template.name)")
                #expect(try Self.parsed(read?.predicate) == Self.parsed(template.predicate), "\(version.testDescription): template \(template.name)")
                #expect(read?.resultType == template.resultType)
                checked += 1
            }
        }
        #expect(checked >= 20, "\(checked) predicates checked")
    }

    /// Whether the version's model file (an XML `contents`, or the bundle's binary files) may
    /// hold a fetched property or template: loading the others would only slow the test.
    private static func mayHoldPredicates(_ version: Corpus.ModelVersion) -> Bool {
        let folder = version.version.map { version.url.appendingPathComponent($0 + ".xcdatamodel") } ?? version.url
        let contents = folder.appendingPathComponent("contents")
        guard let data = FileManager.default.contents(atPath: contents.path) else { return true }
        let text = String(decoding: data, as: UTF8.self)
        return text.contains("<fetchedProperty") || text.contains("<fetchRequest")
    }

    /// A migration writes the new model's predicates into the new store's cache, as `create`
    /// does: read without Strata's copy of the model, the fetched property keeps its predicate.
    @Test func aMigratedStoreHasTheNewModelsPredicatesInItsCache() throws {
        let fixture = try MigrationFixture(versions: [
            ("V1", #"{"entities": [{"name": "Note", "attributes": [{"name": "title", "type": "string"}]}]}"#),
            ("V2", #"""
                {"entities": [{"name": "Note", "attributes": [{"name": "title", "type": "string"}, {"name": "body", "type": "string"}],
                  "fetchedProperties": [{"name": "namesakes", "fetchRequest": {"name": "namesakes", "entity": "Note",
                    "predicate": "title ==[c] $FETCH_SOURCE.title AND SELF != $FETCH_SOURCE"}}]}]}
                """#),
        ]) { context in try context.make("Note", ["title": "first"]) }
        try fixture.migrator().migrate()
        let database = try Database(path: fixture.path)
        defer { database.close() }
        let blob = try #require(try database.scalar("SELECT Z_CONTENT FROM Z_MODELCACHE")?.dataValue)
        let fetched = try ModelCacheDecoder.decode(blob).entity(named: "Note")?.fetchedProperties.first
        #expect(fetched?.name == "namesakes")
        #expect(try Self.parsed(fetched?.fetchRequest.predicate) == Self.parsed("title ==[c] $FETCH_SOURCE.title AND SELF != $FETCH_SOURCE"))
    }

    private static func parsed(_ text: String?) throws -> ObjectPredicate? {
        try text.map { try ObjectPredicate(format: $0, arguments: []) }
    }

    // MARK: - Against Core Data's caches

    /// CoreDataPlus's SampleModel2 caches: its fetched properties, read from Core Data's cache
    /// and written again by Strata, are archived object for object as Core Data archived them.
    @Test(.enabled(if: Corpus.available, Corpus.skipReason))
    func fetchedPropertiesAreArchivedAsCoreDataArchivesThem() throws {
        let url = Corpus.folder.appendingPathComponent("stores/coredataplus/SampleModel2_V1.sqlite")
        let theirs = try KeyedArchive(data: try ModelCacheWriterTests.inflatedCache(of: url))
        let model = try ModelCacheDecoder.model(fromArchive: try BinaryPropertyListReader.read(try ModelCacheWriterTests.inflatedCache(of: url)))
        let ours = try KeyedArchive(data: ModelCacheEncoder.archive(of: model, predicates: .objectPredicates))
        var compared = 0
        for name in ["feedbacks", "favFeedbacks"] {
            let their = try #require(Self.fetchRequest(of: name, in: theirs))
            let our = try #require(Self.fetchRequest(of: name, in: ours))
            #expect(Self.described(their["NSPredicate"], in: theirs) == Self.described(our["NSPredicate"], in: ours), "Author.\(name)")
            compared += 1
        }
        #expect(compared == 2)
    }

    /// EasyLife 1.5.0's `repeats` (minimum 0): the validation rule and warning Xcode compiled
    /// into Core Data's cache are those Strata writes, and so are the `_P` bits.
    @Test(.enabled(if: Corpus.available, Corpus.skipReason))
    func validationRulesAreArchivedAsCoreDataArchivesThem() throws {
        let store = try #require(Corpus.stores.first { $0.path.hasSuffix("EasyLife 1.5.0.sqlite") })
        let theirs = try KeyedArchive(data: try ModelCacheWriterTests.inflatedCache(of: store.url))
        let ours = try KeyedArchive(data: ModelCacheEncoder.archive(of: try Corpus.model(of: store), predicates: .objectPredicates))
        let their = try #require(Self.property("repeats", in: theirs))
        let our = try #require(Self.property("repeats", in: ours))
        for key in ["NSValidationPredicates", "NSValidationWarnings", "_P"] {
            #expect(Self.described(their[key], in: theirs) == Self.described(our[key], in: ours), "\(key)")
        }
        #expect(Self.described(our["NSValidationPredicates"], in: ours).contains("NSComparisonPredicateOperator"))
    }

    /// The other rules a model states, in the form inferred from Core Data's.
    @Test func minimumMaximumAndPatternBecomeValidationRules() throws {
        var entity = EntityDescription(name: "Note")
        var title = AttributeDescription(name: "title", type: .string)
        title.minValue = "3"
        title.maxValue = "50"
        title.regularExpression = "[A-Z].*"
        var rating = AttributeDescription(name: "rating", type: .double)
        rating.maxValue = "5"
        entity.attributes = [title, rating, AttributeDescription(name: "body", type: .string)]
        let archive = try KeyedArchive(data: ModelCacheEncoder.archive(of: ObjectModel(entities: [entity])))
        let archivedTitle = try #require(Self.property("title", in: archive))
        #expect(archive.array(archivedTitle["NSValidationWarnings"]).map(\.integerValue) == [1670, 1660, 1680])
        let rules = archive.array(archivedTitle["NSValidationPredicates"]).map { Self.described($0, in: archive) }
        #expect(rules.count == 3)
        #expect(rules.first?.contains("NSKeyPath: length") == true)
        #expect(rules.last?.contains("NSMatchingPredicateOperator") == true)
        #expect(archivedTitle["_P"]?.integerValue.map { $0 & 0x30 } == 0)
        let archivedRating = try #require(Self.property("rating", in: archive))
        #expect(archive.array(archivedRating["NSValidationWarnings"]).map(\.integerValue) == [1610])
        #expect(Self.described(archivedRating["NSValidationPredicates"], in: archive).contains("NSConstantValue: 5.0"))
        let body = try #require(Self.property("body", in: archive))
        #expect(body["NSValidationPredicates"] == nil)
        #expect(body["_P"]?.integerValue.map { $0 & 0x30 } == 0x30)
    }

    /// A store opened without its model keeps the model's rules: the minimum, maximum and
    /// pattern archived in its cache are read back as the model states them.
    @Test func validationRulesAreReadBackFromTheCache() throws {
        var entity = EntityDescription(name: "Note")
        var count = AttributeDescription(name: "count", type: .integer16)
        count.minValue = "-2"
        var due = AttributeDescription(name: "due", type: .date)
        due.minValue = "0"
        due.maxValue = "86400.25"
        var rating = AttributeDescription(name: "rating", type: .double)
        rating.minValue = "0.5"
        rating.maxValue = "5"
        var title = AttributeDescription(name: "title", type: .string)
        title.minValue = "3"
        title.maxValue = "50"
        title.regularExpression = "[A-Z].*"
        entity.attributes = [count, due, rating, title, AttributeDescription(name: "body", type: .string)]
        let archive = ModelCacheEncoder.archive(of: ObjectModel(entities: [entity]))
        let decoded = try ModelCacheDecoder.model(fromArchive: try BinaryPropertyListReader.read(archive))
        let read = try #require(decoded.entity(named: "Note")).attributes
        #expect(read.count == entity.attributes.count)
        for original in entity.attributes {
            let attribute = try #require(read.first { $0.name == original.name })
            #expect(attribute.minValue == original.minValue, "\(original.name)")
            #expect(attribute.maxValue == original.maxValue, "\(original.name)")
            #expect(attribute.regularExpression == original.regularExpression, "\(original.name)")
        }
    }

    /// EasyLife 1.5.0's cache, as Core Data wrote it, gives `repeats` the minimum its model file
    /// states.
    @Test(.enabled(if: Corpus.available, Corpus.skipReason))
    func coreDatasValidationRuleIsReadBack() throws {
        let store = try #require(Corpus.stores.first { $0.path.hasSuffix("EasyLife 1.5.0.sqlite") })
        let cached = try ModelCacheDecoder.model(fromArchive: try BinaryPropertyListReader.read(try ModelCacheWriterTests.inflatedCache(of: store.url)))
        let stated = try Corpus.model(of: store)
        var compared = 0
        for entity in stated.entities {
            for attribute in entity.attributes where attribute.minValue != nil || attribute.maxValue != nil {
                let read = try #require(cached.entity(named: entity.name)?.attributes.first { $0.name == attribute.name })
                #expect(read.minimumBound == attribute.minimumBound, "\(entity.name).\(attribute.name)")
                #expect(read.maximumBound == attribute.maximumBound, "\(entity.name).\(attribute.name)")
                compared += 1
            }
        }
        #expect(compared >= 1)
    }

    // MARK: - Helpers

    private static func fetchRequest(of property: String, in archive: KeyedArchive) -> PropertyListValue? {
        Self.property(property, in: archive).flatMap { archive.object($0["NSFetchRequest"]) }
    }

    private static func property(_ name: String, in archive: KeyedArchive) -> PropertyListValue? {
        archive.objects.first { object in object["_P"] != nil && archive.string(object["NSPropertyName"]) == name }
    }

    /// An archived object as text: its `$classes` chain and each key with its value, objects
    /// described in turn, so that two archives compare whatever their object numbers.
    static func described(_ reference: PropertyListValue?, in archive: KeyedArchive, depth: Int = 0) -> String {
        guard let value = archive.object(reference) else { return "$null" }
        guard depth < 24, let fields = value.dictionaryValue, fields["$class"] != nil else {
            switch value {
            case .string(let text): return text
            case .integer(let number): return String(number)
            case .real(let number): return String(number)
            default: return "\(value)"
            }
        }
        let chain = archive.object(value["$class"])?["$classes"]?.arrayValue?.compactMap(\.stringValue) ?? []
        let indent = String(repeating: "  ", count: depth + 1)
        var lines = [chain.joined(separator: " < ")]
        for key in fields.keys.sorted() where key != "$class" {
            let field = fields[key]!
            let text: String = switch field {
            case .array(let members): "[" + members.map { described($0, in: archive, depth: depth + 1) }.joined(separator: ", ") + "]"
            case .uid: described(field, in: archive, depth: depth + 1)
            default: described(field, in: archive, depth: depth + 1)
            }
            lines.append("\(indent)\(key): \(text)")
        }
        return lines.joined(separator: "\n")
    }
}
