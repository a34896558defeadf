import ArgumentParser
import Strata

/// `strata model hashes`: the version hashes a store records for the model.
struct ModelHashesCommand: AsyncParsableCommand, ReadsModelOrStore {
    static let configuration = CommandConfiguration(
        commandName: "hashes",
        abstract: "Print the model's entity version hashes, checksum and digest.",
        discussion: """
            These are the values Core Data stores in a store's metadata \
            (NSStoreModelVersionHashes, NSStoreModelVersionChecksumKey, \
            NSStoreModelVersionHashesDigest) to tell which model the store was made with.
            """)

    @OptionGroup var options: StoreOptions

    @OptionGroup var output: FormatOptions<OutputFormat>

    var format: OutputFormat { output.format }

    func run() async throws {
        let model = try options.loadModelOrStoresModel().model
        let hashes = model.entityVersionHashes()
        let names = hashes.keys.sorted()
        switch format {
        case .json:
            let document = JSONValue.object([
                "entities": .object(names.map { JSONMember($0, .string(hashes[$0]!.hexString)) }),
                "checksum": .string(model.versionChecksum),
                "digest": .string(model.versionHashesDigest),
            ])
            print(JSONWriter.string(from: document))
        case .table:
            var table = TextTable(header: ["entity", "version hash"])
            for name in names { table.append([name, hashes[name]!.hexString]) }
            print(table.rendered)
            print("checksum  \(model.versionChecksum)")
            print("digest    \(model.versionHashesDigest)")
        }
    }
}
