import Foundation
import Testing
@testable import Strata

/// The transformable values of the real stores, as Core Data (and, for Final Cut Pro, macOS's
/// archiver) wrote them: Final Cut Pro's `dictionaryData` (an app's own transformer,
/// `DSMetadataTransformer`, over keyed archives of dictionaries), CoreDataPlus's `Content` and
/// `Cover` objects (transformers of its own) and BookMigration's `fileURL` (the default
/// transformer, holding strings).
@Suite(.enabled(if: Fixtures.available && Corpus.available, Corpus.skipReason))
struct TransformableCorpusTests {
    /// Each store with transformable columns: table, column, attribute, how many values it holds.
    static let stores: [(path: String, entity: String, attribute: String, table: String, column: String, count: Int)] = [
        ("real-stores/FinalCutLibrary.sqlite", "CatalogRootMD", "dictionaryData", "ZCATALOGROOTMD", "ZDICTIONARYDATA", 1),
        ("real-stores/FinalCutLibrary.sqlite", "CollectionMD", "dictionaryData", "ZCOLLECTIONMD", "ZDICTIONARYDATA", 11),
        ("real-stores/FinalCutEvent.sqlite", "CatalogRootMD", "dictionaryData", "ZCATALOGROOTMD", "ZDICTIONARYDATA", 1),
        ("real-stores/FinalCutEvent.sqlite", "CollectionMD", "dictionaryData", "ZCOLLECTIONMD", "ZDICTIONARYDATA", 23),
        ("corpus/stores/coredataplus/SampleModel2_V1.sqlite", "Book", "cover", "ZBOOK", "ZCOVER", 52),
        ("corpus/stores/coredataplus/SampleModel2_V1.sqlite", "Page", "content", "ZPAGE", "ZCONTENT", 4970),
        ("corpus/stores/coredataplus/SampleModel2_V2.sqlite", "Book", "frontCover", "ZBOOK", "ZFRONTCOVER", 3),
        ("corpus/stores/coredataplus/SampleModel2_V2.sqlite", "Page", "content", "ZPAGE", "ZCONTENT", 119),
        ("corpus/stores/bookmigration/Model1.sqlite", "Book", "fileURL", "ZBOOK", "ZFILEURL", 4),
    ]

    /// The model of the store at `path` (relative to the fixtures): the corpus's model file
    /// that wrote it, else the store's own model cache.
    static func model(of path: String) throws -> ObjectModel {
        if let store = Corpus.stores.first(where: { "corpus/" + $0.path == path }), !store.models.isEmpty { return try Corpus.model(of: store) }
        let opened = try PersistentStore.open(at: Fixtures.coreData.appendingPathComponent(path).path, configuration: .readOnly)
        defer { opened.close() }
        return opened.model
    }

    static func attribute(_ store: (path: String, entity: String, attribute: String, table: String, column: String, count: Int)) throws -> AttributeDescription {
        let model = try model(of: store.path)
        return try #require(model.entity(named: store.entity).flatMap { model.attribute(named: store.attribute, in: $0) })
    }

    static func blobs(_ path: String, _ table: String, _ column: String) throws -> [Data] {
        let database = try Fixtures.readOnlyDatabase(at: Fixtures.coreData.appendingPathComponent(path).path)
        defer { database.close() }
        return try database.rows("SELECT \(column) FROM \(table) WHERE \(column) IS NOT NULL ORDER BY Z_PK").compactMap { $0[0].dataValue }
    }

    /// Every stored value is a keyed archive that reads as a value, is written again as one
    /// that reads as the same value, and reads back through its attribute as the store's model
    /// says (opaque behind an app's own transformer, whose bytes it keeps).
    @Test func everyStoredValueReadsAndIsWrittenAgainAsTheSameValue() throws {
        for store in Self.stores {
            let blobs = try Self.blobs(store.path, store.table, store.column)
            #expect(blobs.count == store.count, "\(store.path) \(store.table)")
            let attribute = try Self.attribute(store)
            #expect(attribute.type == .transformable)
            for blob in blobs {
                let value = try TransformableValue(keyedArchive: blob)
                let again = try TransformableValue(keyedArchive: value.keyedArchive())
                #expect(again == value, "\(store.path) \(store.column)")
                let read = attribute.transformableValue(storedData: blob)
                if attribute.storesKeyedArchives {
                    #expect(read == value)
                } else {
                    #expect(read == .object(ArchivedObject(className: ArchivedObject.className(of: try KeyedArchive(data: blob).root, in: try KeyedArchive(data: blob)), archive: blob)))
                }
                // An opaque value keeps its bytes; one read as a value is archived anew, as the same value.
                if attribute.storesKeyedArchives {
                    #expect(try TransformableValue(keyedArchive: attribute.storedData(for: read)) == read)
                } else {
                    #expect(try attribute.storedData(for: read) == blob)
                }
            }
        }
    }

