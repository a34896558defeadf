import CEditLine
import Foundation
import Logging
import Strata
import StrataLua

/// A Lua interpreter with Strata's API on the stack of a store, as `run`, `eval` and `shell`
/// use it.
///
/// `ctx` is the stack's main-queue context, so scripts run on the main queue. Not on the main
/// thread: `strata`'s top-level code is async, so libdispatch parks the main thread and its
/// worker threads serve the main queue (and the main actor). A session runs inside
/// `mainContext.performAndWait`, called from a thread of its own, which marks the main context
/// as running on that thread: the contexts of `stack:update` and `stack:background`, whose
/// saves call back into `ctx` from their own queues, then find it and run inline (from
/// `MainActor.run` they would wait for the main queue that the script holds).
///
/// Changes reach the store only when a script saves them (`ctx:save()`, or the end of a
/// `ctx:transaction`); what is left unsaved when the session ends is rolled back.
final class ScriptSession {
    let stack: DataStack
    let lua: LuaState
    let scriptOptions: ScriptOptions
    /// Whether a user types the chunks at a terminal (the shell): no time limit by default.
    let interactive: Bool
    private let interruption: ScriptInterruption
    private let logger = Logger(label: "strata.script")

    private init(stack: DataStack, scriptOptions: ScriptOptions, interactive: Bool) throws {
        self.stack = stack
        self.scriptOptions = scriptOptions
        self.interactive = interactive
        do {
            lua = try LuaState(options: scriptOptions.luaOptions(interactive: interactive))
        } catch {
            throw CLIError.unavailable(.lua(error))
        }
        // print, io.write and Swift's print share C's standard output, in order; all of them
        // clear the status line of a long run first.
        lua.output = { line in StatusLine.standardError.writing(to: .standardOutput) { print(line) } }
        lua.standardStreamsWillBeUsed = { use in
            switch use {
            case .write(let toStandardError, let endsLine):
                StatusLine.standardError.writing(to: toStandardError ? .standardError : .standardOutput, endsLine: endsLine) {}
            case .lend: StatusLine.standardError.lend()
            case .takeBack: StatusLine.standardError.takeBack()
            }
        }
        lua.installStrata(context: stack.mainContext, stack: stack)
        do {
            _ = try lua.run("strata.list_limit = ...", name: "=strata", arguments: [.integer(Int64(scriptOptions.maxItems))])
        } catch {
            throw CLIError.unavailable(.lua(error))
        }
        interruption = try ScriptInterruption(lua: lua)
    }

