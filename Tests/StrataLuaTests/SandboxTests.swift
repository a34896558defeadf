import Foundation
import Strata
import Testing
@testable import StrataLua

/// Attempts to escape, hang or crash the sandbox beyond those of `LuaStateTests`: through
/// `strata.json`, string patterns (which match in C), metatables, finalizers, coroutines and
/// error values. Each ends with the result or error a user sees, and the state goes on working.
@Suite struct SandboxTests {
    /// A state with a small budget and ceiling, so that a runaway ends quickly.
    static func state(budget: Int64? = 5_000_000, memory: Int? = 64 << 20) throws -> LuaState {
        var options = LuaState.Options()
        options.instructionBudget = budget
        options.memoryLimit = memory
        let lua = try LuaState(options: options)
        lua.output = { _ in }
        return lua
    }

    /// The error `chunk` raises, after which the state must still run code.
    static func failure(_ chunk: String, in lua: LuaState) -> LuaError? {
        defer { #expect((try? lua.run("return 1 + 1", name: "=after")) == [2]) }
        do {
            try lua.run(chunk, name: "=attempt")
            return nil
        } catch {
            return error
        }
    }

    // MARK: - String patterns

    /// Lua matches patterns in C, where the count hook never runs: these ran for hours before
    /// the matcher counted its own steps.
    @Test(arguments: [
        "return string.rep('a', 1e5):find(('a*'):rep(30) .. 'b')",
        "return (string.rep('a', 30)):match(('a-'):rep(12) .. 'b')",
        "return (string.rep('a', 40)):gsub(('a?'):rep(40) .. ('a'):rep(40) .. 'b', 'x')",
        "for m in string.rep('a', 2000):gmatch('a*a*a*a*b') do end",
        "return coroutine.wrap(function() return string.rep('a', 1e5):find(('a*'):rep(30) .. 'b') end)()",
    ])
    func catastrophicPatternsStopAtTheBudget(chunk: String) throws {
        let lua = try Self.state(budget: 1_000_000)
        #expect(Self.failure(chunk, in: lua)?.message.hasSuffix("attempt:1: instruction budget exceeded (1000000 instructions)") == true)
    }

    @Test func aPatternWithoutABudgetStopsWhenInterrupted() throws {
        let lua = try Self.state(budget: nil)
        let done = lua.interruptOnceStarted()
        #expect(Self.failure("started() return string.rep('a', 1e5):find(('a*'):rep(30) .. 'b')", in: lua)?.message == "attempt:1: interrupted")
        #expect(done.wait(timeout: .now() + 60) == .success)
    }

    /// The counting matcher matches as Lua's does.
    @Test func patternsMatchAsLuaSays() throws {
        let lua = try Self.state()
        let results = try lua.run("""
            local results = {}
            local function keep(...) for i = 1, select("#", ...) do results[#results + 1] = (select(i, ...)) end end
            local words = {}
            for k, v in ("a=1, bb=22"):gmatch("(%w+)=(%w+)") do words[#words + 1] = k .. ":" .. v end
            keep(("hello world"):find("o w")) keep(("hello"):find("l+")) keep(("key = value"):match("^(%w+)%s*=%s*(%w+)$"))
            keep(("abc"):gsub("%w", "%0%0")) keep(("THE (quick) fox"):find("%f[%a]%a+", 5)) keep(("f(a(b)c)"):match("%b()"))
            keep(table.concat(words, ",")) keep(("x"):gsub("", "-")) keep(("abc"):match("()b()")) keep(("a.b"):find(".", 1, true))
            return table.unpack(results)
            """, name: "=patterns")
        #expect(results == [5, 7, 3, 4, "key", "value", "aabbcc", 3, 6, 10, "(a(b)c)", "a:1,bb:22", "-x-", 2, 2, 3, 2, 2])
        #expect(Self.failure("return ('x'):find('%')", in: lua)?.message == "attempt:1: malformed pattern (ends with '%')")
        #expect(Self.failure("return ('x'):find(('('):rep(33))", in: lua)?.message == "attempt:1: too many captures")
        #expect(Self.failure("return ('x'):gsub('x', '%2')", in: lua)?.message == "attempt:1: invalid capture index %2")
        #expect(Self.failure("return ('a'):rep(300):find(('a?'):rep(250))", in: lua)?.message == "attempt:1: pattern too complex")
    }

    // MARK: - Memory

    @Test func stringRepAndSwiftResultsStayUnderTheCeiling() throws {
        let lua = try Self.state(budget: 50_000_000, memory: 32 << 20)
        #expect(Self.failure("return #string.rep('x', 64 << 20)", in: lua)?.message.contains("not enough memory") == true)
        #expect(Self.failure("return string.rep('x', 1 << 40, ',')", in: lua)?.message == "attempt:1: resulting string too large")
    }

    @Test func aHugeJSONResultFailsInsteadOfPassingTheCeiling() throws {
        let fixture = try Fixture(memory: 32 << 20)
        // A table of 64 references to one 1 MB string is small; its JSON text is 64 MB.
        let error = Self.failure("local s = string.rep('x', 1 << 20) local t = {} for i = 1, 64 do t[i] = s end return #strata.json.encode(t)", in: fixture.lua)
        #expect(error?.message == "attempt:1: not enough memory")
        #expect(fixture.lua.memoryInUse < 32 << 20)
    }

    // MARK: - strata.json

    @Test func jsonEncodeReadsTablesRawlyAndRefusesWhatHasNoJSONForm() throws {
        let fixture = try Fixture()
        let results = try fixture.lua.run("""
            local meta = {__index = function() error('index') end, __pairs = function() error('pairs') end,
              __tostring = function() error('tostring') end, __len = function() error('len') end}
            return strata.json.encode(setmetatable({a = 1}, meta)), strata.json.encode(setmetatable({}, meta)),
              strata.json.encode({'\\0"\\n\\\\', '\\u{7FFFFFFF}'})
            """, name: "=encode")
        #expect(results.prefix(2) == [#"{"a":1}"#, "[]"])
        let refusals = [
            ("local t = {} t.self = t return strata.json.encode(t)", "has no JSON form"),
            ("return strata.json.encode({print})", "attempt:1: a function has no JSON form"),
            ("return strata.json.encode({ctx})", "attempt:1: a userdata has no JSON form"),
            ("return strata.json.encode({0/0})", "attempt:1: nan has no JSON form"),
            ("return strata.json.encode({[true] = 1})", "attempt:1: a table key that is neither a string nor a positive integer has no JSON form"),
            ("return strata.json.encode({coroutine.create(print)})", "attempt:1: a thread has no JSON form"),
        ]
        for (chunk, message) in refusals {
            let error = Self.failure(chunk, in: fixture.lua)
            #expect(error?.message.hasSuffix(message) == true, "\(chunk): \(error?.message ?? "no error")")
        }
    }

    @Test func jsonDecodeOfHostileTextIsAnErrorNamingWhere() throws {
        let fixture = try Fixture()
        let cases = [
            ("return strata.json.decode(string.rep('[', 1e6))", "strata.json.decode: line 1, column 513: arrays and objects nest deeper than 512 levels"),
            ("return strata.json.decode('{\"a\": 1,}')", "strata.json.decode: line 1, column 9"),
            ("return strata.json.decode('\"\\\\ud800\"')", "strata.json.decode: line 1"),
            ("return strata.json.decode(string.rep(' ', 100) .. 'nul')", "strata.json.decode: line 1, column 101"),
        ]
        for (chunk, prefix) in cases {
            let error = Self.failure(chunk, in: fixture.lua)
            #expect(error?.code == "json", "\(chunk)")
            #expect(error?.message.hasPrefix("attempt:1: " + prefix) == true, "\(chunk): \(error?.message ?? "no error")")
        }
        // Text that is fine comes back whole, however long.
        #expect(try fixture.lua.run("return #strata.json.decode('\"' .. string.rep('y', 1 << 20) .. '\"')", name: "=long") == [.integer(1 << 20)])
    }

    // MARK: - Metatables and globals

    @Test func stringsAndGlobalsCanBeChangedOnlyInsideTheScriptsOwnState() throws {
        let lua = try Self.state()
        #expect(try lua.run("return getmetatable('').__index == string", name: "=meta") == [true])
        #expect(Self.failure("setmetatable('', {})", in: lua)?.message == "attempt:1: bad argument #1 to 'setmetatable' (table expected, got string)")
        try lua.run("getmetatable('').__index = function() error('hijacked') end", name: "=hijack")
        #expect(Self.failure("return ('x'):upper()", in: lua)?.message.contains("hijacked") == true)
        // Another state is untouched, and Swift reads and writes globals without metamethods.
        #expect(try Self.state().run("return ('x'):upper()", name: "=other") == ["X"])
        try lua.run("setmetatable(_G, {__index = function() error('read') end, __newindex = function() error('write') end}) rawset(_G, 'print', nil)", name: "=globals")
        lua.setGlobal("answer", 42)
        #expect(lua.global("answer") == 42)
        #expect(lua.global("missing") == .nil)
    }

    /// A script sees the name of Strata's types in place of their metatables: it can neither
    /// call their `__gc` on an object still in use nor replace it.
    @Test func strataTypesHideTheirMetatables() throws {
        let fixture = try Fixture()
        let lua = fixture.lua
        #expect(try lua.run("return getmetatable(ctx), getmetatable(stack) ~= nil", name: "=meta") == ["strata.context", true])
        #expect(Self.failure("getmetatable(ctx).__gc(ctx)", in: lua)?.message.contains("attempt to call a nil value") == true)
        #expect(try lua.run("return ctx:count('Book')", name: "=count") == [0])
    }

    // MARK: - Bytecode, finalizers, coroutines, errors

    @Test func bytecodeIsRefusedWhateverTheModeAsked() throws {
        let lua = try Self.state()
        let chunk = "'\\27Lua\\x54\\0' .. string.rep('\\0', 40)"
        #expect(try lua.run("return load(\(chunk), 'x', 'b')", name: "=binary") == [.nil, "attempt to load a binary chunk (mode is 't')"])
        #expect(try lua.run("local sent = false return load(function() if sent then return nil end sent = true return \(chunk) end)", name: "=reader")
            == [.nil, "attempt to load a binary chunk (mode is 't')"])
        #expect(try lua.run("return string.dump, collectgarbage('count') > 0", name: "=dump") == [.nil, true])
    }

