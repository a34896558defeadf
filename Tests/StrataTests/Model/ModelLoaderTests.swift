import Foundation
import Testing
@testable import Strata
import StrataTestSupport

@Suite struct ModelLoaderTests {
    private func writeBundle(in folder: URL, versions: [String], current: String?) throws -> URL {
        let bundle = folder.appendingPathComponent("Shop.xcdatamodeld")
        for (index, name) in versions.enumerated() {
            var entity = EntityDescription(name: "Item")
            entity.attributes = (0...index).map { AttributeDescription(name: "field\($0)", type: .string) }
            try XcodeModelWriter.write(ObjectModel(entities: [entity]), toModelFolder: bundle.appendingPathComponent(name + ".xcdatamodel"))
        }
        if let current { try ModelBundle.writeCurrentVersionMarker(in: bundle, versionName: current) }
        return bundle
    }

    @Test func versionsSortWithNumbersByValueAndTheMarkerChoosesCurrent() throws {
        let folder = try TemporaryFolder()
        let bundle = try writeBundle(in: folder.url, versions: ["Shop", "Shop 10", "Shop 2"], current: "Shop 2")
        let loaded = try ModelLoader.load(bundle)
        #expect(loaded.versions.map(\.name) == ["Shop", "Shop 2", "Shop 10"])
        #expect(try loaded.currentVersion.name == "Shop 2")
        #expect(try loaded.currentVersion.model.entities[0].attributes.count == 3)
    }

    @Test func withoutAMarkerTheLastVersionIsChosenAndTheReasonSaid() throws {
        let folder = try TemporaryFolder()
        let bundle = try writeBundle(in: folder.url, versions: ["Shop", "Shop 2"], current: nil)
        let loaded = try ModelLoader.load(bundle)
        #expect(loaded.currentVersionName == "Shop 2")
        #expect(loaded.currentVersionReason == "the bundle has no .xccurrentversion; chose the last version in name order")
    }

    @Test func aMarkerNamingAMissingVersionFallsBackToTheLastAndSaysWhy() throws {
        let folder = try TemporaryFolder()
        let bundle = try writeBundle(in: folder.url, versions: ["Shop", "Shop 2"], current: "Shop 3")
        let loaded = try ModelLoader.load(bundle)
        #expect(loaded.currentVersionName == "Shop 2")
        #expect(loaded.currentVersionReason == "the .xccurrentversion names version 'Shop 3', which the bundle does not hold; chose the last version in name order")
    }

    /// Xcode leaves `<dict/>` in some bundles' `.xccurrentversion` (kiwix-apple's Kiwix bundle).
    @Test func anEmptyMarkerFallsBackToTheLastVersion() throws {
        let folder = try TemporaryFolder()
        let bundle = try writeBundle(in: folder.url, versions: ["Shop", "Shop 2"], current: nil)
        let empty = try PropertyListSerialization.data(fromPropertyList: [String: String](), format: .xml, options: 0)
        try empty.write(to: bundle.appendingPathComponent(".xccurrentversion"))
        let loaded = try ModelLoader.load(bundle)
        #expect(try loaded.currentVersion.name == "Shop 2")
        #expect(loaded.currentVersionReason == "the .xccurrentversion names no version; chose the last version in name order")
    }

