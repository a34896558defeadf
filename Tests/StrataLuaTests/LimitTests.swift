import Foundation
import Strata
import Testing
@testable import StrataLua

/// Scripts are bounded (issue 31): the budget covers pattern matching and the work of C
/// functions and of Strata, a time limit bounds what the budget cannot count, what Strata
/// holds for a script counts against its memory, and no limit can be caught and ignored.
/// Each asserts the error a user sees, not how long it took.
@Suite struct LimitTests {
    static func state(budget: Int64? = 5_000_000, memory: Int? = 64 << 20, time: Duration? = nil) throws -> LuaState {
        var options = LuaState.Options()
        options.instructionBudget = budget
        options.memoryLimit = memory
        options.timeLimit = time
        let lua = try LuaState(options: options)
        lua.output = { _ in }
        return lua
    }

    // MARK: - The budget covers C

    /// The issue's bomb, on a subject short enough that a small budget ends it at once.
    @Test func aPatternBombStopsAtTheBudget() throws {
        let lua = try Self.state(budget: 2_000_000)
        let error = SandboxTests.failure("return string.rep('a', 3000):find('.-.-.-.-.-b')", in: lua)
        #expect(error?.message == "attempt:1: instruction budget exceeded (2000000 instructions)")
    }

    /// Each of these did work that no instruction counted: repetitions of nothing, elements
    /// moved or shifted one by one.
    @Test(arguments: [
        "return #string.rep('', 1e15)",
        "return #string.rep('', 1e15, '')",
        "table.move({}, 1, 1e15, 2)",
        "local t = {} for i = 1, 2e5 do t[i] = i end for i = 1, 1e6 do table.insert(t, 1, i) table.remove(t, 1) end",
    ])
    func cFunctionsPayForTheirWork(chunk: String) throws {
        let lua = try Self.state(budget: 5_000_000, memory: 256 << 20)
        #expect(SandboxTests.failure(chunk, in: lua)?.message.hasSuffix("instruction budget exceeded (5000000 instructions)") == true)
    }

    /// A stop raised inside pcall (or a coroutine) is raised again when pcall returns: the
    /// script ends instead of catching its end for ever.
    @Test(arguments: [
        "local n = 0 while true do pcall(function() while true do n = n + 1 end end) end",
        "while true do xpcall(function() while true do end end, function(e) return e end) end",
        "while true do coroutine.resume(coroutine.create(function() while true do end end)) end",
    ])
    func aStopCannotBeCaught(chunk: String) throws {
        let lua = try Self.state(budget: 1_000_000)
        #expect(SandboxTests.failure(chunk, in: lua)?.message.hasSuffix("instruction budget exceeded (1000000 instructions)") == true)
    }

    @Test func pcallAndCoroutinesStillCatchOtherErrorsAndYield() throws {
        let lua = try Self.state()
        let results = try lua.run("""
            local ok, message = pcall(error, "plain")
            local co = coroutine.wrap(function() local ok, value = pcall(coroutine.yield, 1) return ok, value end)
            return ok, message, co(), co(2)
            """, name: "=pcall")
        #expect(results == [false, "plain", 1, true, 2])
        #expect(SandboxTests.failure("pcall()", in: lua)?.message == "attempt:1: bad argument #1 to 'pcall' (value expected)")
    }

    // MARK: - The time limit

    /// Collections cost little of the budget for their time: the time limit ends them, an
    /// error that pcall cannot catch either.
    @Test(arguments: [
        "while true do collectgarbage() end",
        "while true do pcall(function() while true do collectgarbage() end end) end",
    ])
    func theTimeLimitEndsWhatTheBudgetCannotCount(chunk: String) throws {
        let lua = try Self.state(budget: nil, time: .milliseconds(300))
        #expect(SandboxTests.failure(chunk, in: lua)?.message == "attempt:1: time limit exceeded (0.3 s)")
    }

    @Test func theTimeLimitIsPerRun() throws {
        let lua = try Self.state(budget: nil, time: .milliseconds(300))
        #expect(SandboxTests.failure("while true do end", in: lua)?.message.hasSuffix("time limit exceeded (0.3 s)") == true)
        #expect(try lua.run("local n = 0 for i = 1, 1000 do n = n + i end return n", name: "=next") == [500500])
    }

    /// A store of 2,000 books by one author, where `ANY author.books.author.books.name` reads
    /// 2,000³ rows in one SQLite statement: no instruction check runs inside it, so SQLite
    /// asks whether the run must stop.
    static func sprawlingStore(time: Duration?) throws -> LuaState {
        let model = try ContextBindingTests.libraryModel()
        let stack = try DataStack(model: model, modelName: "Library", store: .inMemory)
        let context = stack.newWorkerContext(name: "limits")
        // Seeded in Swift: under a sanitizer on a busy machine, seeding through Lua can take
        // longer than the limit the test is about.
        try context.performAndWait {
            let author = try context.insert("Author")
            try author.setValue("A", forKey: "name")
            for number in 1...2000 {
                let book = try context.insert("Book")
                try book.setValue("b\(number)", forKey: "name")
                try book.setValue(author, forKey: "author")
            }
            try context.commit()
        }
        let lua = try state(budget: nil, memory: 256 << 20, time: time)
        lua.installStrata(context: context, stack: stack)
        return lua
    }

