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
        switch start(arguments) {
        case .finished(let status): return status
        case .needsConcurrency(let command): return await command.run()
        }
    }

    /// Parses `arguments` (without the program name) and runs the command when it needs no
    /// Swift concurrency, on the calling thread; else hands it back to be run where it can
    /// await. A program's top-level code runs on the main thread until its first `await`, and
    /// only that `await` starts libdispatch's threads (about a millisecond of a short
    /// command's start, `strata inspect`'s), so `strata`'s own start calls this first:
    ///
    /// ```swift
    /// switch StrataCLI.start() {
    /// case .finished(let status): exit(status)
    /// case .needsConcurrency(let command): exit(await command.run())
    /// }
    /// ```
    public static func start(_ arguments: [String] = Array(CommandLine.arguments.dropFirst())) -> Start {
        let command: ParsableCommand
        do {
            command = try StrataCommand.parseAsRoot(arguments)
        } catch {
            if let suggestion = subcommandSuggestion(for: arguments) {
                printError("strata: \(suggestion)\nSee 'strata --help' for the commands.")
                return .finished(ExitStatus.usage.rawValue)
            }
            return .finished(report(parsingError: error))
        }
        bootstrapLogging(level: (command as? ReadsModelOrStore)?.options.resolvedLogLevel ?? .warn)
        if let asyncCommand = command as? AsyncParsableCommand {
            return .needsConcurrency(PendingCommand(command: asyncCommand))
        }
        do {
            var command = command
            try command.run()
            return .finished(ExitStatus.success.rawValue)
        } catch {
            return .finished(report(runError: error))
        }
    }

    /// What ``start(_:)`` did: ran the command, or left it to be run with concurrency.
    public enum Start {
        /// The command ran (or the arguments did not parse): the exit status.
        case finished(Int32)
        /// A command that awaits, parsed and not yet run.
        case needsConcurrency(PendingCommand)
    }

    /// A parsed command that awaits, which ``start(_:)`` left to run.
    public struct PendingCommand {
        fileprivate var command: any AsyncParsableCommand

        /// Runs the command; returns its exit status.
        public func run() async -> Int32 {
            var command = command
            do {
                try await command.run()
                return ExitStatus.success.rawValue
            } catch {
                return StrataCLI.report(runError: error)
            }
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
        if let exit = error as? ExitCode { return exit.rawValue }
        guard let status = ExitStatus(for: error) else {
            // Errors of argument parsing raised while running (the `help` command's, a
            // ValidationError) keep the parser's own message and status.
            let code = StrataCommand.exitCode(for: error)
            if code == .success || code == .validationFailure {
                return report(parsingError: error)
            }
            printError("strata: \(error.localizedDescription)")
            return ExitStatus.failure.rawValue
        }
        printError("strata: " + message(for: error))
        return status.rawValue
    }

    /// What `strata` prints for `error` after `strata: `: the error's own description, a
    /// script's error followed by its Lua traceback.
    static func message(for error: any Error) -> String {
        switch error {
        case let trouble as DiffTrouble:
            return message(for: trouble.error)
        case let luaError as LuaError:
            // Its message names the file and line.
            return luaError.message + (luaError.traceback.map { "\n" + $0 } ?? "")
        case let migrationError as MigrationError:
            // A migration script's error goes on with its Lua traceback.
            switch migrationError {
            case .customStepFailed(_, let luaError as LuaError), .mappingFailed(_, _, let luaError as LuaError):
                return "\(migrationError)" + (luaError.traceback.map { "\n" + $0 } ?? "")
            default:
                return "\(migrationError)"
            }
        default:
            return ExitStatus(for: error) == nil ? error.localizedDescription : "\(error)"
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
