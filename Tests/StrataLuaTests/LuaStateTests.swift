import Foundation
import Synchronization
import Testing
@testable import StrataLua
import StrataTestSupport

/// The interpreter itself: values in and out, Swift functions and their errors, the sandbox,
/// the instruction budget, the memory ceiling and interruption.
@Suite struct LuaStateTests {
    /// The lines a state printed.
    final class Printed: Sendable {
        let lines = Mutex<[String]>([])
        var all: [String] { lines.withLock { $0 } }
    }

    static func state(_ options: LuaState.Options = LuaState.Options()) throws -> (LuaState, Printed) {
        let lua = try LuaState(options: options)
        let printed = Printed()
        lua.output = { line in printed.lines.withLock { $0.append(line) } }
        return (lua, printed)
    }

    @Test func valuesGoInAndComeBack() throws {
        let (lua, printed) = try Self.state()
        let results = try lua.run("local a, b = ... ; print(a, b, nil, 1.5, {} ~= nil) ; return a + 1, b .. '!', {x = true, 'one'}", name: "values", arguments: [41, "hi"])
        #expect(results == [.integer(42), .string("hi!"), .table([.string("x"): .boolean(true), .integer(1): .string("one")])])
        #expect(printed.all == ["41\thi\tnil\t1.5\ttrue"])
        lua.setGlobal("answer", .table([.string("n"): 7]))
        #expect(try lua.run("return answer.n * 6", name: "global") == [42])
        #expect(lua.global("answer")["n"] == 7)
    }

