import Foundation
import Testing
@testable import Strata

/// `read → write → read` gives an equal model, through both formats, for every model the
/// project knows: the Core Data fixtures (every version) and the bundled example.
@Suite struct ModelRoundTripTests {
    static func models() throws -> [(String, ObjectModel)] {
        let bundles = [Fixtures.exampleModel] + Fixtures.modelBundles
        return try bundles.flatMap { url in
            try ModelLoader.load(url).versions.map { ("\(url.lastPathComponent)/\($0.name)", $0.model) }
        }
    }

    @Test func everyKnownModelIsCovered() throws {
        #expect(try Self.models().count == (Fixtures.available ? 6 : 1))
    }

    @Test func xmlRoundTripGivesAnEqualModel() throws {
        for (name, model) in try Self.models() {
            let written = XcodeModelWriter.contents(of: model)
            let reread = try XcodeModelReader.read(Data(written.utf8), path: name)
            #expect(reread == model, "\(name)")
            #expect(XcodeModelWriter.contents(of: reread) == written, "\(name): writing is not stable")
        }
    }

    @Test func jsonRoundTripGivesAnEqualModel() throws {
        for (name, model) in try Self.models() {
            let written = JSONModelWriter.string(for: model)
            let reread = try JSONModelReader.read(Data(written.utf8), path: name)
            #expect(reread == model, "\(name)")
            #expect(JSONModelWriter.string(for: reread) == written, "\(name): writing is not stable")
        }
    }

    @Test func crossFormatRoundTripKeepsHashes() throws {
        for (name, model) in try Self.models() {
            let viaJSON = try JSONModelReader.read(Data(JSONModelWriter.string(for: model).utf8), path: name)
            let viaXML = try XcodeModelReader.read(Data(XcodeModelWriter.contents(of: viaJSON).utf8), path: name)
            #expect(viaXML == model, "\(name)")
            #expect(viaXML.entityVersionHashes() == model.entityVersionHashes(), "\(name)")
        }
    }

    @Test func valuesNeedingEscapesSurviveBothFormats() throws {
        var attribute = AttributeDescription(name: "note", type: .string)
        attribute.defaultValue = "a <b> & \"c\"\nnext\tline"
        attribute.regularExpression = #"^\d+ & <x>$"#
        attribute.userInfo = ["mappedKeyName": "note.text", "weird key & <>": "v\"alue"]
        var entity = EntityDescription(name: "Memo")
        entity.attributes = [attribute]
        let model = ObjectModel(entities: [entity])
        #expect(try XcodeModelReader.read(Data(XcodeModelWriter.contents(of: model).utf8), path: "memo").entities == model.entities)
        #expect(try JSONModelReader.read(Data(JSONModelWriter.string(for: model).utf8), path: "memo") == model)
    }
}
