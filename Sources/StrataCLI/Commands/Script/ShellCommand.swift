import ArgumentParser
import CEditLine
import Foundation
import Strata
import StrataLua

/// `strata shell`: an interactive Lua shell on the stack of a store.
struct ShellCommand: AsyncParsableCommand, ReadsModelOrStore {
    static let configuration = CommandConfiguration(
        commandName: "shell",
        abstract: "An interactive Lua shell on a store.",
        discussion: """
            Each line runs as soon as it is a complete chunk (the prompt >> asks for more); an \
            expression prints its values. The globals are those of strata run: ctx, stack and \
            strata. Changes reach the store only when saved, with ctx:save(); what is unsaved \
            at the end is discarded. An error is printed with its traceback and the shell goes \
            on. Ctrl-C gives up the line, or interrupts the running chunk; Ctrl-D on an empty \
            line quits. Lines are edited with libedit (emacs keys, ~/.editrc) and kept in \
            ~/.strata_history. = EXPR prints the values of EXPR. Tab completes global names, \
            methods after ctx: (and stack:, obj:), an object's attributes after obj., and entity \
            names in the first argument of ctx:fetch(", ctx:count(" and the like; when the \
            completions differ, it completes what they share and lists them.

            Lines that start with a dot are commands: .help lists them; .entities (the entities \
            and their numbers of objects), .describe ENTITY (its attributes and relationships), \
            .count ENTITY [PREDICATE], .save (ctx:save()), .rollback (ctx:rollback()) and .quit. \
            An error in one is printed and the shell goes on.

            When standard input is not a terminal, it is read whole and run as one script, as \
            strata run would run it (echo 'print(ctx:count("Book"))' | strata shell): without \
            prompts, and without dot-commands, which are not Lua (a line .count Book is a \
            syntax error there).
            """)

    @OptionGroup var options: StoreOptions

    @OptionGroup var scriptOptions: ScriptOptions

    func validate() throws {
        if options.readOnly { throw ValidationError("scripts may save; --read-only cannot be used with shell") }
    }

    func run() async throws {
        guard isatty(STDIN_FILENO) == 1 else {
            let source = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
            try await ScriptSession.with(storeOptions: options, scriptOptions: scriptOptions) { session in
                try session.run(source, name: "=stdin")
            }
            return
        }
        let historyPath = ProcessInfo.processInfo.environment["HOME"].flatMap { $0.isEmpty ? nil : $0 + "/.strata_history" }
        try await ScriptSession.with(storeOptions: options, scriptOptions: scriptOptions) { session in
            guard let editor = LineEditor(historyPath: historyPath) else { throw CLIError("cannot start the line editor (libedit)") }
            let completion = ShellCompletion(session: session)
            editor.completer = { completion.complete($0) }
            print("strata \(StrataCommand.version), \(LuaRuntime.release): ctx is the main context of \(session.stack.storeURL?.path ?? "the store"); .help lists the commands, Ctrl-D quits")
            Self.loop(session: session, editor: editor)
        }
    }

    /// Reads chunks and runs them until the input ends.
    static func loop(session: ScriptSession, editor: LineEditor) {
        // The lines of a chunk that is not complete yet, and its syntax error.
        var pending: (source: String, error: LuaError)?
        while true {
            switch editor.read(continuation: pending != nil) {
            case .end:
                print()
                // Ctrl-D within a chunk: say why it did not run.
                if let pending { ScriptSession.printError(pending.error) }
                return
            case .interrupted:
                print()
                pending = nil
            case .line(let line):
                editor.remember(line)
                if pending == nil, let command = ShellDotCommand.parse(line) {
                    if ShellDotCommand.run(command.name, argument: command.argument, session: session) == .quit { return }
                    continue
                }
                var source = pending.map { $0.source + "\n" + line } ?? line
                pending = nil
                // `= expr`, as the lua shell reads it: return expr.
                if source.first == "=" { source = "return " + source.dropFirst() }
                do throws(LuaError) {
                    try session.evaluate(source, name: "=stdin", printing: .printed)
                } catch where ScriptSession.isIncomplete(error) {
                    pending = (source, error)
                } catch {
                    ScriptSession.printError(error)
                }
            }
        }
    }
}
