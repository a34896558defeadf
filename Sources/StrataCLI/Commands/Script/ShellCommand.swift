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
            on. The store opens as strata run opens it: a store of another version of the \
            --model bundle is refused unless --migrate is given, and --read-only opens it \
            read-only, a save then being an error. Ctrl-C gives up the line, or interrupts the running chunk; Ctrl-D on an empty \
            line quits. Lines are edited with libedit (emacs keys, ~/.editrc) and kept in \
            ~/.strata_history. = EXPR prints the values of EXPR. Tab completes global names, \
            methods after ctx: (and stack:, obj:), an object's attributes after obj., and entity \
            names in the first argument of ctx:fetch(", ctx:count(" and the like; when the \
            completions differ, it completes what they share and lists them.

            Lines that start with a dot are commands: .help lists them; .entities (the entities \
            and their numbers of objects), .describe ENTITY (its attributes and relationships), \
            .count ENTITY [PREDICATE], .save (ctx:save()), .rollback (ctx:rollback()) and .quit. \
            An error in one is printed on one line, without a Lua traceback, and the shell goes on.

            Results are shown as strata.inspect shows them: an object with its attributes \
            (<Tag p1 {name="Epic"}>), a list one item per line and how many, a table as \
            {key = value}; a long list or table shows its first --max-items items (50; \
            strata.list_limit in the shell) and how many more, so that ctx:fetch of many \
            objects prints a screenful. A chunk of several lines is one entry of the history.

            When standard input is not a terminal, it is run without prompts as strata run \
            would run it (echo 'print(ctx:count("Book"))' | strata shell): the Lua between \
            dot-commands as one chunk, each dot-command in its turn.
            """)

    @OptionGroup var options: StoreOptions

    @OptionGroup var scriptOptions: ScriptOptions

    func validate() throws {
        try scriptOptions.validate(with: options)
    }

    func run() async throws {
        guard isatty(STDIN_FILENO) == 1 else {
            let source = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
            try await ScriptSession.with(storeOptions: options, scriptOptions: scriptOptions) { session in
                try Self.runPiped(source, session: session)
            }
            return
        }
        let historyPath = ProcessInfo.processInfo.environment["HOME"].flatMap { $0.isEmpty ? nil : $0 + "/.strata_history" }
        try await ScriptSession.with(storeOptions: options, scriptOptions: scriptOptions, interactive: true) { session in
            guard let editor = LineEditor(historyPath: historyPath) else { throw CLIError.unavailable(.lineEditor) }
            let completion = ShellCompletion(session: session)
            editor.completer = { completion.complete($0) }
            print("strata \(StrataCommand.version), \(LuaRuntime.release): ctx is the main context of \(session.stack.storeURL?.path ?? "the store"); .help lists the commands, Ctrl-D quits")
            Self.loop(session: session, editor: editor)
        }
    }

    /// Runs piped input: the Lua between dot-commands as one chunk (so that its locals reach
    /// its end), each dot-command in its turn. A chunk's error stops the input.
    static func runPiped(_ source: String, session: ScriptSession) throws {
        var chunk: [Substring] = [], firstLine = 1
        func runChunk() throws {
            defer { chunk = [] }
            guard chunk.contains(where: { !$0.allSatisfy(\.isWhitespace) }) else { return }
            // Blank lines before the chunk keep its line numbers those of the input.
            try session.run(String(repeating: "\n", count: firstLine - 1) + chunk.joined(separator: "\n"), name: "=stdin")
        }
        for (index, line) in source.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if let command = ShellDotCommand.parse(String(line)) {
                try runChunk()
                if ShellDotCommand.run(command.name, argument: command.argument, session: session) == .quit { return }
                firstLine = index + 2
            } else {
                chunk.append(line)
            }
        }
        try runChunk()
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
                if pending == nil, let command = ShellDotCommand.parse(line) {
                    editor.remember(line)
                    if ShellDotCommand.run(command.name, argument: command.argument, session: session) == .quit { return }
                    continue
                }
                let typed = pending.map { $0.source + "\n" + line } ?? line
                pending = nil
                // `= expr`, as the lua shell reads it: return expr.
                let source = typed.first == "=" ? "return " + typed.dropFirst() : typed
                do throws(LuaError) {
                    try session.evaluate(source, name: "=stdin", printing: .inspected)
                } catch where ScriptSession.isIncomplete(error) {
                    pending = (typed, error)
                    continue
                } catch {
                    ScriptSession.printError(error)
                }
                // A chunk of several lines goes into the history whole, once it is complete.
                editor.remember(typed)
            }
        }
    }
}