    @Test func theModelsNameTheTransformersTheStoresWereWrittenWith() throws {
        var names: [String: String?] = [:]
        for store in Self.stores {
            names["\(store.entity).\(store.attribute)"] = try Self.attribute(store).valueTransformerName
        }
        let expected: [String: String?] = [
            "CatalogRootMD.dictionaryData": "DSMetadataTransformer", "CollectionMD.dictionaryData": "DSMetadataTransformer",
            "Book.cover": "CoverTransformer", "Page.content": "ContentTransformer", "Book.frontCover": "CoverTransformer", "Book.fileURL": nil,
        ]
        #expect(names == expected)
    }

    /// Final Cut Pro's archives, read as values: the catalog root's dictionary exactly, and
    /// in the collections' the property-list classes read, objects of Final Cut's and
    /// Foundation's other classes kept.
    @Test func finalCutProsDictionariesReadAsValues() throws {
        let root = try TransformableValue(keyedArchive: try #require(Self.blobs("real-stores/FinalCutLibrary.sqlite", "ZCATALOGROOTMD", "ZDICTIONARYDATA").first))
        #expect(root == .dictionary([
            "$catalogClientVersion": .integer(1161), "$rootObjectID": .string("C60CA724-BC9C-47B9-BF22-97CBCA30D396"), "FFCatalogBase": .integer(1161),
        ]))
        var kept: Set<String> = [], dates = 0, nulls = 0, sets = 0
        func visit(_ value: TransformableValue) {
            switch value {
            case .object(let object): kept.insert(object.className)
            case .date: dates += 1
            case .null: nulls += 1
            case .set(let members): sets += 1; members.forEach(visit)
            case .array(let values): values.forEach(visit)
            case .dictionary(let entries): entries.values.forEach(visit)
            default: break
            }
        }
        for path in ["real-stores/FinalCutLibrary.sqlite", "real-stores/FinalCutEvent.sqlite"] {
            for blob in try Self.blobs(path, "ZCOLLECTIONMD", "ZDICTIONARYDATA") {
                let value = try TransformableValue(keyedArchive: blob)
                #expect(value.dictionaryValue != nil)
                visit(value)
            }
        }
        // NSDictionary: thumbMD5InfosKeyedByImageQuality has numbers as keys, which no JSON or Lua key can be.
        #expect(kept == ["NSMutableIndexSet", "FFEventInfo", "FigTimeRangeObj", "FigTimeObj", "NSDictionary"])
        #expect(dates > 0 && nulls > 0 && sets > 0)
    }

    @Test func coreDataPlussObjectsAndBookMigrationsStrings() throws {
        let pages = try Self.blobs("corpus/stores/coredataplus/SampleModel2_V1.sqlite", "ZPAGE", "ZCONTENT")
        let classNames = Set(try pages.map { blob -> String in
            guard case .object(let object) = try TransformableValue(keyedArchive: blob) else { return "not kept" }
            #expect(object.archive == blob)
            return object.className
        })
        #expect(classNames == ["Content"])
        let covers = try Self.blobs("corpus/stores/coredataplus/SampleModel2_V1.sqlite", "ZBOOK", "ZCOVER").map { try TransformableValue(keyedArchive: $0) }
        #expect(covers.allSatisfy { $0.archivedClassNames == ["CoreDataPlus_Tests.Cover"] })
        let files = try Self.blobs("corpus/stores/bookmigration/Model1.sqlite", "ZBOOK", "ZFILEURL").map { try TransformableValue(keyedArchive: $0) }
        #expect(files.count == 4)
        #expect(files.allSatisfy { $0.stringValue?.hasSuffix(".file") == true })
    }
}
