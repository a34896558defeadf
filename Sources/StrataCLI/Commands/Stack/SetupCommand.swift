import ArgumentParser
import Foundation
import Strata

/// `strata setup`: opens the stack on a store (creating the store when there is none) and
/// describes it.
struct SetupCommand: AsyncParsableCommand, ReadsModelOrStore {
    static let configuration = CommandConfiguration(
        commandName: "setup",
        abstract: "Create the store when missing or open it, and describe the stack.",
        discussion: """
            Without --store, the store is <model name>.sqlite in the current folder. A store made \
            with another version of the model bundle is migrated to the chosen version first, \
            as strata migrate does, keeping the old store as <store>.<UTC time>.bak; with \
            --no-automigrate, or when no version of the bundle made it, it is refused (exit \
            status 3).
            """)

    @OptionGroup var options: StoreOptions

    @Flag(help: "Refuse a store of an earlier model version instead of migrating it.")
    var noAutomigrate = false

    @OptionGroup var output: FormatOptions<OutputFormat>

    var format: OutputFormat { output.format }

    func run() async throws {
        let stack = try options.openStack(automigrates: !noAutomigrate)
        switch format {
        case .table:
            print(stack.description)
        case .json:
            let store = stack.store
            print(JSONWriter.string(from: .object([
                "version": .string(DataStack.version),
                "store": stack.storeURL.map { .string($0.path) },
                "created": .bool(stack.createdStore),
                "uuid": .string(store.metadata.uuid),
                "model": .string(stack.modelName),
                "entities": .array(stack.model.entities.map { .string($0.name) }),
                "topology": .string(stack.options.topology.rawValue),
            ])))
        }
    }
}
