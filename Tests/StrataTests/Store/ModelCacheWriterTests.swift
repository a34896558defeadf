import Foundation
import Testing
@testable import Strata
import StrataTestSupport

/// The model cache Strata writes (`ModelCacheEncoder`): what Core Data's caches hold, for every
/// model of the corpus, in every store Strata creates or migrates.
@Suite struct ModelCacheWriterTests {
    /// Every model version of the corpus comes back from its cache with the same entity version
    /// hashes and the same store layout.
    @Test(.enabled(if: Corpus.available, Corpus.skipReason), arguments: Corpus.modelVersions)
    func everyCorpusModelRoundTrips(_ version: Corpus.ModelVersion) throws {
        let model = try Corpus.model(of: version)
        let decoded = try ModelCacheDecoder.decode(try ModelCacheEncoder.blob(for: model))
        #expect(decoded.entityVersionHashes() == model.entityVersionHashes())
        #expect(decoded.versionIdentifier == model.versionIdentifier)
        #expect(StoreLayout(model: decoded) == StoreLayout(model: model))
        #expect(decoded.entities.map(\.name) == model.entities.map(\.name).sorted())
    }

    /// A model with every part the cache archives round-trips them, where the decoder reads them.
    @Test func everyPartOfAModelRoundTrips() throws {
        let model = Self.fullModel
        let decoded = try ModelCacheDecoder.decode(try ModelCacheEncoder.blob(for: model))
        #expect(decoded.entityVersionHashes() == model.entityVersionHashes())
        #expect(StoreLayout(model: decoded) == StoreLayout(model: model))
        let book = try #require(decoded.entity(named: "Book"))
        #expect(book.userInfo == ["table": "books"])
        #expect(book.renamingIdentifier == "Volume")
        #expect(book.uniquenessConstraints == [["isbn"], ["title", "author"]])
        #expect(book.fetchIndexes == [FetchIndexDescription(name: "byTitle", elements: [.init(property: "title", isAscending: false)])])
        #expect(book.compoundIndexes == [["title", "rating"]])
        #expect(book.attribute(named: "isbn")?.isOptional == false)
        #expect(book.attribute(named: "isbn")?.isIndexed == true)
        #expect(book.attribute(named: "title")?.userInfo == ["search": "yes"])
        #expect(book.attribute(named: "title")?.renamingIdentifier == "name")
        #expect(book.attribute(named: "rating")?.defaultValue == "3")
        #expect(book.attribute(named: "isRead")?.defaultValue == "NO")
        #expect(book.attribute(named: "added")?.defaultValue == "12.5")
        #expect(book.attribute(named: "cover")?.allowsExternalBinaryDataStorage == true)
        #expect(decoded.entity(named: "Item")?.attribute(named: "id")?.preservesValueInHistoryOnDeletion == true)
        #expect(book.attribute(named: "payload")?.valueTransformerName == "PayloadTransformer")
        #expect(book.attribute(named: "payload")?.customClassName == "Payload")
        #expect(book.attribute(named: "pageCount")?.isDerived == true)
        #expect(try book.attribute(named: "pageCount")?.derivation == .aggregate(relationship: "pages", function: .count, attribute: nil))
        #expect(try book.attribute(named: "authorName")?.derivation == .value(relationship: "author", attribute: "name", function: .uppercase))
        #expect(book.relationship(named: "pages")?.isOrdered == true)
        #expect(book.relationship(named: "pages")?.deleteRule == .cascade)
        #expect(book.relationship(named: "author")?.inverseName == "books")
        #expect(book.relationship(named: "author")?.versionHashModifier == "2")
        let ebook = try #require(decoded.entity(named: "EBook"))
        #expect(ebook.superentityName == "Book")
        #expect(ebook.attributes.map(\.name) == ["format"])
        #expect(decoded.entity(named: "Item")?.isAbstract == true)
        #expect(decoded.entity(named: "Item")?.versionHashModifier == "v2")
    }

