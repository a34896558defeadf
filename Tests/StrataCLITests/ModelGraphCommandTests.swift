import Foundation
import Strata
import StrataTestSupport
import Testing

/// `strata model graph`: the model drawn as DOT and Mermaid, checked against the model itself:
/// every relationship on one line (an inverse pair on the same one), every parent an
/// inheritance edge, and Graphviz drawing it when installed.
@Suite struct ModelGraphCommandTests {
    static let library = StrataRunner.repositoryRoot.appendingPathComponent(ModelCommandTests.example)
    static let corpus = StrataRunner.sharedFixtures.appendingPathComponent("corpus")
    static let dotInstalled = ProcessInfo.processInfo.environment["PATH"].map { path in
        path.split(separator: ":").contains { FileManager.default.isExecutableFile(atPath: "\($0)/dot") }
    } ?? false

    /// The lines a graph of `model` must draw: one per relationship without inverse, one per pair.
    static func expectedLinks(_ model: ObjectModel) -> Int {
        let relationships = model.entities.flatMap(\.relationships)
        let paired = relationships.filter { $0.inverseName != nil }.count
        return relationships.count - paired / 2
    }

    /// Checks `dot` and `mermaid` against `model`.
    static func check(dot: String, mermaid: String, model: ObjectModel) {
        let dotEdges = dot.split(separator: "\n").filter { $0.contains(" -> ") && $0.contains("headlabel=") }
        #expect(dotEdges.count == expectedLinks(model))
        let mermaidLinks = mermaid.split(separator: "\n").filter { $0.contains(" -- ") || $0.contains(" --> ") }
        #expect(mermaidLinks.count == expectedLinks(model))
        for entity in model.entities {
            #expect(dot.contains("  \"\(entity.name)\" ["), "\(entity.name) has a node")
            #expect(mermaid.contains("  class \(entity.name)"), "\(entity.name) has a class")
            if let parent = entity.superentityName {
                #expect(dot.contains("\"\(entity.name)\" -> \"\(parent)\" [arrowhead=empty]"), "\(entity.name) inherits")
                #expect(mermaid.contains("  \(parent) <|-- \(entity.name)\n"), "\(entity.name) inherits")
            }
            for relationship in entity.relationships {
                // Each relationship labels exactly one end of one line, with its delete rule.
                let label = "\"\(relationship.name) "
                let ends = dotEdges.filter { $0.contains("headlabel=\(label)") || $0.contains("taillabel=\(label)") }
                    .filter { $0.contains("\"\(entity.name)\"") }
                #expect(ends.count >= 1, "\(entity.name).\(relationship.name) is drawn")
                #expect(ends.contains { $0.contains(relationship.deleteRule.rawValue) }, "\(entity.name).\(relationship.name) shows its delete rule")
                let arrow = relationship.isToMany ? "crow" : "tee"
                #expect(ends.contains { $0.contains("=\(arrow)") }, "\(entity.name).\(relationship.name) is drawn \(arrow)")
            }
        }
    }

    @Test func theExampleModelIsDrawnWholeOnce() throws {
        let model = try ModelLoader.load(Self.library).currentVersion.model
        let dot = try StrataRunner.run(["model", "graph", "--model", Self.library.path])
        let mermaid = try StrataRunner.run(["model", "graph", "--model", Self.library.path, "--format", "mermaid"])
        #expect(dot.status == 0 && mermaid.status == 0, "\(dot.standardError)\(mermaid.standardError)")
        #expect(dot.standardOutput.hasPrefix("digraph model {") && mermaid.standardOutput.hasPrefix("classDiagram\n"))
        Self.check(dot: dot.standardOutput, mermaid: mermaid.standardOutput, model: model)
        // Book.author and Author.books are one line, cardinalities at the right ends.
        #expect(mermaid.standardOutput.contains("Author \"0..1\" -- \"0..*\" Book : books (Cascade) / author (Nullify)"), "\(mermaid.standardOutput)")
    }