    /// One version that cannot be read (a damaged file, a format Strata does not know) leaves
    /// the others usable; asking for it gives its own error.
    @Test func anUnreadableVersionFailsAlone() throws {
        let folder = try TemporaryFolder()
        let bundle = try writeBundle(in: folder.url, versions: ["Shop", "Shop 2", "Shop 3"], current: "Shop 2")
        let broken = bundle.appendingPathComponent("Shop 3.xcdatamodel/contents")
        try Data("<model><entity".utf8).write(to: broken)
        let loaded = try ModelLoader.load(bundle)
        #expect(loaded.versions.map(\.name) == ["Shop", "Shop 2"])
        #expect(loaded.unreadableVersions.map(\.name) == ["Shop 3"])
        #expect(try loaded.currentVersion.name == "Shop 2")
        #expect { _ = try loaded.version(named: "Shop 3") } throws: { error in
            String(describing: error).hasPrefix(broken.path + ":")
        }
        try FileManager.default.removeItem(at: bundle.appendingPathComponent("Shop 2.xcdatamodel/contents"))
        let withoutCurrent = try ModelLoader.load(bundle)
        #expect { _ = try withoutCurrent.currentVersion } throws: { error in
            String(describing: error).contains("Shop 2.xcdatamodel/contents")
        }
    }

    /// A bundle's other versions are read when first asked for, so that a command using one
    /// version of a bundle of many reads one model file: here a version whose file is gone
    /// after loading is reported as unreadable when asked for, and the rest stay usable.
    @Test func versionsAreReadWhenFirstAskedFor() throws {
        let folder = try TemporaryFolder()
        let bundle = try writeBundle(in: folder.url, versions: ["Shop", "Shop 2", "Shop 3"], current: "Shop 2")
        let loaded = try ModelLoader.load(bundle)
        try FileManager.default.removeItem(at: bundle.appendingPathComponent("Shop 3.xcdatamodel"))
        #expect(loaded.versionNames == ["Shop", "Shop 2", "Shop 3"])
        #expect(try loaded.version(named: "Shop").model.entities[0].attributes.count == 1)
        #expect(throws: ModelError.self) { try loaded.version(named: "Shop 3") }
        #expect(loaded.versions.map(\.name) == ["Shop", "Shop 2"])
        #expect(loaded.unreadableVersions.map(\.name) == ["Shop 3"])
    }

    /// When no version can be read, loading fails as a whole with the first version's error.
    @Test func aBundleWithNoReadableVersionFailsToLoad() throws {
        let folder = try TemporaryFolder()
        let bundle = try writeBundle(in: folder.url, versions: ["Shop", "Shop 2"], current: "Shop 2")
        for name in ["Shop", "Shop 2"] {
            try Data("<model><entity".utf8).write(to: bundle.appendingPathComponent(name + ".xcdatamodel/contents"))
        }
        #expect { _ = try ModelLoader.load(bundle) } throws: { error in
            String(describing: error).hasPrefix(bundle.appendingPathComponent("Shop.xcdatamodel/contents").path + ":")
        }
    }

    @Test func choosingAVersionByName() throws {
        let folder = try TemporaryFolder()
        let loaded = try ModelLoader.load(try writeBundle(in: folder.url, versions: ["Shop", "Shop 2"], current: "Shop 2"))
        #expect(try loaded.version(named: "Shop").model.entities[0].attributes.count == 1)
        #expect(throws: ModelError.unknownVersion(name: "Shop 9", bundle: loaded.url.path, available: ["Shop", "Shop 2"])) {
            try loaded.version(named: "Shop 9")
        }
    }

    @Test func singleModelFolderContentsFileAndJSONModelAllLoad() throws {
        let folder = try TemporaryFolder()
        let bundle = try writeBundle(in: folder.url, versions: ["Shop"], current: "Shop")
        let single = bundle.appendingPathComponent("Shop.xcdatamodel")
        let json = folder.url.appendingPathComponent("Shop.json")
        let model = try ModelLoader.load(single).currentVersion.model
        try Data(JSONModelWriter.string(for: model).utf8).write(to: json)
        for url in [single, single.appendingPathComponent("contents"), json] {
            let loaded = try ModelLoader.load(url)
            #expect(loaded.versions.count == 1)
            #expect(try loaded.currentVersion.name == "Shop")
            #expect(loaded.currentVersionReason == "the only version")
            #expect(try loaded.currentVersion.model == model)
        }
    }

    @Test func missingPathAndNonModelFolderAreUnreadable() throws {
        let folder = try TemporaryFolder()
        #expect(throws: ModelError.unreadable(path: "/no/such/model", reason: .notFound)) {
            try ModelLoader.load(URL(fileURLWithPath: "/no/such/model"))
        }
        #expect { _ = try ModelLoader.load(folder.url) } throws: { error in
            String(describing: error).contains("not a model: expected an .xcdatamodeld bundle")
        }
    }

    @Test func aContentsFolderIsNamedAsSuch() throws {
        let folder = try TemporaryFolder()
        let model = folder.url.appendingPathComponent("Odd.xcdatamodel")
        try FileManager.default.createDirectory(at: model.appendingPathComponent("contents"), withIntermediateDirectories: true)
        #expect(throws: ModelError.unreadable(path: model.appendingPathComponent("contents").path, reason: .folder)) {
            try ModelLoader.load(model)
        }
    }

    @Test func versionFolderNamesMayContainSpaces() throws {
        let folder = try TemporaryFolder()
        let loaded = try ModelLoader.load(try writeBundle(in: folder.url, versions: ["My Model", "My Model 2"], current: "My Model"))
        #expect(try loaded.currentVersion.name == "My Model")
    }
}
