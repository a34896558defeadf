import ArgumentParser
import Strata
import StrataLua

/// `strata`: the root command, which only routes to its subcommands.
struct StrataCommand: AsyncParsableCommand {
    static let version = "0.1.0"

    static let configuration = CommandConfiguration(
        commandName: "strata",
        abstract: "Inspect, migrate, seed and script Core Data stores and models on Linux.",
        discussion: """
            Stores use Core Data's own SQLite layout and models are Xcode's .xcdatamodeld bundles \
            (or Strata's JSON model format), so strata works on stores written by Core Data as \
            well as its own.

            Options shared by every command that reads a store or a model take their defaults \
            from STRATA_STORE, STRATA_MODEL, STRATA_MODEL_VERSION and STRATA_LOG_LEVEL.

            Exit status: 0 success, 1 runtime failure, 2 usage error, 3 validation or data error.
            """,
        version: "strata \(version) (SQLite \(SQLiteLibrary.version), \(LuaRuntime.release))",
        subcommands: [ModelCommand.self, CreateCommand.self, InspectCommand.self, CountCommand.self, FetchCommand.self, QueryCommand.self, SQLCommand.self, HistoryCommand.self, ImportCommand.self, ExportCommand.self, DeleteCommand.self, PruneCommand.self, SetupCommand.self, ResetCommand.self, MigrateCommand.self, DiffCommand.self, RunCommand.self, EvalCommand.self, ShellCommand.self])
}
