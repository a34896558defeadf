import ArgumentParser
import Foundation
import Strata

/// `strata model graph`: a picture of the model's entities and relationships, as Graphviz DOT,
/// a Mermaid class diagram, or (through Graphviz) SVG or PNG.
struct ModelGraphCommand: AsyncParsableCommand, ReadsModelOrStore {
    static let configuration = CommandConfiguration(
        commandName: "graph",
        abstract: "Draw a model's entities and relationships as Graphviz DOT, Mermaid, SVG or PNG.",
        discussion: """
            Each entity is a box (abstract ones marked «abstract»), listing its own attributes \
            with their types when --attributes is given (a ? marks an optional one). Each \
            relationship is a line, a relationship and its inverse one line, labelled at each \
            end with the relationship that leads there, its multiplicity (0..1, 1, 0..*, \
            1..*) and its delete rule; in DOT the ends are drawn in crow's-foot notation \
            (a crow's foot for to-many, a bar for to-one, a circle for optional). A \
            sub-entity points to its parent with a hollow arrowhead.

            --format mermaid writes a Mermaid class diagram (for a ```mermaid block in \
            Markdown, which GitHub draws): a class diagram rather than an ER diagram, since \
            only a class diagram draws inheritance. --format svg and png run Graphviz's dot, \
            which must be installed (apt-get install graphviz); PNG is written only to a \
            file (--output) or a pipe, never to a terminal.

            The model is --model's, else the one the --store keeps (its model cache, the \
            model Strata recorded, or one inferred from its tables), as model show reads it.
            """)

    @OptionGroup var options: StoreOptions

    @Option(help: "What to write: dot (Graphviz's language), mermaid (a class diagram), or svg or png drawn by Graphviz's dot.")
    var format: GraphFormat = .dot

    @Flag(help: "List each entity's attributes and their types.")
    var attributes = false

    @Option(name: [.customShort("o"), .long], help: ArgumentHelp("Write to this file instead of standard output.", valueName: "path"), completion: .file())
    var output: String?

    enum GraphFormat: String, CaseIterable, ExpressibleByArgument {
        case dot
        case mermaid
        case svg
        case png
    }

    func validate() throws {
        if format == .png, output == nil, isatty(STDOUT_FILENO) == 1 {
            throw ValidationError("--format png writes binary data: give --output FILE, or send it to a pipe or file")
        }
    }

    func run() async throws {
        let graph = ModelGraph(model: try options.loadModelOrStoresModel().model, showsAttributes: attributes)
        switch format {
        case .dot: try write(Data(graph.dot.utf8))
        case .mermaid: try write(Data(graph.mermaid.utf8))
        case .svg, .png: try write(try render(graph.dot))
        }
    }

    /// `dot` drawn by Graphviz in ``format``.
    private func render(_ dot: String) throws -> Data {
        guard let program = ExecutablePath.find("dot") else {
            throw CLIError.unavailable(.graphviz(format: format.rawValue))
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = ["-T\(format.rawValue)"]
        let input = Pipe(), result = Pipe(), errors = Pipe()
        (process.standardInput, process.standardOutput, process.standardError) = (input, result, errors)
        try process.run()
        // dot reads all of its input before it writes, so the input can be written first whole.
        input.fileHandleForWriting.write(Data(dot.utf8))
        try input.fileHandleForWriting.close()
        let drawing = result.fileHandleForReading.readDataToEndOfFile()
        let complaint = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CLIError.programFailed(program: program, arguments: ["-T\(format.rawValue)"], status: process.terminationStatus, standardError: complaint)
        }
        return drawing
    }

    private func write(_ data: Data) throws {
        guard let output else { return FileHandle.standardOutput.write(data) }
        guard FileManager.default.createFile(atPath: output, contents: data) else {
            throw CLIError.unwritableFile(path: output, cause: nil)
        }
    }
}
