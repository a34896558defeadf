import Foundation
import Strata
import Testing
import StrataTestSupport

/// `strata model …` driven as a user drives it, on the bundled example and the Core Data fixtures.
@Suite struct ModelCommandTests {
    static let example = StrataRunner.exampleModel

    @Test func showPrintsEveryEntityWithItsProperties() throws {
        let result = try StrataRunner.run(["model", "show", "--model", Self.example])
        #expect(result.status == 0)
        #expect(result.standardError.isEmpty)
        let output = result.standardOutput
        #expect(output.contains("Book  (sub-entities: EBook)"))
        #expect(output.contains("EBook : Book"))
        #expect(output.contains("pages         Page         book     ordered to-many  Cascade"))
        #expect(output.contains("unique (isbn)"))
        #expect(output.contains("index byTitleIndex (title)"))
        #expect(output.contains("rating     Double  optional, default 0.0, min 0, max 5"))
    }

    @Test(.enabled(if: StrataRunner.fixturesAvailable, "shared/fixtures/coredata not found: fixture test skipped"))
    func showJSONListsEveryEntityAndPropertyOfEveryFixtureVersion() throws {
        let models = StrataRunner.sharedFixtures.appendingPathComponent("models")
        for name in try FileManager.default.contentsOfDirectory(atPath: models.path).sorted() {
            let bundleURL = models.appendingPathComponent(name)
            for version in try ModelLoader.load(bundleURL).versions {
                let result = try StrataRunner.run(
                    ["model", "show", "--format", "json", "--model", bundleURL.path, "--model-version", version.name])
                #expect(result.status == 0, "\(name)/\(version.name): \(result.standardError)")
                let printed = try JSONModelReader.read(Data(result.standardOutput.utf8), path: "stdout")
                #expect(printed.entities.map(\.name) == version.model.entities.map(\.name))
                for (shown, original) in zip(printed.entities, version.model.entities) {
                    #expect(shown.declaredPropertyNames == original.declaredPropertyNames, "\(name)/\(version.name)/\(shown.name)")
                }
                #expect(printed == version.model)
            }
        }
    }

