import ArgumentParser
import Strata

/// `strata model validate`: checks every version of a model (or the one chosen) and lists each
/// problem with its file, entity and property. Exits with status 3 when any error is found.
struct ModelValidateCommand: AsyncParsableCommand, ReadsModelOrStore {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check a model and list every error and warning.",
        discussion: """
            Checks every version of a bundle, or only --model-version. Exit status 3 when any \
            version has an error; warnings alone leave it 0.
            """)

    @OptionGroup var options: StoreOptions

    @Option(help: "Output format: table or json.")
    var format: OutputFormat = .table

    func run() async throws {
        let bundle = try ModelLoader.load(try options.requireModelURL())
        let versions = try options.modelVersionName.map { [try bundle.version(named: $0)] } ?? bundle.versions
        let results = versions.map { ($0, $0.model.validate()) }
        switch format {
        case .json:
            let document = JSONValue.array(
                results.map { version, issues in
                    .object([
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
                })
            print(JSONWriter.string(from: document))
        case .table:
            for (version, issues) in results {
                for issue in issues { print("\(version.file.path): \(issue)") }
                let errors = issues.filter { $0.severity == .error }.count
                let warnings = issues.count - errors
                print("\(version.name): \(errors == 0 ? "valid" : "invalid") (\(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s"))")
            }
        }
        if results.contains(where: { $0.1.contains { $0.severity == .error } }) {
            throw ExitCode(ExitStatus.dataError.rawValue)
        }
    }
}