    @Test func attributesAreListedWhenAsked() throws {
        let plain = try StrataRunner.run(["model", "graph", "--model", Self.library.path]).standardOutput
        let listed = try StrataRunner.run(["model", "graph", "--model", Self.library.path, "--attributes"]).standardOutput
        let mermaid = try StrataRunner.run(["model", "graph", "--model", Self.library.path, "--attributes", "--format", "mermaid"]).standardOutput
        #expect(!plain.contains("isbn"))
        #expect(listed.contains("isbn: String\\l") && listed.contains("rating: Double?\\l"), "\(listed)")
        #expect(mermaid.contains("    String isbn\n") && mermaid.contains("    Double? rating\n"), "\(mermaid)")
    }

    @Test(.enabled(if: StrataRunner.fixturesAvailable, "shared/fixtures/coredata not found: fixture test skipped"), arguments: [
        "models/coredataplus/SampleModel.xcdatamodeld", "models/simplenote-ios/Simplenote.xcdatamodeld", "models/mogenerator/test.xcdatamodel",
    ])
    func corpusModelsAreDrawnWhole(path: String) throws {
        let url = Self.corpus.appendingPathComponent(path)
        let model = try ModelLoader.load(url).currentVersion.model
        let dot = try StrataRunner.run(["model", "graph", "--model", url.path])
        let mermaid = try StrataRunner.run(["model", "graph", "--model", url.path, "--format", "mermaid", "--attributes"])
        #expect(dot.status == 0 && mermaid.status == 0, "\(dot.standardError)\(mermaid.standardError)")
        Self.check(dot: dot.standardOutput, mermaid: mermaid.standardOutput, model: model)
        #expect(model.entities.contains { $0.superentityName != nil }, "the model has inheritance to draw")
    }

    @Test(.enabled(if: StrataRunner.fixturesAvailable, "shared/fixtures/coredata not found: fixture test skipped"))
    func aStoresOwnModelIsDrawn() throws {
        let store = Self.corpus.appendingPathComponent("stores/artsy-energy/oss_stubbed_data.sqlite")
        let opened = try PersistentStore.open(at: store.path, configuration: .readOnly)
        let model = opened.model
        opened.close()
        let dot = try StrataRunner.run(["model", "graph", "--store", store.path])
        let mermaid = try StrataRunner.run(["model", "graph", "--store", store.path, "--format", "mermaid"])
        #expect(dot.status == 0, "\(dot.standardError)")
        Self.check(dot: dot.standardOutput, mermaid: mermaid.standardOutput, model: model)
    }

    @Test func withoutGraphvizSVGAsksToInstallIt() throws {
        let empty = try TemporaryFolder("strata-nopath")
        let result = try StrataRunner.run(["model", "graph", "--model", Self.library.path, "--format", "svg"], environment: ["PATH": empty.url.path])
        #expect(result.status == 1)
        #expect(result.standardOutput.isEmpty)
        #expect(result.standardError.contains("install graphviz") && result.standardError.contains("--format dot"), "\(result.standardError)")
    }

    @Test(.enabled(if: dotInstalled, "Graphviz's dot not installed: SVG and PNG not drawn"))
    func graphvizDrawsSVGAndPNG() throws {
        let svg = try StrataRunner.run(["model", "graph", "--model", Self.library.path, "--format", "svg", "--attributes"])
        #expect(svg.status == 0, "\(svg.standardError)")
        #expect(svg.standardOutput.contains("<svg") && svg.standardOutput.contains("EBook"))
        #expect(svg.standardError.isEmpty, "dot read the DOT without a warning: \(svg.standardError)")
        let folder = try TemporaryFolder("strata-graph")
        let png = folder.url.appendingPathComponent("model.png")
        let drawn = try StrataRunner.run(["model", "graph", "--model", Self.library.path, "--format", "png", "--output", png.path])
        #expect(drawn.status == 0, "\(drawn.standardError)")
        #expect(try Data(contentsOf: png).prefix(4) == Data([0x89, 0x50, 0x4E, 0x47]))
    }
}