    @Test(.enabled(if: StrataRunner.fixturesAvailable, "shared/fixtures/coredata not found: fixture test skipped"))
    func hashesEqualTheRealStoresHashes() throws {
        let bundle = StrataRunner.sharedFixtures.appendingPathComponent("models/TavantTrade.xcdatamodeld").path
        let result = try StrataRunner.run(["model", "hashes", "--format", "json", "--model", bundle])
        #expect(result.status == 0)
        let document = try JSONReader.parse(Data(result.standardOutput.utf8))
        #expect(document["entities"]?["FeedbackCategory"]?.stringValue
            == "0606c0a42cfc5d739afd2a5dd9b1b21bfa756d3ff4e7aaecf89e01b0cdb567b2")
        #expect(document["entities"]?["FeedbackSubCategory"]?.stringValue
            == "75a0aa0ea62ba3c84e95978e63a15e8e7fdfa62835bbf9f39c5a6e7f2d683fed")
        #expect(document["checksum"]?.stringValue == "CEB1zutkSC7RWFheO7UC1ENMY6gMDe/jNdYg+FBjMQU=")
        let table = try StrataRunner.run(["model", "hashes", "--model", bundle])
        #expect(table.standardOutput.contains("FeedbackCategory     0606c0a42cfc5d739afd2a5dd9b1b21bfa756d3ff4e7aaecf89e01b0cdb567b2"))
    }

    /// Regression: `model show` and `model hashes` listed --store in their usage and said
    /// "no model given" with it. They describe the store's own model: here the one its model
    /// cache holds, whose hashes are the ones the store recorded.
    @Test(.enabled(if: StrataRunner.fixturesAvailable, "shared/fixtures/coredata not found: fixture test skipped"))
    func showAndHashesReadTheStoresOwnModel() throws {
        let store = StrataRunner.sharedFixtures.appendingPathComponent("corpus/stores/easylife/EasyLifeTests/EasyLife 1.5.0.sqlite").path
        let show = try StrataRunner.run(["model", "show", "--store", store])
        #expect(show.status == 0, "\(show.standardError)")
        #expect(show.standardOutput.contains("TodoItem") && show.standardOutput.contains("blockedBy"), "\(show.standardOutput)")
        let hashes = try StrataRunner.run(["model", "hashes", "--format", "json", "--store", store])
        #expect(hashes.status == 0, "\(hashes.standardError)")
        let document = try JSONReader.parse(Data(hashes.standardOutput.utf8))
        let opened = try PersistentStore.open(at: store, configuration: .readOnly)
        defer { opened.close() }
        #expect(opened.modelSource == .modelCache)
        for (entity, hash) in opened.metadata.entityVersionHashes {
            #expect(document["entities"]?[entity]?.stringValue == hash.hexString, "\(entity)")
        }
    }

    /// `model convert --store` recovers an app's model from its store: the bundle it writes
    /// holds one version, named after the store, whose entity hashes are the store's own.
    @Test(.enabled(if: StrataRunner.fixturesAvailable, "shared/fixtures/coredata not found: fixture test skipped"))
    func convertWritesTheStoresOwnModel() throws {
        let temporary = try TemporaryFolder("strata-convert")
        let store = StrataRunner.sharedFixtures.appendingPathComponent("corpus/stores/easylife/EasyLifeTests/EasyLife 1.5.0.sqlite").path
        let bundle = temporary.path("EasyLife.xcdatamodeld")
        let convert = try StrataRunner.run(["model", "convert", "--store", store, "--to", "xcdatamodel", bundle])
        #expect(convert.status == 0, "\(convert.standardError)")
        let versions = try StrataRunner.run(["model", "versions", "--model", bundle])
        #expect(versions.standardOutput.contains("EasyLife 1.5.0"), "\(versions.standardOutput)")
        let hashes = try StrataRunner.run(["model", "hashes", "--format", "json", "--model", bundle])
        #expect(hashes.status == 0, "\(hashes.standardError)")
        let document = try JSONReader.parse(Data(hashes.standardOutput.utf8))
        let opened = try PersistentStore.open(at: store, configuration: .readOnly)
        defer { opened.close() }
        #expect(!opened.metadata.entityVersionHashes.isEmpty)
        for (entity, hash) in opened.metadata.entityVersionHashes {
            #expect(document["entities"]?[entity]?.stringValue == hash.hexString, "\(entity)")
        }
    }

    @Test func versionsMarksTheCurrentVersion() throws {
        let result = try StrataRunner.run(["model", "versions"], environment: ["STRATA_MODEL": Self.example])
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("*  Library  5"))
        #expect(result.standardOutput.contains("current: Library (named by .xccurrentversion)"))
    }

    @Test func convertRoundTripsThroughBothFormats() throws {
        let temporary = try TemporaryFolder("strata-convert")
        let folder = temporary.url
        let json = folder.appendingPathComponent("library.json").path
        let bundle = folder.appendingPathComponent("Copy.xcdatamodeld").path
        #expect(try StrataRunner.run(["model", "convert", "--model", Self.example, "--to", "json", json]).status == 0)
        #expect(try StrataRunner.run(["model", "convert", "--model", json, "--to", "xcdatamodel", bundle]).status == 0)
        let original = try ModelLoader.load(StrataRunner.repositoryRoot.appendingPathComponent(Self.example)).currentVersion
        let copy = try ModelLoader.load(URL(fileURLWithPath: bundle))
        #expect(try copy.currentVersion.name == "library")
        #expect(copy.currentVersionReason == "named by .xccurrentversion")
        #expect(try copy.currentVersion.model == original.model)

        let refused = try StrataRunner.run(["model", "convert", "--model", Self.example, "--to", "json", json])
        #expect(refused.status == 1)
        #expect(refused.standardError == "strata: \(json) exists; pass --force to replace it\n")
        #expect(try StrataRunner.run(["model", "convert", "--model", Self.example, "--to", "json", "--force", json]).status == 0)
    }

    @Test func forceOverABundleKeepsEveryVersionAndAFailedWriteKeepsTheOldFile() throws {
        let temporary = try TemporaryFolder("strata-force")
        let folder = temporary.url
        let source = folder.appendingPathComponent("Shop.xcdatamodeld")
        for name in ["Shop", "Shop 2"] {
            var entity = EntityDescription(name: "Item")
            entity.attributes = [AttributeDescription(name: name == "Shop" ? "title" : "name", type: .string)]
            try XcodeModelWriter.write(ObjectModel(entities: [entity]), toModelFolder: source.appendingPathComponent(name + ".xcdatamodel"))
        }
        try ModelBundle.writeCurrentVersionMarker(in: source, versionName: "Shop")
        let copy = folder.appendingPathComponent("Copy.xcdatamodeld").path
        #expect(try StrataRunner.run(["model", "convert", "--model", source.path, "--to", "xcdatamodel", copy]).status == 0)
        #expect(try StrataRunner.run(["model", "convert", "--model", source.path, "--to", "xcdatamodel", "--force", copy]).status == 0)
        let written = try ModelLoader.load(URL(fileURLWithPath: copy))
        #expect(written.versions.map(\.name) == ["Shop", "Shop 2"])
        #expect(written.currentVersionName == "Shop")

        let json = folder.appendingPathComponent("shop.json")
        try Data("keep me".utf8).write(to: json)
        let broken = folder.appendingPathComponent("broken.json")
        try Data(#"{"entities": [{"name": "A", "attributes": [{"name": "x", "type": "strin"}]}]}"#.utf8).write(to: broken)
        let failed = try StrataRunner.run(["model", "convert", "--model", broken.path, "--to", "json", "--force", json.path])
        #expect(failed.status == 3)
        #expect(try String(contentsOf: json, encoding: .utf8) == "keep me")
        let missingFolder = folder.appendingPathComponent("no/such/dir/out.json").path
        let unwritable = try StrataRunner.run(["model", "convert", "--model", source.path, "--to", "json", missingFolder])
        #expect(unwritable.status == 1)
        #expect(unwritable.standardError.hasPrefix("strata: cannot write \(missingFolder): "))
    }

    @Test func validateReportsEveryErrorWithFileAndExitsThree() throws {
        let temporary = try TemporaryFolder("strata-validate")
        let folder = temporary.url
        let model = folder.appendingPathComponent("broken.json")
        try Data("""
            {"entities": [
              {"name": "Book", "relationships": [{"name": "author", "destination": "Autor", "inverse": "books"}],
               "uniquenessConstraints": [["isbn"]]}
            ]}
            """.utf8).write(to: model)
        let result = try StrataRunner.run(["model", "validate", "--model", model.path])
        #expect(result.status == 3)
        #expect(result.standardOutput.contains("\(model.path): error: entity 'Book', property 'author': the destination entity 'Autor' does not exist"))
        #expect(result.standardOutput.contains("\(model.path): error: entity 'Book': the uniqueness constraint (isbn) names an unknown property 'isbn'"))
        #expect(result.standardOutput.contains("broken: invalid (2 errors, 0 warnings)"))

        let show = try StrataRunner.run(["model", "show", "--model", model.path])
        #expect(show.status == 3)
        #expect(show.standardError.hasPrefix("strata: \(model.path): the model has 2 errors\n"))
        #expect(show.standardOutput.isEmpty)
    }

    @Test func malformedModelNamesLineAndColumnAndExitsThree() throws {
        let temporary = try TemporaryFolder("strata-malformed")
        let folder = temporary.url
        let model = folder.appendingPathComponent("bad.json")
        try Data("{\"entities\": [\n  {\"name\": \"A\",}\n]}".utf8).write(to: model)
        let result = try StrataRunner.run(["model", "show", "--model", model.path])
        #expect(result.status == 3)
        #expect(result.standardError == "strata: \(model.path): line 2, column 16: unexpected '}', expected a string key\n")
    }
}

