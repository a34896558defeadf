import Foundation
import Testing
@testable import Strata

/// Version hashes must equal those Core Data wrote into real stores, or Strata could not open
/// them. The expected values are the `NSStoreModelVersionHashes` of the fixture stores.
@Suite struct VersionHashTests {
    static let tavantTradeHashes = [
        "FeedbackCategory": "0606c0a42cfc5d739afd2a5dd9b1b21bfa756d3ff4e7aaecf89e01b0cdb567b2",
        "FeedbackSubCategory": "75a0aa0ea62ba3c84e95978e63a15e8e7fdfa62835bbf9f39c5a6e7f2d683fed",
    ]

    /// TavantTrade's model, as its `contents` file describes it.
    static var tavantTradeModel: ObjectModel {
        var category = EntityDescription(name: "FeedbackCategory")
        var subcategories = RelationshipDescription(name: "subcategory", destination: "FeedbackSubCategory", isToMany: true)
        subcategories.inverseName = "category"
        category.attributes = [AttributeDescription(name: "name", type: .string)]
        category.relationships = [subcategories]
        var subcategory = EntityDescription(name: "FeedbackSubCategory")
        var parent = RelationshipDescription(name: "category", destination: "FeedbackCategory")
        parent.inverseName = "subcategory"
        subcategory.attributes = [AttributeDescription(name: "name", type: .string)]
        subcategory.relationships = [parent]
        return ObjectModel(entities: [category, subcategory])
    }

    @Test func tavantTradeModelBuiltInCodeHashesLikeCoreData() {
        let hashes = Self.tavantTradeModel.entityVersionHashes().mapValues(\.hexString)
        #expect(hashes == Self.tavantTradeHashes)
    }

    @Test(.enabled(if: Fixtures.available, Fixtures.skipReason))
    func tavantTradeModelFileHashesLikeItsStore() throws {
        let bundle = try ModelLoader.load(Fixtures.model("TavantTrade.xcdatamodeld"))
        #expect(try bundle.currentVersion.model.entityVersionHashes().mapValues(\.hexString) == Self.tavantTradeHashes)
    }

