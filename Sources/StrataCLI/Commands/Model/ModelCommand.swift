import ArgumentParser

/// `strata model`: commands on the model alone, without a store.
struct ModelCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "model",
        abstract: "Show, check, hash and convert models.",
        subcommands: [
            ModelShowCommand.self, ModelVersionsCommand.self, ModelValidateCommand.self,
            ModelHashesCommand.self, ModelConvertCommand.self, ModelCodegenCommand.self,
        ])
}
