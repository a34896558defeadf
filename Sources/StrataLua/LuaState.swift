import CLua
import CLuaBridge
import Foundation
import Strata

/// A Lua 5.4 interpreter, sandboxed, with an instruction budget and a memory ceiling, that
/// runs scripts and calls Swift functions registered into it.
///
/// ```swift
/// let lua = try LuaState()
/// lua.register("twice", in: nil) { call in
///     call.push(try call.integer(at: 1, "n") * 2)
///     return 1
/// }
/// let results = try lua.run("return twice(21)", name: "example")   // [.integer(42)]
/// ```
///
/// Use a state from one thread at a time. Lua errors never cross Swift frames: Swift
/// functions report errors by throwing, which raises a Strata error table in Lua; Lua code
/// runs only in protected calls, whose errors come back as ``LuaError``.
public final class LuaState {
    /// What a state lets scripts do.
    public struct Options: Sendable {
        /// The instructions one run may execute (about a hundred million a second), or `nil`
        /// for no budget.
        public var instructionBudget: Int64? = 10_000_000_000
        /// The bytes the state may hold, or `nil` for no ceiling. What Strata holds for a
        /// script (the JSON tree of `strata.json.encode`, an import's records, results) counts
        /// too, at an estimate of its size.
        public var memoryLimit: Int? = 1 << 30
        /// The wall-clock time one run may take, or `nil` for no limit: the bound on what the
        /// budget cannot count (garbage collection, allocations failing at the memory ceiling,
        /// the time a call into Strata waits), checked where instructions are.
        public var timeLimit: Duration? = nil
        /// Whether scripts get the `io` and `os` libraries and `dofile`/`loadfile`: files,
        /// processes and the environment.
        public var allowsSystemAccess = false

        public init() {}
    }