    /// CoreDataBooks' model exists only as an Xcode 3 binary; the fixtures README describes it.
    @Test func coreDataBooksModelHashesLikeItsStore() {
        var book = EntityDescription(name: "Book")
        var author = AttributeDescription(name: "author", type: .string)
        author.isOptional = false
        var title = AttributeDescription(name: "title", type: .string)
        title.isOptional = false
        let copyright = AttributeDescription(name: "copyright", type: .date)
        book.attributes = [author, title, copyright]
        let model = ObjectModel(entities: [book])
        #expect(model.entityVersionHashes()["Book"]?.hexString
            == "4b2c05cdc2213e563008fe8dce7b01329e96c841c5df361d698bd7fc721a188d")
    }

    /// The Final Cut stores hold checksum and digest keys beside their entity hashes.
    @Test func checksumAndDigestMatchFinalCutStores() {
        let hashes = [
            "CatalogRoot": "980fb8a761acb65c772595ae81eae63d0d054e051dde695de7c8569b70bdc32d",
            "CatalogRootMD": "4c3502d5ad2bdd53576c341d001aa9019b2b3b2d5716142353021bc07b021eeb",
            "Collection": "5499c7fd47537aff1d54416545113e5c6c7e29230dd17fc9d57be0ac634509af",
            "CollectionMD": "54a1f1c040daa81bcfd1cc9614fb602bb21c6c051b9d404e1f6759a5212fec98",
        ].mapValues { Data(hex: $0) }
        #expect(ObjectModel.versionChecksum(of: hashes) == "rid3cuDSglY16ozawWPGLym3dG9+zDWUF+ZEqk5PLzo=")
        #expect(ObjectModel.versionHashesDigest(of: hashes)
            == "LFF4xu5+Y1i5rcVGXNQi5wvC9Bx+/77OmfzjbeBV5W6bHo/9DfV3ExAWOAotFEf9phHty2Zpsl8+ORk8hMCoWw==")
    }

    @Test func transientPropertiesDoNotChangeTheHash() {
        var model = Self.tavantTradeModel
        let before = model.entityVersionHashes()
        var transient = AttributeDescription(name: "scratch", type: .string)
        transient.isTransient = true
        model.entities[0].attributes.append(transient)
        #expect(model.entityVersionHashes() == before)
    }

    @Test func settingsOutsideTheHashDoNotChangeIt() {
        var model = Self.tavantTradeModel
        let before = model.entityVersionHashes()
        model.entities[0].attributes[0].isIndexed = true
        model.entities[0].attributes[0].defaultValue = "x"
        model.entities[0].relationships[0].deleteRule = .cascade
        model.entities[0].userInfo = ["key": "value"]
        model.entities[0].className = "Other"
        #expect(model.entityVersionHashes() == before)
    }

    @Test func hashedSettingsChangeTheHash() {
        let base = Self.tavantTradeModel
        let baseHash = base.entityVersionHashes()["FeedbackCategory"]
        let changes: [(inout ObjectModel) -> Void] = [
            { $0.entities[0].attributes[0].isOptional = false },
            { $0.entities[0].attributes[0].type = .integer32 },
            { $0.entities[0].attributes[0].versionHashModifier = "v2" },
            { $0.entities[0].relationships[0].isOrdered = true },
            { $0.entities[0].relationships[0].maxCount = 5 },
            { $0.entities[0].isAbstract = true },
            { $0.entities[0].versionHashModifier = "v2" },
            { $0.entities[0].uniquenessConstraints = [["name"]] },
        ]
        for change in changes {
            var model = base
            change(&model)
            #expect(model.entityVersionHashes()["FeedbackCategory"] != baseHash)
        }
        // The hashes are kept once computed, and a copy shares them until its entities change:
        // the changed copies above must not have replaced the original's.
        #expect(base.entityVersionHashes()["FeedbackCategory"] == baseHash)
    }

    @Test func subEntityHashIncludesItsParentsHash() {
        var model = Self.tavantTradeModel
        var child = EntityDescription(name: "Special")
        child.superentityName = "FeedbackCategory"
        model.entities.append(child)
        let before = model.entityVersionHashes()["Special"]
        model.entities[0].attributes[0].isOptional = false
        #expect(model.entityVersionHashes()["Special"] != before)
    }

    /// A sub-entity's hash covers its inherited properties as well as its parent's hash: the
    /// hashes of artsy-energy's `Document` and its sub-entity `ShowDocument` (which declares
    /// nothing itself), as Core Data wrote them in `ArtsyPartner_2.0.sqlite` (the fixture
    /// corpus), built here from the model file's settings.
    @Test func subEntityHashCoversInheritedPropertiesAsCoreDataComputesIt() {
        var document = EntityDescription(name: "Document")
        func attribute(_ name: String, _ type: AttributeType, optional: Bool = true) -> AttributeDescription {
            var attribute = AttributeDescription(name: name, type: type)
            attribute.isOptional = optional
            return attribute
        }
        document.attributes = [
            attribute("filename", .string), attribute("hasFile", .boolean), attribute("humanReadableSize", .string),
            attribute("size", .integer32), attribute("slug", .string, optional: false), attribute("title", .string),
            attribute("url", .string), attribute("version", .integer16),
        ]
        document.relationships = ["album": "Album", "artist": "Artist", "show": "Show"].sorted { $0.key < $1.key }.map { name, destination in
            var relationship = RelationshipDescription(name: name, destination: destination)
            relationship.inverseName = "documents"
            relationship.inverseEntityName = destination
            return relationship
        }
        var showDocument = EntityDescription(name: "ShowDocument")
        showDocument.superentityName = "Document"
        let hashes = ObjectModel(entities: [document, showDocument]).entityVersionHashes().mapValues(\.hexString)
        #expect(hashes["Document"] == "546485e4f8d8a9c62dd6274c638e9d309b0a41926356ed15cc875c897a55c758")
        #expect(hashes["ShowDocument"] == "4484e3e7e2f475fa918d775e5f2c26d5427604487c6b588de19b8a9ed7893247")
    }
}

extension Data {
    init(hex: String) {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        self.init(bytes)
    }
}
