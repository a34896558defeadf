import Foundation
import Strata
import Testing

/// The committed man pages must describe the commands as they are: a page per command, naming
/// its abstract and every option. (`scripts/man --check`, run by `scripts/test`, also compares
/// the pages byte for byte with freshly generated ones.)
@Suite struct ManPageTests {
    struct Command {
        var name: String
        var abstract: String
        var optionNames: [String]
        var optionHelp: [String]
    }

    /// Every command in the tree that `strata --experimental-dump-help` describes.
    static func commands() throws -> [Command] {
        let result = try StrataRunner.run(["--experimental-dump-help"])
        let dump = try JSONReader.parse(Data(result.standardOutput.utf8))
        var commands: [Command] = []
        func visit(_ command: JSONValue, path: [String]) {
            let name = (path + [command["commandName"]?.stringValue ?? ""]).joined(separator: " ")
            let arguments = command["arguments"]?.arrayValue ?? []
            let options = arguments.filter { $0["kind"]?.stringValue != "positional" && $0["shouldDisplay"]?.boolValue != false }
            commands.append(
                Command(
                    name: name, abstract: command["abstract"]?.stringValue ?? "",
                    optionNames: options.compactMap { $0["preferredName"]?["name"]?.stringValue },
                    optionHelp: options.compactMap { $0["abstract"]?.stringValue }))
            for sub in command["subcommands"]?.arrayValue ?? [] {
                visit(sub, path: path + [command["commandName"]?.stringValue ?? ""])
            }
        }
        if let root = dump["command"] { visit(root, path: []) }
        return commands
    }

    @Test func everyCommandHasAnUpToDatePage() throws {
        let commands = try Self.commands()
        #expect(commands.contains { $0.name == "strata model show" })
        let manFolder = StrataRunner.repositoryRoot.appendingPathComponent("man")
        let pages = Set(try FileManager.default.contentsOfDirectory(atPath: manFolder.path))
        let expectedPages = Set(commands.map { $0.name.replacingOccurrences(of: " ", with: ".") + ".1" })
        #expect(pages == expectedPages, "man/ does not match the commands; run scripts/man")
        for command in commands {
            let file = manFolder.appendingPathComponent(command.name.replacingOccurrences(of: " ", with: ".") + ".1")
            guard let page = try? String(contentsOf: file, encoding: .utf8) else { continue }
            #expect(page.contains(command.abstract), "\(file.lastPathComponent) lacks the abstract; run scripts/man")
            for name in command.optionNames {
                #expect(page.contains("Fl -\(name)"), "\(file.lastPathComponent) lacks --\(name); run scripts/man")
            }
            for help in command.optionHelp {
                #expect(page.contains(help), "\(file.lastPathComponent) lacks the help '\(help)'; run scripts/man")
            }
        }
    }

    /// Regression: 12 of the 24 pages warned when rendered (empty lines where mdoc wants .Pp),
    /// and none had EXAMPLES or ENVIRONMENT. groff (which scripts/test installs) renders each
    /// with every warning on.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/groff"), "groff not installed: run scripts/test"))
    func everyPageRendersWithoutWarningsWithItsExamplesAndEnvironment() throws {
        let manFolder = StrataRunner.repositoryRoot.appendingPathComponent("man")
        let examples = StrataRunner.repositoryRoot.appendingPathComponent("scripts/man-examples")
        let pages = try FileManager.default.contentsOfDirectory(atPath: manFolder.path).sorted()
        #expect(pages.count == 30)
        for page in pages {
            let file = manFolder.appendingPathComponent(page)
            let groff = Process()
            groff.executableURL = URL(fileURLWithPath: "/usr/bin/groff")
            groff.arguments = ["-mandoc", "-ww", "-z", file.path]
            let errors = Pipe()
            groff.standardError = errors
            try groff.run()
            let warnings = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            groff.waitUntilExit()
            #expect(warnings.isEmpty && groff.terminationStatus == 0, "\(page): \(warnings)")
            let text = try String(contentsOf: file, encoding: .utf8)
            if text.contains(".Op Fl -store") { #expect(text.contains(".Sh ENVIRONMENT\n"), "\(page)") }
            let hasExamples = FileManager.default.fileExists(atPath: examples.appendingPathComponent(page).path)
            #expect(text.contains(".Sh EXAMPLES\n") == hasExamples, "\(page)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: examples.path).count >= 15)
    }
}
