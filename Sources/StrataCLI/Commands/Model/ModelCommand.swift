import ArgumentParser

/// `strata model`: commands on the model alone, without a store.
struct ModelCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "model",
        abstract: "Show, check, hash, convert and draw models.",
        subcommands: [
            ModelShowCommand.self, ModelVersionsCommand.self, ModelValidateCommand.self,
            ModelHashesCommand.self, ModelConvertCommand.self, ModelCodegenCommand.self, ModelGraphCommand.self,
        ])
}