    /// Opens the stack that `storeOptions` give, runs `body` with a session on it on the main
    /// queue, and closes the session: unsaved changes are rolled back, the store closed.
    /// `interactive` when a user types the chunks at a terminal.
    static func with(
        storeOptions: StoreOptions, scriptOptions: ScriptOptions, interactive: Bool = false, _ body: @escaping @Sendable (ScriptSession) throws -> Void
    ) async throws {
        // Without a store or a model there is nothing to name a store after: say what is missing.
        if storeOptions.storePath == nil, storeOptions.modelPath == nil {
            throw CLIError.missing(.store(creatable: true))
        }
        if !scriptOptions.create {
            let path = try storeOptions.storePath ?? storeOptions.defaultStorePath()
            guard FileManager.default.fileExists(atPath: path) else {
                throw CLIError.noSuchStore(path: path, remedy: .create)
            }
        }
        // An existing store that keeps its model (Core Data's model cache, or Strata's record)
        // opens without --model; one whose model would only be inferred from its tables needs it.
        // A script may only read: a store of another version of the bundle is migrated only
        // when asked (--migrate), as strata migrate would.
        let readOnly = storeOptions.readOnly
        let stack: DataStack
        do {
            stack = try storeOptions.modelPath == nil && !scriptOptions.create
                ? storeOptions.openStackWithStoresModel(readOnly: readOnly)
                : storeOptions.openStack(automigrates: scriptOptions.migrate, readOnly: readOnly)
        } catch StackError.modelVersionMismatch(let path, let bundle, let storeVersion, let stackVersion) {
            throw CLIError.needsMigration(.modelVersionMismatch(path: path, bundle: bundle, storeVersion: storeVersion, stackVersion: stackVersion))
        }
        // The session blocks a thread of its own (waiting for the main queue, then running
        // the scripts), not one of Swift concurrency's.
        let outcome = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Void, any Error>, Never>) in
            let thread = Thread {
                let outcome = Result { () throws -> Void in
                    // performAndWait marks the main context as running on this thread: a
                    // child's save that calls back into it from the child's queue runs inline.
                    try stack.mainContext.performAndWait {
                        dispatchPrecondition(condition: .onQueue(.main))
                        strata_stdout_line_buffered()
                        let session = try ScriptSession(stack: stack, scriptOptions: scriptOptions, interactive: interactive)
                        do {
                            try body(session)
                        } catch {
                            session.close(warnsOfUnsavedChanges: false)
                            throw error
                        }
                        session.close(warnsOfUnsavedChanges: true)
                    }
                }
                continuation.resume(returning: outcome)
            }
            thread.name = "strata.script"
            thread.start()
        }
        // Merges of the scripts' saves queued on the main queue run before the store closes.
        await MainActor.run { stack.cleanUp() }
        try outcome.get()
    }

    /// Rolls back what the scripts did not save, saying so when `warnsOfUnsavedChanges` (not
    /// after an error, which says enough), and stops handling Ctrl-C.
    private func close(warnsOfUnsavedChanges: Bool) {
        interruption.stop()
        let context = stack.mainContext
        let unsaved = context.performAndWait {
            defer { context.rollback() }
            return context.hasChanges
        }
        if unsaved, warnsOfUnsavedChanges {
            logger.warning("the script's unsaved changes were discarded: ctx:save() saves them")
        }
    }

    // MARK: - Running

    /// Runs `chunk`, named `name` in messages, with `arguments` as its `...`.
    ///
    /// - Throws: ``LuaError``, its message saying which option to raise when the script hit
    ///   its instruction budget or memory ceiling.
    func run(_ chunk: String, name: String, arguments: [LuaValue] = []) throws(LuaError) {
        do {
            _ = try interruption.whileRunning { () throws(LuaError) -> [LuaValue] in
                try lua.run(chunk, name: name, arguments: arguments)
            }
        } catch {
            throw explained(error)
        }
    }

    /// Runs `body` (which runs chunks) with a status line that says, once it has run for a
    /// second without output, that `activity` is under way, for how long, and what its saves
    /// committed: `running seed.lua... 42 s, 3 saves (120,000 objects)`.
    func showingActivity<T>(_ activity: String, _ body: () throws -> T) rethrows -> T {
        let commits = Locked((saves: 0, objects: 0))
        let observation = stack.observeCommit { saved in
            commits.withLock {
                $0.saves += 1
                $0.objects += saved.insertedObjectIDs.count + saved.updatedObjectIDs.count + saved.deletedObjectIDs.count
            }
        }
        let indicator = ActivityIndicator(activity, after: 1) {
            let (saves, objects) = commits.withLock { ($0.saves, $0.objects) }
            guard saves > 0 else { return nil }
            return "\(saves.formatted()) save\(saves == 1 ? "" : "s") (\(objects.formatted()) object\(objects == 1 ? "" : "s"))"
        }
        defer {
            indicator.stop()
            observation.cancel()
        }
        return try body()
    }

    /// How ``evaluate(_:name:printing:)`` prints the values of an expression.
    enum Printing {
        /// One value per line: a string, number, boolean or nil as `tostring` writes it (what
        /// a shell script reads), a table or object as `strata.inspect` shows it (not its
        /// address).
        case linePerValue
        /// As `print` does: on one line, separated by tabs.
        case printed
        /// One value per line, as `strata.inspect` shows it: the shell's results.
        case inspected
        /// All the values as one JSON document, whole: a value alone as itself, several as an
        /// array; objects as their `to_table()`.
        case json
    }

    /// Runs `source` as the `lua` shell does: when it is an expression (a list of them), its
    /// values are printed with Lua's `tostring`; otherwise it runs as a chunk, and the values
    /// it returns are printed.
    ///
    /// - Throws: ``LuaError``; a `syntax` error is the chunk's, as Lua reports it.
    func evaluate(_ source: String, name: String, printing: Printing) throws(LuaError) {
        // The code goes inside a call of a printing function, starting on the first line, so
        // that messages and tracebacks name the lines the user wrote.
        let printer = switch printing {
        case .linePerValue:
            ##"(function(...) for i = 1, select("#", ...) do local v = select(i, ...) local t = type(v) "##
                + ##"if t == "table" or t == "userdata" then print(strata.inspect(v)) else print(v) end end end)("##
        case .printed: ##"(function(...) if select("#", ...) > 0 then print(...) end end)("##
        case .inspected: ##"(function(...) for i = 1, select("#", ...) do print(strata.inspect((select(i, ...)))) end end)("##
        case .json:
            ##"(function(...) local function plain(v) if type(v) == "userdata" then local ok, t = pcall(function() return v:to_table() end) "##
                + ##"if ok then return t end return tostring(v) elseif type(v) == "table" then local copy = {} for k, x in pairs(v) do copy[k] = plain(x) end "##
                + ##"return copy end return v end local n = select("#", ...) if n == 1 then print(strata.json.encode(plain((...)), true)) "##
                + ##"elseif n > 1 then local all = {} for i = 1, n do all[i] = plain((select(i, ...))) end print(strata.json.encode(all, true)) end end)("##
        }
        do throws(LuaError) {
            try run(printer + source + "\n)", name: name)
            return
        } catch where error.code != "syntax" {
            throw error
        } catch {
            // Not an expression: statements.
        }
        // Statements compile as they are written (so that a syntax error, or an incomplete
        // chunk, reads as Lua reports it), then run as the body of a function.
        let check = try lua.run("local _, message = load(...) return message", name: "=strata.check", arguments: [.string(source), .string(name), "t"])
        if case .string(let message)? = check.first { throw LuaError(code: "syntax", message: message) }
        try run(printer + "(function(...) " + source + "\nend)(...))", name: name)
    }

    /// Whether `error` says that a chunk ended before it was complete (more lines may complete it).
    static func isIncomplete(_ error: LuaError) -> Bool {
        error.code == "syntax" && error.message.hasSuffix("<eof>")
    }

    private func explained(_ error: LuaError) -> LuaError {
        var error = error
        if error.message.contains("instruction budget exceeded") {
            error.message += "; raise it with --budget N, or 0 for no limit"
        } else if error.message.contains("time limit exceeded") {
            error.message += "; raise it with --timeout SECONDS, or 0 for no limit"
        } else if error.message.hasSuffix("not enough memory"), scriptOptions.maxMemory > 0 {
            error.message += " (the limit is \(scriptOptions.maxMemory) MB; raise it with --memory MB, or 0 for no limit)"
        }
        return error
    }

    // MARK: - Reporting

    /// Prints `error` on standard error as a command's error is printed: `strata: message`,
    /// then the Lua traceback.
    static func printError(_ error: LuaError) {
        StrataCLI.printError("strata: " + error.message + (error.traceback.map { "\n" + $0 } ?? ""))
    }
}
