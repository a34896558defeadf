import ArgumentParser
import Strata

/// `strata model validate`: checks every version of a model (or the one chosen) and lists each
/// problem with its file, entity and property. Exits with status 3 when any error is found.
struct ModelValidateCommand: AsyncParsableCommand, ReadsModelOrStore {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check a model and list every error and warning.",
        discussion: """
            Checks every version of each model given, or only --model-version. Errors are what \
            Xcode refuses to compile; what it compiles but warns about (a default value written \
            as another type's, an inverse that does not point back) is a warning, saying how Core \
            Data reads it. A version that cannot be read is an error of its own. Exit status 3 when \
            any version has an error; warnings alone leave it 0.
            """)

    @OptionGroup var options: StoreOptions

    @OptionGroup var output: FormatOptions<OutputFormat>

    var format: OutputFormat { output.format }

    func run() async throws {
        let bundles = try options.requireModelURLs().map { url in try ModelLoader.load(url) }
        var versions: [ModelBundle.Version] = []
        for bundle in bundles {
            versions += try options.modelVersionName.map { [try bundle.version(named: $0)] } ?? bundle.versions
        }
        let results = versions.map { ($0, $0.model.validateForStore()) }
        // A version that could not be read is invalid, with its reading error as its one issue.
        let unreadable = options.modelVersionName == nil ? bundles.flatMap(\.unreadableVersions) : []
        switch format {
        case .json:
            let documents = results.map { version, issues in
                JSONValue.object([
                    "version": .string(version.name),
                    "file": .string(version.file.path),
                    "valid": .bool(!issues.contains { $0.severity == .error }),
                    "issues": .array(
                        issues.map { issue in
                            .object([
                                "severity": .string(issue.severity.rawValue),
                                "entity": issue.entity.map(JSONValue.string),
                                "property": issue.property.map(JSONValue.string),
                                "message": .string(issue.message),
                            ])
                        }),
                ])
            }
            let unreadableDocuments = unreadable.map { version in
                JSONValue.object([
                    "version": .string(version.name), "file": .string(version.file.path), "valid": .bool(false),
                    "issues": .array([.object(["severity": .string("error"), "message": .string(version.error.description)])]),
                ])
            }
            print(JSONWriter.string(from: .array(documents + unreadableDocuments)))
        case .table:
            for (version, issues) in results {
                for issue in issues { print("\(version.file.path): \(issue)") }
                let errors = issues.filter { $0.severity == .error }.count
                let warnings = issues.count - errors
                print("\(version.name): \(errors == 0 ? "valid" : "invalid") (\(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s"))")
            }
            for version in unreadable {
                print("error: \(version.error)")
                print("\(version.name): unreadable")
            }
        }
        if !unreadable.isEmpty || results.contains(where: { $0.1.contains { $0.severity == .error } }) {
            throw ExitCode(ExitStatus.dataError.rawValue)
        }
    }
}