    static let sprawlingCount = "return ctx:count('Book', 'ANY author.books.author.books.name == %@', 'none')"

    @Test func theTimeLimitEndsOneLongStatement() throws {
        let lua = try Self.sprawlingStore(time: .seconds(1))
        #expect(SandboxTests.failure(Self.sprawlingCount, in: lua)?.message == "attempt:1: time limit exceeded (1 s)")
        #expect(try lua.run("return ctx:count('Book')", name: "=after") == [2000])
    }

    @Test func anInterruptionEndsOneLongStatement() throws {
        let lua = try Self.sprawlingStore(time: nil)
        let interrupter = lua.interrupter
        // Sent again until the run ends: one sent before the run starts is dropped as stale,
        // and a loaded machine can take longer than any one delay to start it, which would
        // leave the count, without a time limit, running for hours (found by reading, not seen).
        let ended = DispatchSemaphore(value: 0)
        Thread { while ended.wait(timeout: .now() + 0.2) == .timedOut { interrupter.interrupt() } }.start()
        defer { ended.signal() }
        #expect(SandboxTests.failure(Self.sprawlingCount, in: lua)?.message == "attempt:1: interrupted")
    }

    // MARK: - Memory that Strata holds

    /// 2^30 leaves in 31 tables: read in full, a billion values. It fails at once, before
    /// Swift builds any of it (the process grew to 5.8 GB and aborted), and the state goes on.
    /// Without a budget, which would stop it first.
    @Test(arguments: ["return #strata.json.encode(t)", "ctx:import('Book', t)", "return t"])
    func aTableGraphTooBigToReadFailsAtOnce(use: String) throws {
        let fixture = try SandboxTests.Fixture(memory: 256 << 20, budget: nil)
        let chunk = "local t = {} for i = 1, 30 do t = {t, t} end " + use
        let error = SandboxTests.failure(chunk, in: fixture.lua)
        #expect(error?.message.hasSuffix("not enough memory") == true, "\(error?.message ?? "no error")")
        #expect(fixture.lua.memoryInUse < 256 << 20)
    }

    @Test func importedRecordsCountAgainstTheMemoryLimit() throws {
        let fixture = try SandboxTests.Fixture(memory: 32 << 20)
        // 100,000 records: a few MB of Lua, 50 MB and more of objects in Swift.
        let error = SandboxTests.failure("local r = {} for i = 1, 1e5 do r[i] = {name = 'b' .. i} end ctx:import('Book', r)", in: fixture.lua)
        #expect(error?.message.hasSuffix("not enough memory") == true, "\(error?.message ?? "no error")")
        let text = SandboxTests.failure("ctx:import('Book', '[' .. string.rep('{\"name\": \"b\"},', 1e5) .. '{}]')", in: fixture.lua)
        #expect(text?.message.hasSuffix("not enough memory") == true, "\(text?.message ?? "no error")")
        #expect(try fixture.lua.run("return ctx:count('Book'), ctx:has_changes()", name: "=after") == [0, false])
    }

    @Test func decodingChargesTheValuesOfItsText() throws {
        let fixture = try SandboxTests.Fixture(memory: 16 << 20)
        let error = SandboxTests.failure("return strata.json.decode('[' .. string.rep('0,', 1e6) .. '0]')", in: fixture.lua)
        #expect(error?.message == "attempt:1: not enough memory")
        #expect(try fixture.lua.run("return #strata.json.decode('[' .. string.rep('0,', 1e4) .. '0]')", name: "=small") == [10001])
    }

    // MARK: - Coroutines

    /// The bindings read the coroutine's stack, not the main thread's: these failed with
    /// "context expected, got userdata".
    @Test func coroutinesUseTheWholeAPI() throws {
        let fixture = try ContextBindingTests.Fixture()
        let results = try fixture.run("""
            local co = coroutine.wrap(function(name)
              local book = ctx:create("Book", {name = name, order = 1})
              coroutine.yield(ctx:count("Book"))
              book.rating = 4.5
              ctx:save()
              local fetched = ctx:fetch("Book", "name == %@", name)
              local names = {}
              for b in ctx:each("Book") do names[#names + 1] = b.name end
              return #fetched, fetched[1].rating, table.concat(names, ","), strata.json.encode({n = ctx:count("Book")})
            end)
            local first = co("Solaris")
            return first, co()
            """)
        #expect(results == [1, 1, 4.5, "Solaris", #"{"n":1}"#])
        #expect(try fixture.savedBookNames() == ["Solaris"])
    }

    /// A coroutine cannot yield across Swift: from a function that Swift called, the yield
    /// is an error of the script (which its transaction undoes), never a crash.
    @Test(arguments: [
        "ctx:transaction(function() ctx:create('Book', {name = 'x'}) coroutine.yield() end)",
        "stack:update(function(u) coroutine.yield() end)",
    ])
    func yieldingAcrossSwiftIsAnError(body: String) throws {
        let fixture = try SandboxTests.Fixture()
        let error = SandboxTests.failure("coroutine.wrap(function() \(body) end)()", in: fixture.lua)
        #expect(error?.message.contains("attempt to yield across a C-call boundary") == true, "\(error?.message ?? "no error")")
        #expect(try fixture.lua.run("return ctx:count('Book'), ctx:has_changes()", name: "=after") == [0, false])
    }
}