    @Test func errorsInFinalizersAndClosersDoNotEscapeOrHang() throws {
        let lua = try Self.state()
        // Lua runs finalizers with hooks off, out of the budget's reach: a metatable with
        // __gc is refused, and one given __gc afterwards never finalizes (Lua 5.4 manual, §2.5.3).
        let refusal = "attempt:1: setmetatable: a metatable with __gc is not allowed (finalizers would run outside the instruction budget)"
        #expect(Self.failure("setmetatable({}, {__gc = function() while true do end end})", in: lua)?.message == refusal)
        #expect(Self.failure("setmetatable({}, {__gc = false})", in: lua)?.message == refusal)
        #expect(try lua.run("""
            local meta = {} setmetatable({}, meta) meta.__gc = function() while true do end end
            collectgarbage() return 'after'
            """, name: "=late") == ["after"])
        let closing = Self.failure("do local x <close> = setmetatable({}, {__close = function() error('in close') end}) end", in: lua)
        #expect(closing?.message == "attempt:1: in close")
        #expect(Self.failure("do local x <close> = setmetatable({}, {__close = function() while true do end end}) end", in: lua)?
            .message.contains("instruction budget exceeded") == true)
    }

    @Test func coroutinesRunUnderTheSameBudgetAndCeiling() throws {
        let lua = try Self.state(budget: 1_000_000, memory: 32 << 20)
        // coroutine.wrap adds its caller's place to an error's message, as Lua's does.
        #expect(Self.failure("coroutine.wrap(function() while true do end end)()", in: lua)?.message == "attempt:1: attempt:1: instruction budget exceeded (1000000 instructions)")
        // Making bytes costs instructions too (a kilobyte, 16): a budget that lets 32 MB be made.
        #expect(Self.failure("coroutine.wrap(function() local t = {} for i = 1, 1e8 do t[i] = string.rep('x', 1000) .. i end end)()", in: try Self.state(budget: 50_000_000, memory: 32 << 20))?
            .message.contains("not enough memory") == true)
        #expect(try lua.run("local co = coroutine.create(function() while true do coroutine.yield(1) end end) local n = 0 for i = 1, 100 do n = n + select(2, coroutine.resume(co)) end return n", name: "=yield") == [100])
    }

    @Test func errorValuesOfAnyKindComeBackAsText() throws {
        let lua = try Self.state()
        #expect(Self.failure("error(setmetatable({}, {__tostring = function() return 'custom' end}))", in: lua)?.message == "custom")
        #expect(Self.failure("error({code = 'x'})", in: lua)?.message.hasPrefix("table: ") == true)
        #expect(Self.failure("error()", in: lua)?.message == "nil")
        // The error raised while turning the value into text is the one reported.
        #expect(Self.failure("error(setmetatable({}, {__tostring = function() error('again') end}))", in: lua)?.message == "attempt:1: again")
        #expect(Self.failure("error(setmetatable({}, {__tostring = function() while true do end end}))", in: lua) != nil)
        let long = Self.failure("error(string.rep('e', 10 << 20), 0)", in: lua)
        #expect(long?.message.utf8.count == 10 << 20)
        #expect(long?.code == "lua")
    }

    // MARK: - Support

    /// A state with Strata installed on an in-memory store.
    struct Fixture {
        let stack: DataStack
        let lua: LuaState

        init(memory: Int = 64 << 20, budget: Int64? = 50_000_000) throws {
            let model = try ContextBindingTests.libraryModel()
            stack = try DataStack(model: model, modelName: "Library", store: .inMemory)
            lua = try SandboxTests.state(budget: budget, memory: memory)
            lua.installStrata(context: stack.newWorkerContext(name: "sandbox"), stack: stack)
        }
    }
}