    /// For each class Strata's archives use, its `$classes` chain is the one Core Data's caches
    /// give it, and its keys are keys Core Data writes on that class; the keys Core Data writes
    /// on every object of a class, Strata writes on every one too. Where no corpus cache shows a
    /// class or key (listed in `inferred`), there is nothing to compare with.
    @Test(.enabled(if: Corpus.available, Corpus.skipReason))
    func classesAndKeysAreThoseOfCoreDatasCaches() throws {
        let coreData = try Self.classesOfCorpusCaches()
        #expect(coreData.count >= 30, "the corpus caches use \(coreData.count) classes")
        var models = [Self.fullModel, ModelCachePredicateTests.model(predicates: ModelCachePredicateTests.forms.map(\.written))]
        for store in Corpus.stores where !store.models.isEmpty { models.append(try Corpus.model(of: store)) }
        let inferred: [String: Set<String>] = [
            "NSAttributeDescription": ["NSAllowsExternalBinaryDataStorage", "NSUserInfo", "NSVersionHashModifier"],
            "NSDerivedAttributeDescription": ["NSIsIndexed", "NSUserInfo"],
            "NSRelationshipDescription": ["NSIsOrdered", "NSIsTransient", "NSUserInfo", "NSVersionHashModifier"],
            "NSDate": ["NS.time"],
            // Predicate parts no corpus cache holds (KeyedArchiveWriter+NSPredicate.swift).
            "NSTruePredicate": [], "NSFalsePredicate": [],
            "NSSubstringPredicateOperator": ["NSFlags", "NSModifier", "NSOperatorType", "NSPosition"],
            "NSMatchingPredicateOperator": ["NSFlags", "NSModifier", "NSOperatorType"],
            "NSLikePredicateOperator": ["NSFlags", "NSModifier", "NSOperatorType"],
            "NSBetweenPredicateOperator": ["NSModifier", "NSOperatorType"],
        ]
        for model in models {
            for (name, ours) in try Self.classes(of: ModelCacheEncoder.archive(of: model, predicates: .objectPredicates)) {
                guard let theirs = coreData[name] else {
                    #expect(inferred[name] != nil, "class \(name) is in no corpus cache")
                    continue
                }
                #expect(ours.chain == theirs.chain, "\(name)")
                let unknown = ours.allKeys.subtracting(theirs.allKeys).subtracting(inferred[name] ?? [])
                #expect(unknown.isEmpty, "\(name): keys no corpus cache has: \(unknown.sorted())")
                let missing = theirs.everyObjectKeys.subtracting(ours.everyObjectKeys)
                #expect(missing.isEmpty, "\(name): keys Core Data always writes that Strata left out: \(missing.sorted())")
            }
        }
    }