    @Test func swiftFunctionsCheckTheirArgumentsAndRaiseStrataErrors() throws {
        let (lua, _) = try Self.state()
        lua.register("twice", in: "demo") { call in
            call.push(try call.integer(at: 1) * 2)
            return 1
        }
        lua.register("fail", in: "demo") { _ in throw LuaError(code: "validation", message: "Book.title is required") }
        #expect(try lua.run("return demo.twice(21)", name: "ok") == [42])
        #expect {
            try lua.run("return demo.twice('x')", name: "=bad")
        } throws: { error in
            (error as? LuaError).map { ($0.code, $0.message) } ?? ("", "") == ("argument", "bad:1: bad argument #1 to 'demo.twice' (integer expected, got string)")
        }
        // A script catches Strata's errors as tables with a code and a message.
        let caught = try lua.run("local ok, e = pcall(function() demo.fail() end) ; return ok, e.code, e.message, tostring(e)", name: "=catch")
        #expect(caught == [false, "validation", "catch:1: Book.title is required", "catch:1: Book.title is required"])
    }

    @Test func errorsNameTheChunkAndLineWithATraceback() throws {
        let (lua, _) = try Self.state()
        do {
            try lua.run("local x = 1\nlocal function inner() error('boom') end\ninner()", name: "@fix.lua")
            Issue.record("no error")
        } catch {
            #expect(error.code == "lua")
            #expect(error.message == "fix.lua:2: boom")
            #expect(error.traceback?.contains("fix.lua:2: in") == true, "\(error.traceback ?? "")")
        }
        #expect(throws: LuaError.self) { try lua.run("return 1 +", name: "=broken") }
        do {
            try lua.run("return 1 +", name: "=broken")
        } catch {
            #expect(error.code == "syntax")
            #expect(error.message.hasPrefix("broken:1:"))
        }
    }

    @Test func theSandboxHasNoFilesProcessesOrBytecode() throws {
        let (lua, _) = try Self.state()
        #expect(try lua.run("return io, os, dofile, loadfile, require", name: "sandbox") == [.nil, .nil, .nil, .nil, .nil])
        let loaded = try lua.run("return load('\\27Lua' .. string.rep('x', 40))", name: "bytecode")
        #expect(loaded.first == .nil)
        #expect(loaded.dropFirst().first.map { if case .string(let text) = $0 { text.contains("binary chunk") } else { false } } == true)
        #expect(try lua.run("return load('return 2')()", name: "text") == [2])

        var open = LuaState.Options()
        open.allowsSystemAccess = true
        let (unsafe, _) = try Self.state(open)
        #expect(try unsafe.run("return type(io.open), type(os.time)", name: "unsafe") == ["function", "function"])
    }

    @Test func ioWritesReadsAndCommandsAnnounceTheirUseOfTheStandardStreams() throws {
        var open = LuaState.Options()
        open.allowsSystemAccess = true
        let (lua, _) = try Self.state(open)
        let announced = Mutex<[String]>([])
        lua.standardStreamsWillBeUsed = { use in
            let text = switch use {
            case .write(let toStandardError, let endsLine): "\(toStandardError ? "stderr" : "stdout") \(endsLine ? "line" : "open")"
            case .lend: "lend"
            case .takeBack: "take back"
            }
            announced.withLock { $0.append(text) }
        }
        let folder = try TemporaryFolder("strata-io")
        let file = folder.path("io")
        try lua.run("""
            io.write("")
            io.stderr:write("\\n", "")
            io.stdout:write(" ", "")
            io.write("\\n")
            local f = io.open(..., "w") f:write("not a standard stream\\n") f:close()
            f = io.open(...) f:read("a") f:close()
            os.execute("true")
            -- A failing command still gives the terminal back.
            pcall(os.execute, {})
            """, name: "io", arguments: [.string(file)])
        #expect(announced.withLock { $0 } == ["stderr line", "stdout open", "stdout line", "lend", "take back", "lend", "take back"])
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "not a standard stream\n")
    }

    @Test func theBudgetAndTheMemoryCeilingStopARunawayScript() throws {
        var options = LuaState.Options()
        options.instructionBudget = 1_000_000
        options.memoryLimit = 8 << 20
        let (lua, _) = try Self.state(options)
        #expect(throws: LuaError.self) { try lua.run("while true do end", name: "=loop") }
        do {
            try lua.run("while true do end", name: "=loop")
        } catch {
            #expect(error.message == "loop:1: instruction budget exceeded (1000000 instructions)")
        }
        do {
            try lua.run("local t = {} for i = 1, 1e8 do t[i] = i end", name: "=hog")
            Issue.record("no error")
        } catch {
            #expect(error.message.contains("not enough memory"))
        }
        // The state is still usable, and each run has a budget of its own.
        #expect(try lua.run("local n = 0 for i = 1, 1000 do n = n + i end return n", name: "=after") == [500_500])
    }

    @Test func anInterruptionStopsTheRunningScriptOnly() throws {
        var options = LuaState.Options()
        options.instructionBudget = nil
        let (lua, _) = try Self.state(options)
        // An interruption before a run is not the run's; one during it stops it, at its line.
        lua.interrupt()
        #expect(try lua.run("return 1", name: "=stale") == [1])
        let done = lua.interruptOnceStarted()
        do {
            // One line: the interruption may be seen as started() returns or in the loop.
            try lua.run("started() local n = 0 while true do n = n + 1 end", name: "=spin")
            Issue.record("no error")
        } catch {
            #expect(error.message == "spin:1: interrupted")
        }
        #expect(done.wait(timeout: .now() + 60) == .success)
    }

    /// Each escape attempt ends with a clear error, and the state goes on working.
    @Test(arguments: [
        ("io.open('/etc/passwd')", "attempt to index a nil value (global 'io')"),
        ("os.execute('true')", "attempt to index a nil value (global 'os')"),
        ("string.dump(print)", "attempt to call a nil value (field 'dump')"),
        ("debug.getinfo(1)", "attempt to index a nil value (global 'debug')"),
        ("package.loadlib('libc.so.6', 'system')", "attempt to index a nil value (global 'package')"),
        ("require('os')", "attempt to call a nil value (global 'require')"),
        ("while true do end", "instruction budget exceeded"),
        ("local s = string.rep('x', 1 << 20) while true do s = s .. s end", "not enough memory"),
        ("local t = {} for i = 1, 1e9 do t[i] = {i} end", "not enough memory"),
        ("local function deep(n) return 1 + deep(n + 1) end return deep(1)", "stack overflow"),
        ("return string.rep('x', 1 << 40)", "too large"),
    ])
    func escapesAndRunawaysEndWithAClearError(chunk: String, message: String) throws {
        var options = LuaState.Options()
        options.instructionBudget = 50_000_000
        options.memoryLimit = 64 << 20
        let (lua, _) = try Self.state(options)
        do {
            try lua.run(chunk, name: "=attempt")
            Issue.record("no error for \(chunk)")
        } catch {
            #expect(error.message.contains(message), "\(chunk): \(error.message)")
        }
        #expect(try lua.run("return 1 + 1", name: "=after") == [2])
    }
}

extension LuaState {
    /// Registers the global function `started()`, which a test's script calls once it runs:
    /// another thread then interrupts the run, as Ctrl-C would. The semaphore is signalled once
    /// it has, for the test to wait on before it ends.
    ///
    /// An interruption sent on a timer instead could land before the run starts, be dropped as
    /// stale when it starts, and leave a script without a budget running for ever.
    func interruptOnceStarted() -> DispatchSemaphore {
        let done = DispatchSemaphore(value: 0)
        let interrupter = self.interrupter
        register("started", in: nil) { _ in
            Thread {
                interrupter.interrupt()
                done.signal()
            }.start()
            return 0
        }
        return done
    }
}