/// Shared options, environment defaults, exit statuses and help, as every command sees them.
@Suite struct CommandLineBehaviourTests {
    @Test func versionNamesSQLiteAndLua() throws {
        let result = try StrataRunner.run(["--version"])
        #expect(result.status == 0)
        #expect(result.standardOutput.hasPrefix("strata "))
        #expect(result.standardOutput.contains("SQLite 3."))
        #expect(result.standardOutput.contains("Lua 5.4"))
    }

    @Test func helpForACommand() throws {
        let result = try StrataRunner.run(["help", "model", "hashes"])
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("USAGE: strata model hashes [--store <path>] [--model <path> ...]"))
        #expect(result.standardOutput.contains("Default: $STRATA_MODEL"))
    }

    @Test func missingModelIsAUsageError() throws {
        let result = try StrataRunner.run(["model", "show"])
        #expect(result.status == 2)
        #expect(result.standardError == "strata: no model given: pass --model PATH (or --store PATH for a store's own model), or set STRATA_MODEL\n")
        let versions = try StrataRunner.run(["model", "versions"])
        #expect(versions.status == 2)
        #expect(versions.standardError == "strata: no model given: pass --model PATH or set STRATA_MODEL\n")
    }

    @Test func unknownOptionAndBadLevelAreUsageErrors() throws {
        let unknown = try StrataRunner.run(["model", "show", "--modle", "x"])
        #expect(unknown.status == 2)
        #expect(unknown.standardError.contains("Unknown option '--modle'"))
        let level = try StrataRunner.run(["model", "show", "--log-level", "loud"])
        #expect(level.status == 2)
        #expect(level.standardError.contains("'fatal', 'error', 'warn', 'info' or 'verbose'"))
        let environmentLevel = try StrataRunner.run(["model", "show"], environment: ["STRATA_LOG_LEVEL": "loud"])
        #expect(environmentLevel.status == 2)
        #expect(environmentLevel.standardError.contains("STRATA_LOG_LEVEL is 'loud'"))
    }

    @Test func optionsOverrideTheEnvironment() throws {
        let result = try StrataRunner.run(
            ["model", "versions", "--model", ModelCommandTests.example], environment: ["STRATA_MODEL": "/nowhere"])
        #expect(result.status == 0)
    }

    @Test func unreadableModelIsARuntimeFailure() throws {
        let result = try StrataRunner.run(["model", "show", "--model", "/no/such/Model.xcdatamodeld"])
        #expect(result.status == 1)
        #expect(result.standardError == "strata: /no/such/Model.xcdatamodeld: no such file or folder\n")
    }

    @Test func unknownModelVersionIsAUsageErrorListingVersions() throws {
        let result = try StrataRunner.run(["model", "show", "--model", ModelCommandTests.example], environment: ["STRATA_MODEL_VERSION": "Library 9"])
        #expect(result.status == 2)
        #expect(result.standardError.contains("no model version named 'Library 9'; versions: Library"))
    }

    @Test(arguments: ["bash", "zsh", "fish"])
    func completionScripts(shell: String) throws {
        let result = try StrataRunner.run(["--generate-completion-script", shell])
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("strata"))
        #expect(result.standardOutput.contains("model"))
        // Regression: no shell completed file paths. zsh and fish are not installed here: their
        // scripts are read for the file completion of --store.
        switch shell {
        case "zsh": #expect(result.standardOutput.contains("'--store[The SQLite store file. Default\\: $STRATA_STORE.]:path:_files'"))
        case "fish": #expect(result.standardOutput.contains("-l 'store' -d 'The SQLite store file. Default: $STRATA_STORE.' -rF"))
        default: break
        }
    }

    /// bash, run here: --store, --model, import's files and run's script complete file paths
    /// (a script, only .lua files).
    @Test func bashCompletesFilePaths() throws {
        let folder = try TemporaryFolder()
        for file in ["Library.sqlite", "library.json", "report.lua", "readme.txt"] {
            _ = FileManager.default.createFile(atPath: folder.url.appendingPathComponent(file).path, contents: Data())
        }
        let script = try StrataRunner.run(["--generate-completion-script", "bash"]).standardOutput
        let completion = folder.url.appendingPathComponent("completion.bash")
        try script.write(to: completion, atomically: true, encoding: .utf8)
        func complete(_ words: [String]) throws -> [String] {
            let line = words.joined(separator: " ")
            let quoted = words.map { "'\($0)'" }.joined(separator: " ")
            let bash = Process()
            bash.executableURL = URL(fileURLWithPath: "/bin/bash")
            bash.currentDirectoryURL = folder.url
            bash.arguments = ["-c", """
                source completion.bash
                COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1); COMP_LINE='\(line)'; COMP_POINT=${#COMP_LINE}; COMPREPLY=()
                _strata strata '\(words.last!)' '\(words[words.count - 2])'
                printf '%s\\n' "${COMPREPLY[@]}"
                """]
            let output = Pipe()
            bash.standardOutput = output
            try bash.run()
            let printed = output.fileHandleForReading.readDataToEndOfFile()
            bash.waitUntilExit()
            return String(decoding: printed, as: UTF8.self).split(separator: "\n").map(String.init).sorted()
        }
        #expect(try complete(["strata", "fetch", "Book", "--store", "Lib"]) == ["Library.sqlite"])
        #expect(try complete(["strata", "count", "--model", "lib"]) == ["library.json"])
        #expect(try complete(["strata", "import", "Book", "l"]) == ["library.json"])
        #expect(try complete(["strata", "run", "re"]) == ["report.lua"])
    }
}

/// A bundle of several versions without `.xccurrentversion`: every command says which version
/// it used and why.
@Suite struct GuessedModelVersionTests {
    @Test func commandsWarnWhichVersionTheyChoseAndWhy() throws {
        let temporary = try TemporaryFolder("strata-guess")
        let folder = temporary.url
        let bundle = folder.appendingPathComponent("Shop.xcdatamodeld")
        for name in ["Shop", "Shop 2"] {
            try XcodeModelWriter.write(
                ObjectModel(entities: [EntityDescription(name: name.replacingOccurrences(of: " ", with: ""))]),
                toModelFolder: bundle.appendingPathComponent(name + ".xcdatamodel"))
        }
        let result = try StrataRunner.run(["model", "hashes", "--model", bundle.path])
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("Shop2 "))
        #expect(result.standardError
            == "warn \(bundle.path): using model version 'Shop 2': the bundle has no .xccurrentversion; chose the last version in name order\n")
        let named = try StrataRunner.run(["model", "hashes", "--model", bundle.path, "--model-version", "Shop"])
        #expect(named.standardError.isEmpty)
        let quiet = try StrataRunner.run(["model", "hashes", "--model", bundle.path, "--log-level", "error"])
        #expect(quiet.standardError.isEmpty)
    }
}
