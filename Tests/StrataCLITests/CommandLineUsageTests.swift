import Foundation
import Strata
import Testing
import StrataTestSupport

/// The command line's manners with a user's slips: the message names what is missing or wrong,
/// a mistyped command gets a suggestion, and shell completion offers the model's entities.
@Suite struct CommandLineUsageTests {
    @Test func evalAndRunWithoutAStoreSayNoStoreGiven() throws {
        for arguments in [["eval", "1"], ["run", "examples/Library/report.lua"]] {
            let result = try StrataRunner.run(arguments)
            #expect(result.status == 2, "\(arguments): \(result.standardError)")
            #expect(result.standardError.hasPrefix("strata: no store given: pass --store PATH or set STRATA_STORE"), "\(result.standardError)")
            #expect(!result.standardError.contains("no model given"))
        }
    }

    @Test func aNegativeNumberIsNamedNotAMissingValue() throws {
        let store = StrataRunner.repositoryRoot.appendingPathComponent("nothing.sqlite").path
        for (arguments, message) in [
            (["fetch", "Book", "--store", store, "--limit", "-1"], "--limit must be at least 1"),
            (["query", "Book", "--store", store, "--offset", "-5"], "--offset cannot be negative"),
            (["inspect", "--store", store, "--limit", "-2"], "--limit must be 0 or more"),
            (["history", "list", "--store", store, "--limit", "-1"], "--limit must be 1 or more"),
        ] {
            let result = try StrataRunner.run(arguments)
            #expect(result.status == 2, "\(arguments): \(result.standardError)")
            #expect(result.standardError.contains(message), "\(arguments): \(result.standardError)")
            #expect(!result.standardError.contains("Missing value"), "\(result.standardError)")
        }
    }

    @Test func aMistypedCommandGetsASuggestion() throws {
        let fetch = try StrataRunner.run(["fetc", "Book"])
        #expect(fetch.status == 2)
        #expect(fetch.standardError.hasPrefix("strata: no command 'fetc'; did you mean 'fetch'?"), "\(fetch.standardError)")
        let show = try StrataRunner.run(["model", "shwo", "--model", LibraryExample.model])
        #expect(show.status == 2)
        #expect(show.standardError.contains("did you mean 'model show'?"), "\(show.standardError)")
        // Nothing near: the parser's own message.
        let nothing = try StrataRunner.run(["xyzzy"])
        #expect(nothing.status == 2 && !nothing.standardError.contains("did you mean"), "\(nothing.standardError)")
    }

    /// What the shells' completion scripts ask of `strata` for an ENTITY argument: the
    /// entities of the model of `--model` (or `--store`) on the line, that start with what is typed.
    @Test func completionOffersTheEntitiesOfTheModelOnTheLine() throws {
        for shell in ["bash", "zsh", "fish"] {
            let script = try StrataRunner.run(["--generate-completion-script", shell])
            #expect(script.status == 0)
            #expect(script.standardOutput.contains("---completion fetch -- positional@0"), "\(shell) does not ask strata for fetch's entities")
        }
        func complete(_ words: [String], environment: [String: String] = [:]) throws -> [String] {
            let typed = words.last ?? ""
            let result = try StrataRunner.run(
                ["---completion", "fetch", "--", "positional@0", String(words.count - 1), String(typed.count)] + words, environment: environment)
            #expect(result.status == 0, "\(result.standardError)")
            return result.standardOutput.split(separator: "\n").map(String.init)
        }
        #expect(try complete(["strata", "fetch", "--model", LibraryExample.model, "B"]) == ["Book"])
        #expect(try complete(["strata", "fetch", "--model", LibraryExample.model, ""]) == ["Author", "Book", "EBook", "Page", "Tag"])
        #expect(try complete(["strata", "fetch", "--model=\(LibraryExample.model)", "Pa"]) == ["Page"])
        #expect(try complete(["strata", "fetch", "Ta"], environment: ["STRATA_MODEL": LibraryExample.model]) == ["Tag"])
        // From a store's own model.
        let folder = try TemporaryFolder()
        let store = folder.url.appendingPathComponent("Library.sqlite").path
        let created = try StrataRunner.run(["create", "--store", store, "--model", LibraryExample.model])
        #expect(created.status == 0, "\(created.standardError)")
        #expect(try complete(["strata", "fetch", "--store", store, "E"]) == ["EBook"])
        // Nothing to read: no completions, and no error in the user's line.
        #expect(try complete(["strata", "fetch", "--model", "/nowhere.xcdatamodeld", "B"]).isEmpty)
    }
}