    /// For each corpus store that has a model cache and whose model file is known, Strata's
    /// cache of that model says what Core Data's says of every entity and property: the values
    /// of the keys below, compared object by object (references by name).
    @Test(.enabled(if: Corpus.available, Corpus.skipReason))
    func stratasCacheOfACorpusModelSaysWhatCoreDatasSays() throws {
        let entityKeys = ["NSEntityName", "NSClassNameForEntity", "NSSuperentity", "NSIsAbstract", "NSUniqueTuples", "NSCompoundIndexes", "NSFetchIndexDescriptions",
                          "NSVersionHashModifier", "NSRenamingIdentifier", "NSUserInfo", "NSSubentities"]
        let propertyKeys = ["_P", "NSAttributeType", "NSAttributeValueClassName", "NSIsOptional", "NSIsTransient", "NSIsIndexed", "NSFlagsKey", "NSDefaultValue",
                            "NSValueTransformerName", "NSMinCount", "NSMaxCount", "NSDeleteRule", "NSDestinationEntity", "NSInverseRelationship",
                            "_NSDestinationEntityName", "_NSInverseRelationshipName", "NSEntity", "NSRenamingIdentifier"]
        var compared = 0
        for store in Corpus.stores where !store.models.isEmpty && Self.corpusCacheStores.contains(store.url) {
            let theirs = try KeyedArchive(data: try Self.inflatedCache(of: store.url))
            let ours = try KeyedArchive(data: ModelCacheEncoder.archive(of: try Corpus.model(of: store), predicates: .objectPredicates))
            let theirEntities = Dictionary(uniqueKeysWithValues: theirs.dictionary(theirs.root["NSEntities"]).map { ($0.key, $0.value) })
            let ourEntities = Dictionary(uniqueKeysWithValues: ours.dictionary(ours.root["NSEntities"]).map { ($0.key, $0.value) })
            #expect(theirEntities.keys.sorted() == ourEntities.keys.sorted(), "\(store.path)")
            for (name, theirEntity) in theirEntities {
                guard let ourEntity = ourEntities[name] else { continue }
                for key in entityKeys {
                    // Core Data 637 archives an entity without sub-entities as `$null`, later
                    // releases as an empty dictionary, which Strata writes.
                    if key == "NSSubentities", theirs.object(theirEntity[key]) == nil { continue }
                    // SampleModel_V2's cache names no class though its model does (and V1's,
                    // of the same bundle and release, does): Strata writes the model's.
                    if key == "NSClassNameForEntity", theirs.object(theirEntity[key]) == nil { continue }
                    // A class of the current module (`.TodoItem`) is named after the app's
                    // module where Xcode compiled it so (`EasyLife.TodoItem` in EasyLife
                    // 1.3.0's cache): the module's name is not in the model.
                    if key == "NSClassNameForEntity", let ourName = ours.string(ourEntity[key]), ourName.hasPrefix("."),
                        theirs.string(theirEntity[key])?.hasSuffix(ourName) == true { continue }
                    // Whether empty index lists are written without any fetch index in the model
                    // varies (EasyLife 1.5.0 has them, SampleModel_V1 not): Strata leaves them out.
                    if ["NSFetchIndexDescriptions", "NSCompoundIndexes"].contains(key), ourEntity[key] == nil,
                        theirs.array(theirEntity[key]).isEmpty { continue }
                    #expect(Self.described(theirEntity[key], in: theirs) == Self.described(ourEntity[key], in: ours), "\(store.path): \(name).\(key)")
                }
                let theirProperties = Dictionary(uniqueKeysWithValues: theirs.dictionary(theirEntity["NSProperties"]).map { ($0.key, $0.value) })
                let ourProperties = Dictionary(uniqueKeysWithValues: ours.dictionary(ourEntity["NSProperties"]).map { ($0.key, $0.value) })
                #expect(theirProperties.keys.sorted() == ourProperties.keys.sorted(), "\(store.path): \(name)")
                for (property, theirProperty) in theirProperties {
                    guard let ourProperty = ourProperties[property] else { continue }
                    #expect(theirs.className(of: theirProperty) == ours.className(of: ourProperty), "\(store.path): \(name).\(property)")
                    for key in propertyKeys {
                        // Release 1044 archived a Transformable without its custom class (1344
                        // with it): Strata writes the class, which the decoder reads.
                        if key == "NSAttributeValueClassName", theirProperty["NSAttributeType"]?.integerValue == 1800,
                            theirs.object(theirProperty[key]) == nil { continue }
                        #expect(Self.described(theirProperty[key], in: theirs) == Self.described(ourProperty[key], in: ours),
                                "\(store.path): \(name).\(property) \(key)")
                    }
                    compared += 1
                }
            }
        }
        #expect(compared > 50, "\(compared) properties compared")
    }

    /// Core Data's `_P` bits, as every property of the corpus caches has them.
    @Test(.enabled(if: Corpus.available, Corpus.skipReason))
    func propertyBitsAreCoreDatas() throws {
        var checked = 0
        for url in Self.corpusCacheStores {
            let archive = try KeyedArchive(data: try Self.inflatedCache(of: url))
            for object in archive.objects {
                guard case .integer(let bits)? = object["_P"] else { continue }
                let hasUserInfo = !archive.dictionary(object["NSUserInfo"]).isEmpty
                #expect(ModelCacheEncoder.propertyBits(
                    isOptional: object["NSIsOptional"]?.boolValue ?? false, isReadOnly: object["NSIsReadOnly"]?.boolValue ?? false,
                    isTransient: object["NSIsTransient"]?.boolValue ?? false, hasUserInfo: hasUserInfo,
                    hasValidationRules: !archive.array(object["NSValidationPredicates"]).isEmpty) == bits)
                checked += 1
            }
        }
        #expect(checked > 100)
    }

    // MARK: - In stores

    @Test func aCreatedStoreHasItsModelInZModelCache() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("Created.sqlite")
        try PersistentStore.create(at: path, model: Self.fullModel).close()
        let database = try Database(path: path)
        #expect(try database.scalar("SELECT sql FROM sqlite_master WHERE name = 'Z_MODELCACHE'")?.stringValue == "CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB)")
        #expect(try database.scalar("SELECT count(*) FROM Z_MODELCACHE")?.int64Value == 1)
        // Without Strata's copy in the metadata, the cache alone gives the model.
        var metadata = try StoreMetadata(reading: database)
        metadata.properties[StoreMetadata.modelKey] = nil
        try metadata.write(to: database)
        database.close()
        let opened = try PersistentStore.open(at: path, configuration: .readOnly)
        defer { opened.close() }
        #expect(opened.modelSource == .modelCache)
        #expect(opened.comparison.isMatch)
        #expect(opened.model.entityVersionHashes() == Self.fullModel.entityVersionHashes())
    }

    @Test func aStoreOfACoreDataReleaseBeforeTheCacheHasNone() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("Old.sqlite")
        let store = try PersistentStore.create(at: path, model: Self.fullModel, frameworkVersion: 519)
        defer { store.close() }
        #expect(try store.database.scalar("SELECT count(*) FROM sqlite_master WHERE name = 'Z_MODELCACHE'")?.int64Value == 0)
    }

    @Test func aMigratedStoreHasTheNewModelInZModelCache() throws {
        let fixture = try MigrationFixture(versions: [
            ("V1", #"{"entities": [{"name": "Note", "attributes": [{"name": "title", "type": "string"}]}]}"#),
            ("V2", #"{"entities": [{"name": "Note", "attributes": [{"name": "title", "type": "string"}, {"name": "body", "type": "string"}]}]}"#),
        ]) { context in try context.make("Note", ["title": "first"]) }
        try fixture.migrator().migrate()
        let database = try Database(path: fixture.path)
        var metadata = try StoreMetadata(reading: database)
        metadata.properties[StoreMetadata.modelKey] = nil
        try metadata.write(to: database)
        #expect(try database.scalar("SELECT count(*) FROM Z_MODELCACHE")?.int64Value == 1)
        database.close()
        let opened = try PersistentStore.open(at: fixture.path, configuration: .readOnly)
        defer { opened.close() }
        #expect(opened.modelSource == .modelCache)
        #expect(opened.comparison.isMatch)
        #expect(opened.model.entity(named: "Note")?.attributes.map(\.name).sorted() == ["body", "title"])
        #expect(try opened.rowCountExcludingSubentities(of: "Note") == 1)
    }

    @Test func aDataStackOnANewStoreWritesTheCache() throws {
        let folder = try TemporaryFolder()
        let url = folder.url.appendingPathComponent("Stack.sqlite")
        do {
            let stack = try DataStack(model: Self.fullModel, store: .sqlite(url))
            #expect(stack.createdStore)
        }
        let database = try Database(path: url.path, configuration: .readOnly)
        defer { database.close() }
        let blob = try #require(try database.scalar("SELECT Z_CONTENT FROM Z_MODELCACHE")?.dataValue)
        #expect(try ModelCacheDecoder.decode(blob).entityVersionHashes() == Self.fullModel.entityVersionHashes())
    }
}
