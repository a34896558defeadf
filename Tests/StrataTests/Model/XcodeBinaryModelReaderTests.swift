import Foundation
import Testing
@testable import Strata

/// Xcode 3's binary models (`elements`): read from the corpus, whose stores Core Data wrote with
/// them, and refused with a ModelError when the file is something else.
@Suite struct XcodeBinaryModelReaderTests {
    static let recipes = Corpus.folder.appendingPathComponent("models/fruitsamples-recipes/Recipes.xcdatamodel")
    static let twitter = Corpus.folder.appendingPathComponent("models/restkit/RKTwitterCoreData.xcdatamodel")

    /// Apple's iPhoneCoreDataRecipes: every setting the sample's model editor showed.
    @Test(.enabled(if: Corpus.available, Corpus.skipReason))
    func theRecipesModelReadsAsXcodeShowedIt() throws {
        let model = try ModelLoader.load(Self.recipes).currentVersion.model
        #expect(model.entities.map(\.name) == ["Image", "Ingredient", "Recipe", "RecipeType"])
        let ingredient = try #require(model.entity(named: "Ingredient"))
        #expect(ingredient.className == "Ingredient")
        let name = try #require(ingredient.attributes.first { $0.name == "name" })
        #expect(name.type == .string && !name.isOptional && name.defaultValue == "Ingredient Name")
        #expect(ingredient.attributes.first { $0.name == "displayOrder" }?.type == .integer16)
        let recipe = try #require(model.entity(named: "Recipe"))
        #expect(recipe.attributes.first { $0.name == "thumbnailImage" }?.valueTransformerName == "ImageToDataTransformer")
        let ingredients = try #require(recipe.relationships.first { $0.name == "ingredients" })
        #expect(ingredients.destinationEntityName == "Ingredient" && ingredients.inverseName == "recipe")
        #expect(ingredients.isToMany && ingredients.deleteRule == .cascade)
        let imageRecipe = try #require(model.entity(named: "Image")?.relationships.first { $0.name == "recipe" })
        #expect(!imageRecipe.isToMany && !imageRecipe.isOptional && imageRecipe.maxCount == 1)
        #expect(model.validate().isEmpty)
    }

    /// The stores these models wrote hold the hashes of the models read here.
    @Test(.enabled(if: Corpus.available, Corpus.skipReason), arguments: [
        (recipes, "stores/fruitsamples-recipes/Recipes.sqlite"), (twitter, "stores/restkit/RKSeedDatabase.sqlite"),
    ])
    func hashesAreThoseOfTheStoreItWrote(model url: URL, store path: String) throws {
        let model = try ModelLoader.load(url).currentVersion.model
        let store = try PersistentStore.open(at: Corpus.folder.appendingPathComponent(path).path, model: model, configuration: .readOnly)
        defer { store.close() }
        #expect(store.metadata.entityVersionHashes == model.entityVersionHashes())
        #expect(store.comparison.isMatch)
    }

    /// Every version of a bundle mixing both formats loads: Simplenote's first version is binary.
    @Test(.enabled(if: Corpus.available, Corpus.skipReason))
    func aBinaryVersionLoadsBesideXMLVersions() throws {
        let bundle = try ModelLoader.load(Corpus.folder.appendingPathComponent("models/simplenote-ios/Simplenote.xcdatamodeld"))
        #expect(bundle.unreadableVersions.isEmpty)
        #expect(bundle.versions.first?.file.lastPathComponent == "elements")
        #expect(bundle.versions.first?.model.entity(named: "Note")?.attributes.count == 16)
    }

    // MARK: - What is not a binary model

    @Test func bytesThatAreNoPropertyListAreRefused() {
        expectRefusal(Data("not a plist".utf8), saying: "an Xcode 3 binary model (elements) that is not a readable property list")
    }

    @Test func aPropertyListThatIsNoArchiveIsRefused() {
        let plist = BinaryPropertyListWriter.data(for: .dictionary(["entities": .array([])]))
        expectRefusal(plist, saying: "an Xcode 3 binary model (elements) that is not a keyed archive: not an NSKeyedArchiver archive")
    }

    @Test func anArchiveOfSomethingElseIsRefused() {
        let plist = BinaryPropertyListWriter.data(for: .dictionary([
            "$archiver": .string("NSKeyedArchiver"), "$top": .dictionary(["root": .uid(1)]),
            "$objects": .array([.string("$null"), .dictionary(["$class": .uid(2)]), .dictionary(["$classname": .string("NSManagedObjectModel")])]),
        ]))
        expectRefusal(plist, saying: "expected an archived XDPMModel at the root, found NSManagedObjectModel")
    }

    /// Cut short anywhere, the real file is refused, never read into half a model or a crash.
    @Test(.enabled(if: Corpus.available, Corpus.skipReason))
    func aTruncatedFileIsRefused() throws {
        let data = try Data(contentsOf: Self.recipes.appendingPathComponent("elements"))
        for length in stride(from: 0, to: data.count, by: 997) {
            #expect(throws: ModelError.self) { try XcodeBinaryModelReader.read(data.prefix(length), path: "elements") }
        }
    }

    private func expectRefusal(_ data: Data, saying message: String) {
        #expect {
            try XcodeBinaryModelReader.read(data, path: "/m/Old.xcdatamodel/elements")
        } throws: { error in
            "\(error)".hasPrefix("/m/Old.xcdatamodel/elements") && "\(error)".contains(message)
        }
    }
}
