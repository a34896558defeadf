import Foundation
import Testing
@testable import Strata
import StrataTestSupport

/// Composite attributes (iOS 17): read, checked and written back as Xcode writes them, and
/// refused by a store, which cannot hold them yet.
@Suite struct CompositeAttributeTests {
    /// As momxml's model writes them: an attribute naming a composite, and a composite holding
    /// an attribute of another (empty) composite.
    static let contents = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
            <entity name="Quake" representedClassName="Quake" syncable="YES">
                <attribute name="code" optional="YES" attributeType="String"/>
                <attribute name="magnitude" optional="YES" attributeType="Composite" composite="Magnitude"/>
            </entity>
            <composite name="Magnitude">
                <attribute name="richter" optional="YES" attributeType="Double" defaultValueString="0.0" usesScalarValueType="YES"/>
                <attribute name="source" optional="YES" attributeType="Composite" composite="Source"/>
            </composite>
            <composite name="Source"/>
        </model>
        """

    @Test func compositesAreReadCheckedAndWrittenBackInBothFormats() throws {
        let model = try XcodeModelReader.read(Data(Self.contents.utf8), path: "Quakes")
        let magnitude = try #require(model.entity(named: "Quake")?.attribute(named: "magnitude"))
        #expect(magnitude.type == .composite && magnitude.type.code == 2100 && magnitude.compositeName == "Magnitude")
        #expect(model.composites.map(\.name) == ["Magnitude", "Source"])
        #expect(model.composites[0].attributes.map(\.name) == ["richter", "source"])
        #expect(model.validate().isEmpty)
        #expect(try XcodeModelReader.read(Data(XcodeModelWriter.contents(of: model).utf8), path: "again") == model)
        #expect(try JSONModelReader.read(Data(JSONModelWriter.string(for: model).utf8), path: "json") == model)
    }

    @Test func aCompositeMustExistAndMustNotHoldItself() throws {
        var model = try XcodeModelReader.read(Data(Self.contents.utf8), path: "Quakes")
        model.entities[0].attributes[1].compositeName = "Magnitudes"
        #expect(model.validate().map(\.description) == [
            "error: entity 'Quake', property 'magnitude': the composite 'Magnitudes' does not exist; did you mean 'Magnitude'?"
        ])
        model.entities[0].attributes[1].compositeName = "Magnitude"
        model.composites[1].attributes = [{
            var back = AttributeDescription(name: "magnitude", type: .composite)
            back.compositeName = "Magnitude"
            return back
        }()]
        #expect(model.validate().map(\.description).contains(
            "error: entity 'Quake', property 'magnitude': the composite 'Magnitude' holds itself"))
    }

    @Test func aStoreRefusesACompositeItCannotHold() throws {
        let folder = try TemporaryFolder()
        let model = try XcodeModelReader.read(Data(Self.contents.utf8), path: "Quakes")
        let path = folder.path("Quakes.sqlite")
        #expect { _ = try PersistentStore.create(at: path, model: model) } throws: { error in
            String(describing: error).contains("entity 'Quake', property 'magnitude': Strata cannot store Composite attributes yet")
        }
        #expect(!FileManager.default.fileExists(atPath: path))
    }
}
