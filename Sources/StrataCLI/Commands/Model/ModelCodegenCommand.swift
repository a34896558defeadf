import ArgumentParser
import Foundation
import Strata

/// `strata model codegen`: writes typed `ManagedObject` subclasses for a model.
struct ModelCodegenCommand: AsyncParsableCommand, ReadsModelOrStore {
    static let configuration = CommandConfiguration(
        commandName: "codegen",
        abstract: "Write typed ManagedObject subclasses for a model, one Swift file per entity.",
        discussion: """
            Each entity becomes a class with @Attribute, @ToOne and @ToMany properties; \
            sub-entities become subclasses. Files of the same names in OUTPUT are replaced.
            """)

    @OptionGroup var options: StoreOptions

    @Option(name: .long, help: ArgumentHelp("The folder to write the files into (created if needed).", valueName: "dir"), completion: .directory)
    var output: String

    func run() async throws {
        let version = try options.loadModelOrStoresModel()
        let folder = URL(fileURLWithPath: output)
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            for file in SubclassGenerator.files(for: version.model, modelName: version.name) {
                let url = folder.appendingPathComponent(file.name)
                try Data(file.contents.utf8).write(to: url, options: .atomic)
                print("wrote \(url.path)")
            }
        } catch {
            throw CLIError.unwritableFile(path: output, cause: error)
        }
    }
}
