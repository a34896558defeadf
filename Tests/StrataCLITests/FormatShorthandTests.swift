import Foundation
import Testing

/// `--json`, `--ndjson`, `--csv` (and `--table`) are `--format`'s values as flags, on every
/// command that has --format, and only with the formats that command prints.
@Suite final class FormatShorthandTests {
    let library = try! SeededLibraryStore()

    @Test(arguments: [
        ["fetch", "Book"], ["query", "Book", "--select", "title, rating"], ["sql", "SELECT ZTITLE FROM ZBOOK"],
    ])
    func aFlagPrintsAsItsFormatDoes(command: [String]) throws {
        for format in ["json", "ndjson", "csv", "table"] {
            let flagged = try StrataRunner.run(command + ["--store", library.path, "--\(format)"])
            let named = try StrataRunner.run(command + ["--store", library.path, "--format", format])
            #expect(flagged.status == 0, "\(command) --\(format): \(flagged.standardError)")
            #expect(flagged.standardOutput == named.standardOutput, "\(command) --\(format)")
            let both = try StrataRunner.run(command + ["--store", library.path, "--\(format)", "--format", format])
            #expect(both.status == 0 && both.standardOutput == named.standardOutput, "\(command): a flag that agrees with --format")
        }
        #expect(try StrataRunner.run(command + ["--store", library.path, "--json"]).standardOutput.hasPrefix("["))
    }

    @Test(arguments: [["model", "show"], ["model", "hashes"], ["model", "versions"], ["model", "validate"]])
    func modelCommandsTakeTheirOwnFormatsOnly(command: [String]) throws {
        let flagged = try StrataRunner.run(command + ["--model", library.model.path, "--json"])
        let named = try StrataRunner.run(command + ["--model", library.model.path, "--format", "json"])
        #expect(flagged.status == 0, "\(flagged.standardError)")
        #expect(flagged.standardOutput == named.standardOutput)
        let csv = try StrataRunner.run(command + ["--model", library.model.path, "--csv"])
        #expect(csv.status == 2, "\(command) prints no CSV")
    }

    @Test func exportAndInspectTakeTheFlagsToo() throws {
        for (command, format) in [(["export", "Book", "--exclude-subentities"], "ndjson"), (["export", "Book", "--exclude-subentities"], "csv"), (["inspect"], "json"), (["setup", "--model", library.model.path], "json")] {
            let flagged = try StrataRunner.run(command + ["--store", library.path, "--\(format)"])
            let named = try StrataRunner.run(command + ["--store", library.path, "--format", format])
            #expect(flagged.status == 0, "\(command): \(flagged.standardError)")
            #expect(flagged.standardOutput == named.standardOutput, "\(command) --\(format)")
        }
    }

    @Test(arguments: [
        ["fetch", "Book", "--json", "--csv"], ["fetch", "Book", "--csv", "--format", "json"], ["query", "Book", "--ndjson", "--format", "table"],
        ["history", "--json", "--csv"], ["sql", "SELECT 1", "--csv", "--ndjson"],
    ])
    func twoFormatsAreAUsageError(arguments: [String]) throws {
        let result = try StrataRunner.run(arguments + ["--store", library.path])
        #expect(result.status == 2)
        #expect(result.standardOutput.isEmpty)
        #expect(result.standardError.contains("ask for two formats"), "\(result.standardError)")
    }

    @Test func helpAndCompletionKnowTheFlags() throws {
        let help = try StrataRunner.run(["fetch", "--help"]).standardOutput
        for flag in ["--json", "--ndjson", "--csv", "--explain"] { #expect(help.contains(flag), "\(flag)") }
        let bash = try StrataRunner.run(["--generate-completion-script", "bash"]).standardOutput
        for word in ["--ndjson", "--explain", "sql", "graph", "--write", "--attributes"] { #expect(bash.contains(word), "\(word)") }
    }
}
