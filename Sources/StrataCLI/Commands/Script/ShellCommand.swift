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
            ~/.strata_history.

            When standard input is not a terminal, it is read whole and run as one script, as \
            strata run would run it (echo 'print(ctx:count("Book"))' | strata shell).
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
            print("strata \(StrataCommand.version), \(LuaRuntime.release): ctx is the main context of \(session.stack.storeURL?.path ?? "the store"); Ctrl-D quits")
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
                let source = pending.map { $0.source + "\n" + line } ?? line
                pending = nil
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
