import ArgumentParser
import Foundation
import Logging
import Strata
import StrataLua
import Synchronization

/// The `strata` command-line tool: parses the arguments, runs the command, and turns every
/// error into a message on standard error and an exit status.
///
/// Exit statuses: 0 success, 1 runtime failure, 2 usage error, 3 validation or data error.
/// A user's mistake never ends in a crash or a backtrace.
public enum StrataCLI {
    /// Runs `strata` with `arguments` (without the program name) and returns the exit status.
    public static func main(_ arguments: [String] = Array(CommandLine.arguments.dropFirst())) async -> Int32 {
        let command: ParsableCommand
        do {
            command = try StrataCommand.parseAsRoot(arguments)
        } catch {
            if let suggestion = subcommandSuggestion(for: arguments) {
                printError("strata: \(suggestion)\nSee 'strata --help' for the commands.")
                return ExitStatus.usage.rawValue
            }
            return report(parsingError: error)
        }
        bootstrapLogging(level: (command as? ReadsModelOrStore)?.options.resolvedLogLevel ?? .warn)
        do {
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                var command = command
                try command.run()
            }
            return ExitStatus.success.rawValue
        } catch {
            return report(runError: error)
        }
    }

    // MARK: - Errors

    /// `no command 'fetc'; did you mean 'fetch'?` when arguments that failed to parse start
    /// with a mistyped command name, after `strata` or after a command of commands (`model`);
    /// `nil` when they do not, or no command is near it.
    static func subcommandSuggestion(for arguments: [String]) -> String? {
        var subcommands = StrataCommand.configuration.subcommands
        var path = ""
        for argument in arguments {
            guard !subcommands.isEmpty, !argument.hasPrefix("-"), argument != "help" else { return nil }
            let names = subcommands.map { $0._commandName }
            if let index = names.firstIndex(of: argument) {
                subcommands = subcommands[index].configuration.subcommands
                path += argument + " "
                continue
            }
            return nearestName(to: argument, among: names).map { "no command '\(path)\(argument)'; did you mean '\(path)\($0)'?" }
        }
        return nil
    }

    private static func report(parsingError error: Error) -> Int32 {
        let code = StrataCommand.exitCode(for: error)
        let message = StrataCommand.fullMessage(for: error)
        if code == .success {
            print(message)
            return ExitStatus.success.rawValue
        }
        printError(message)
        return ExitStatus.usage.rawValue
    }

    private static func report(runError error: Error) -> Int32 {
        switch error {
        case let exit as ExitCode:
            return exit.rawValue
        case let trouble as DiffTrouble:
            // strata diff's 1 says that the stores differ: its runtime failures are 2.
            let status = report(runError: trouble.error)
            return status == ExitStatus.failure.rawValue ? ExitStatus.usage.rawValue : status
        case let failure as CLIError:
            printError("strata: \(failure.message)")
            return failure.status.rawValue
        case let modelError as ModelError:
            printError("strata: \(modelError)")
            return ExitStatus(for: modelError).rawValue
        case let storeError as StoreError:
            printError("strata: \(storeError)")
            return ExitStatus(for: storeError).rawValue
        case let mappingError as MappingModelError:
            printError("strata: \(mappingError)")
            return ExitStatus.dataError.rawValue
        case let migrationError as MigrationError:
            printError("strata: \(migrationError)")
            // A migration script's error goes on with its Lua traceback.
            if case .customStepFailed(_, let luaError as LuaError) = migrationError, let traceback = luaError.traceback { printError(traceback) }
            if case .mappingFailed(_, _, let luaError as LuaError) = migrationError, let traceback = luaError.traceback { printError(traceback) }
            return ExitStatus(for: migrationError).rawValue
        case is PredicateKeyError, is PredicateCompileError, is PredicateSyntaxError, is FetchRequestError:
            // A request that names what the model lacks, or that does not parse, is a usage error.
            printError("strata: \(error)")
            return ExitStatus.usage.rawValue
        case is ImportError, is ContextError, is JSONSyntaxError:
            // Records that do not fit the model, or a save the model's rules refuse.
            printError("strata: \(error)")
            return ExitStatus.dataError.rawValue
        case let stackError as StackError:
            printError("strata: \(stackError)")
            return ExitStatus.dataError.rawValue
        case let luaError as LuaError:
            // A script's error: its message names the file and line; then the Lua traceback.
            printError("strata: " + luaError.message + (luaError.traceback.map { "\n" + $0 } ?? ""))
            return ExitStatus(for: luaError).rawValue
        case let sqlError as SQLScriptError:
            // The user's own SQL that SQLite refused: a data error, as a failed save is.
            printError("strata: \(sqlError)")
            return ExitStatus.dataError.rawValue
        case let databaseError as DatabaseError:
            printError("strata: \(databaseError)")
            // A predicate's pattern that the data makes too costly (or that does not compile), or
            // a value whose external data file is missing, is a data error, as it is when a
            // context reports it.
            return (databaseError.isDamagedFile || databaseError.functionFailure != nil ? ExitStatus.dataError : .failure).rawValue
        default:
            // Errors of argument parsing raised while running (the `help` command's, a
            // ValidationError) keep the parser's own message and status.
            let code = StrataCommand.exitCode(for: error)
            if code == .success || code == .validationFailure {
                return report(parsingError: error)
            }
            printError("strata: \(error.localizedDescription)")
            return ExitStatus.failure.rawValue
        }
    }

    static func printError(_ message: String) {
        // What was printed before the error comes before it where both go to one file.
        fflush(nil)
        StatusLine.standardError.writing(to: .standardError) {
            FileHandle.standardError.write(Data((message + "\n").utf8))
        }
    }

    // MARK: - Logging

    /// swift-log allows one bootstrap per process; a second ``main(_:)`` in the same process
    /// changes the level of the handler already installed.
    private static let logLevel = Mutex<LogLevel?>(nil)

    static func bootstrapLogging(level: LogLevel) {
        let isFirst = logLevel.withLock { current in
            defer { current = level }
            return current == nil
        }
        guard isFirst else { return }
        LoggingSystem.bootstrap { label in
            LineLogHandler(label: label, level: StrataCLI.logLevel.withLock { $0 } ?? .warn) { line in
                StatusLine.standardError.writing(to: .standardError) { LineLogHandler.writeToStandardError(line) }
            }
        }
    }
}