    /// The Lua thread that runs now, which the bindings read their arguments from and push
    /// their results to: the main thread, or a coroutine that called a Swift function. A
    /// coroutine has a stack of its own, so a binding that used the main thread's stack read
    /// another function's values ("context expected, got userdata"). Set by the dispatcher
    /// for the length of each call into Swift.
    var L: OpaquePointer
    /// The state's main thread, which owns the state: closing and interrupting go through it.
    private let mainThread: OpaquePointer
    /// The options the state was made with.
    public let options: Options
    /// Where `print` writes, a line at a time (standard output by default).
    public var output: @Sendable (String) -> Void = { line in FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
    /// Called before a script uses the standard streams through `io` or `os.execute` (see
    /// ``StandardStreamUse``): a program that keeps a status line on the terminal clears it,
    /// and keeps it away while the terminal is lent out. Only states with
    /// ``Options/allowsSystemAccess`` have `io` and `os`.
    public var standardStreamsWillBeUsed: @Sendable (StandardStreamUse) -> Void = { _ in }
    /// The connection of the store that scripts use (set by ``installStrata(context:stack:)``),
    /// read at each run since a stack's reset replaces it: its statements stop when the run
    /// must, since no instruction check happens while SQLite runs one.
    var scriptConnection: () -> Database? = { nil }
    /// The Swift functions the state's Lua functions call, kept alive as long as the state.
    private var functions: [LuaFunction] = []
    /// How many protected calls are running, the outermost one being a run.
    private var callDepth = 0
    /// The registry references of the script's import hooks, by kind and entity.
    var hookReferences: [String: [String: Int32]] = [:]
    /// The method names of each userdata type the state defined, by type name.
    var typeMethods: [String: [String]] = [:]

    /// The methods a value of the userdata type `type` has (`strata.context`, `strata.object`,
    /// … as their metatables' `__name` say), sorted: for completion in a shell.
    public func methodNames(ofType type: String) -> [String] {
        typeMethods[type] ?? []
    }

    /// A new state with the sandbox's libraries open.
    ///
    /// - Throws: ``LuaError`` when the state cannot be made (out of memory).
    public init(options: Options = Options()) throws(LuaError) {
        _ = Self.installDispatch
        guard let L = strata_lua_newstate() else { throw LuaError(code: "memory", message: "cannot create a Lua state: not enough memory") }
        self.L = L
        self.mainThread = L
        self.options = options
        guard strata_lua_open_libraries(L, options.allowsSystemAccess ? 1 : 0) == LUA_OK else {
            let message = String(cString: strata_lua_tolstring(L, -1, nil))
            strata_lua_close(L)
            throw LuaError(code: "lua", message: message)
        }
        // print's tostring runs in Lua, where a __tostring metamethod may raise; Swift gets text.
        pushFunction(name: "print") { [unowned self] call in
            self.output(try call.string(at: 1))
            return 0
        }
        lua_setglobal(L, "strata_write_line")
        do {
            try run("""
                local write, tostring, pack, concat = strata_write_line, tostring, table.pack, table.concat
                strata_write_line = nil
                function print(...)
                  local values = pack(...)
                  for i = 1, values.n do values[i] = tostring(values[i]) end
                  write(concat(values, "\\t", 1, values.n))
                end
                """, name: "=strata.print")
            if options.allowsSystemAccess { try installStandardStreamHooks() }
        } catch {
            strata_lua_close(L)
            throw error
        }
    }

    deinit {
        strata_lua_close(mainThread)
    }

    // MARK: - Running

    /// Runs `chunk` (Lua source text, never bytecode) named `name` in messages, with
    /// `arguments` as its `...`; returns what it returns.
    ///
    /// - Throws: ``LuaError``: `syntax` for a chunk that does not compile, else the error the
    ///   chunk raised, with its traceback.
    @discardableResult
    public func run(_ chunk: String, name: String, arguments: [LuaValue] = []) throws(LuaError) -> [LuaValue] {
        let base = lua_gettop(L)
        defer { lua_settop(L, base) }
        let status = chunk.utf8CString.withUnsafeBufferPointer { buffer in
            strata_lua_load(L, buffer.baseAddress, buffer.count - 1, name)
        }
        guard status == LUA_OK else { throw loadFailure(status: status, name: name) }
        for argument in arguments { LuaCall(L: L).push(argument) }
        try call(arguments: Int32(arguments.count))
        let call = LuaCall(L: L)
        let results = lua_gettop(L) > base ? Array(base + 1...lua_gettop(L)) : []
        // Read in full, a table that holds another many times is that many tables in Swift;
        // once read, they are the caller's.
        let held = strata_lua_held(L)
        defer { strata_lua_set_held(L, held) }
        for index in results { try call.chargeConversion(at: index) }
        return results.map { index in call.value(at: index) }
    }

    /// Runs `chunk` with the `arguments` values on top of the stack as its `...`, leaving
    /// `results` values in their place.
    func callChunk(_ chunk: String, name: String, arguments: Int32, results: Int32) throws(LuaError) {
        let status = chunk.utf8CString.withUnsafeBufferPointer { buffer in
            strata_lua_load(L, buffer.baseAddress, buffer.count - 1, name)
        }
        guard status == LUA_OK else {
            let failure = loadFailure(status: status, name: name)
            lua_settop(L, -(arguments + 2))
            throw failure
        }
        lua_rotate(L, -(arguments + 1), 1)
        try call(arguments: arguments, results: results)
    }

    /// The error of a chunk named `name` that did not load, from the message on top of the
    /// stack: `memory` when Lua ran out, else `syntax`. Lua names the chunk in its syntax
    /// errors but not in all (a binary chunk, a chunk nested too deep for the parser's C
    /// stack): those get the name too, so that every message says which script failed.
    private func loadFailure(status: Int32, name: String) -> LuaError {
        var message = String(cString: strata_lua_tolstring(L, -1, nil))
        let shownName = name.hasPrefix("@") || name.hasPrefix("=") ? String(name.dropFirst()) : name
        // Lua shortens a long name to its end, after "...".
        if status != LUA_ERRMEM, !message.hasPrefix(shownName + ":"), !message.hasPrefix("..."), !message.hasPrefix("[string ") {
            message = shownName + ": " + message
        }
        return LuaError(code: status == LUA_ERRMEM ? "memory" : "syntax", message: message)
    }

    /// Calls the function below `arguments` values on the stack in protected mode, within the
    /// budget, leaving its results; a failure throws, with the stack as before the function.
    func call(arguments: Int32, results: Int32 = LUA_MULTRET) throws(LuaError) {
        // A call from a Swift function within a run (a transaction's body) shares the run's budget.
        if callDepth == 0 {
            var limits = strata_lua_limits()
            limits.instructions = options.instructionBudget ?? 0
            limits.memory = options.memoryLimit ?? 0
            if let timeLimit = options.timeLimit {
                let (seconds, attoseconds) = timeLimit.components
                let milliseconds = Double(seconds) * 1000 + Double(attoseconds) / 1e15
                // At least a millisecond (0 means no limit), at most what a deadline in
                // nanoseconds holds (three centuries).
                limits.milliseconds = Int64(min(max(1, milliseconds), 1e13))
            }
            strata_lua_set_limits(L, limits)
        }
        let connection = callDepth == 0 ? scriptConnection() : nil
        if let connection {
            let L = mainThread
            connection.stopStatements(when: { strata_lua_should_stop(L) != 0 })
        }
        callDepth += 1
        defer {
            callDepth -= 1
            connection?.stopStatements(when: nil)
        }
        guard strata_lua_pcall(L, arguments, results) == LUA_OK else {
            let error = LuaCall(L: L).error(at: -1)
            lua_settop(L, -2)
            throw error
        }
    }

    /// Makes the running script fail with "interrupted" at its next check (within a thousand
    /// instructions); safe from a signal handler or another thread. An interruption that
    /// arrives when no script runs is dropped when the next one starts.
    public func interrupt() {
        strata_lua_interrupt(mainThread)
    }

    /// Interrupts the state's running script from any thread, as ``interrupt()`` does; use
    /// it only while the state lives.
    public struct Interrupter: @unchecked Sendable {
        fileprivate let L: OpaquePointer

        public func interrupt() {
            strata_lua_interrupt(L)
        }
    }

    /// A handle another thread (or a signal's handler) can interrupt the running script with.
    public var interrupter: Interrupter { Interrupter(L: mainThread) }

    /// The bytes the state holds.
    public var memoryInUse: Int { strata_lua_memory_in_use(mainThread) }

    // MARK: - Globals and Swift functions

    /// Sets the global `name` to `value`, without metamethods (a script may have given the
    /// globals a metatable).
    public func setGlobal(_ name: String, _ value: LuaValue) {
        pushGlobals()
        lua_pushstring(L, name)
        LuaCall(L: L).push(value)
        lua_rawset(L, -3)
        lua_settop(L, -2)
    }

    /// The global `name`, read without metamethods.
    public func global(_ name: String) -> LuaValue {
        pushGlobals()
        lua_pushstring(L, name)
        lua_rawget(L, -2)
        defer { lua_settop(L, -3) }
        return LuaCall(L: L).value(at: -1)
    }

    /// Pushes the table of globals.
    func pushGlobals() {
        lua_rawgeti(L, strata_lua_registryindex(), lua_Integer(LUA_RIDX_GLOBALS))
    }

    /// Registers `body` as the function `name` of the global table `table` (made when
    /// missing), or as a global function when `table` is `nil`.
    ///
    /// `body` reads its arguments from the call, pushes its results and returns how many it
    /// pushed; what it throws is raised in Lua (a ``LuaError`` as it is, anything else with
    /// the code `strata`).
    public func register(_ name: String, in table: String?, _ body: @escaping (LuaCall) throws -> Int32) {
        if let table {
            pushGlobalTable(table)
        } else {
            pushGlobals()
        }
        lua_pushstring(L, name)
        pushFunction(name: table.map { "\($0).\(name)" } ?? name, body)
        lua_rawset(L, -3)
        lua_settop(L, -2)
    }

    /// Pushes a Lua function that calls `body`; `name` is how argument errors name it.
    func pushFunction(name: String, _ body: @escaping (LuaCall) throws -> Int32) {
        let function = LuaFunction(name: name, state: self, body)
        functions.append(function)
        strata_lua_push_function(L, Unmanaged.passUnretained(function).toOpaque())
    }

    /// Pushes the global table `name`, making it when missing.
    func pushGlobalTable(_ name: String) {
        pushGlobals()
        lua_pushstring(L, name)
        if lua_rawget(L, -2) != LUA_TTABLE {
            lua_settop(L, -2)
            strata_lua_newtable(L)
            lua_pushstring(L, name)
            lua_pushvalue(L, -2)
            lua_rawset(L, -4)
        }
        lua_rotate(L, -2, 1)
        lua_settop(L, -2)
    }

    // MARK: - Dispatch

    /// Installs, once, the function through which every state's trampolines call Swift.
    private static let installDispatch: Void = {
        strata_lua_set_dispatch { L, box in
            guard let L, let box else { return STRATA_LUA_RAISE }
            let function = Unmanaged<LuaFunction>.fromOpaque(box).takeUnretainedValue()
            // The bindings work on the thread that called them (a coroutine's, maybe), and on
            // the caller's again when they return: a call may run Lua that calls Swift from
            // another coroutine.
            let state = function.state
            let caller = state.L
            state.L = L
            defer { state.L = caller }
            do {
                return try function.body(LuaCall(L: L, function: function.name))
            } catch let error as LuaError {
                strata_lua_push_error(L, error.code, error.message)
            } catch {
                strata_lua_push_error(L, LuaError.code(for: error), String(describing: error))
            }
            return STRATA_LUA_RAISE
        }
    }()
}

/// A Swift function that Lua calls.
final class LuaFunction {
    let name: String
    /// The state whose ``LuaState/L`` the function's calls set; it keeps its functions alive.
    unowned let state: LuaState
    let body: (LuaCall) throws -> Int32

    init(name: String, state: LuaState, _ body: @escaping (LuaCall) throws -> Int32) {
        self.name = name
        self.state = state
        self.body = body
    }
}
