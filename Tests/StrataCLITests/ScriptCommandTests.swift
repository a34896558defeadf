import Foundation
import Strata
import StrataTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `strata run`, `eval` and `shell` on a store of the example Library (imported from
/// library.json: 2 authors, 3 books, 2 pages, 2 tags), as a user runs them. Those where
/// `strata` runs threads of its own are in ``ScriptConcurrencyTests``.
@Suite struct ScriptCommandTests: ScriptCommandTesting {
    let folder: TemporaryFolder
    let store: String

    init() throws {
        (folder, store) = try Self.libraryStore()
    }

    // MARK: - run

    @Test func runPrintsWhatTheExampleReportFetches() throws {
        let result = try strata(["run", "examples/Library/report.lua"])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput == """
            J. R. R. Tolkien (2 books)
              The Lord of the Rings        4.9
              The Hobbit                   4.7
            Ursula K. Le Guin (1 books)
              A Wizard of Earthsea         4.5

            """)
        #expect(result.standardError.isEmpty)
    }

    /// The demo runs whole on the built binary (scripts/run takes it from STRATA_BINARY), and
    /// echoes each command as it can be typed again. Regression: its echoes lost their quotes.
    @Test func theDemoRunsAndEchoesCommandsAsTheyCanBeTyped() throws {
        let demo = Process()
        demo.executableURL = URL(fileURLWithPath: "/bin/bash")
        demo.arguments = [StrataRunner.repositoryRoot.appendingPathComponent("scripts/demo").path]
        demo.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("STRATA_") }
            .merging(["STRATA_BINARY": StrataRunner.binary.path]) { $1 }
        let output = Pipe()
        (demo.standardOutput, demo.standardError) = (output, output)
        try demo.run()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        demo.waitUntilExit()
        #expect(demo.terminationStatus == 0, "\(printed)")
        let query = "scripts/run query Book --select 'author.name as author, count(*) as books, avg(rating) as mean' --group-by author.name --model examples/Library/Library.xcdatamodeld --store out/Library.sqlite"
        #expect(printed.contains("\n$ \(query)\n"), "\(printed)")
        #expect(printed.contains("\n$ scripts/run import Author examples/Library/library-update.json --prune --model examples/Library/Library.xcdatamodeld --store out/Library.sqlite\n"))
        #expect(printed.hasSuffix("A Wizard of Earthsea         4.5\n"), "\(printed)")
        // Regression: the commands shown ran only with the STRATA_MODEL and STRATA_STORE the
        // demo set. Typed again as shown, in an environment without them, one prints what it printed.
        let again = Process()
        again.executableURL = URL(fileURLWithPath: "/bin/bash")
        again.arguments = ["-c", query]
        again.currentDirectoryURL = StrataRunner.repositoryRoot
        again.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("STRATA_") }
            .merging(["STRATA_BINARY": StrataRunner.binary.path]) { $1 }
        let againOutput = Pipe()
        again.standardOutput = againOutput
        try again.run()
        let repeated = String(decoding: againOutput.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        again.waitUntilExit()
        #expect(again.terminationStatus == 0)
        #expect(!repeated.isEmpty && printed.contains("\n$ \(query)\n" + repeated), "\(repeated)")
    }

    @Test func argumentsArriveInArgAndAsVarargs() throws {
        let path = try script("args.lua", """
            #!/usr/bin/env strata run
            print(#arg, arg[0], arg[1], arg[2], arg[3])
            print(select("#", ...), ...)
            """)
        let result = try StrataRunner.run(["run", path, "one", "--store", store, "--model", LibraryExample.model, "two words", "--", "-3"])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput == "3\t\(path)\tone\ttwo words\t-3\n3\tone\ttwo words\t-3\n")
    }

    @Test func changesAreSavedOnlyWhenTheScriptSaves() throws {
        let saving = try script("save.lua", """
            local book = ctx:first("Book", "title == %@", "The Hobbit")
            book.rating = 3.5
            ctx:create("Tag", {name = "kept"})
            ctx:save()
            ctx:create("Tag", {name = "unsaved"})
            """)
        let saved = try strata(["run", saving])
        #expect(saved.status == 0, "\(saved.standardError)")
        #expect(saved.standardError == "warn the script's unsaved changes were discarded: ctx:save() saves them\n")
        #expect(try count("Tag") == "3")
        #expect(try savedState().contains("The Hobbit,3.5"))

        let inTransaction = try strata(["eval", "ctx:transaction(function() ctx:create('Tag', {name = 'committed'}) end)"])
        #expect(inTransaction.status == 0 && inTransaction.standardError.isEmpty, "\(inTransaction.standardError)")
        let before = try savedState()
        #expect(before.contains("committed"))

        let unsaved = try strata(["run", try script("nosave.lua", "ctx:first('Book').rating = 1\nctx:create('Tag', {name = 'lost'})\nprint(ctx:has_changes())\n")])
        #expect(unsaved.status == 0, "\(unsaved.standardError)")
        #expect(unsaved.standardOutput == "true\n")
        #expect(unsaved.standardError.contains("unsaved changes were discarded"))
        #expect(try savedState() == before)
    }

    @Test func aScriptThatFailsSaysWhereWithATracebackAndSavesNothing() throws {
        let before = try savedState()
        let path = try script("fail.lua", """
            local book = ctx:first("Book", {sort = {"title"}})
            book.rating = 0.5
            local function check(b) if b.rating < 1 then error("rating too low: " .. b.title) end end
            check(book)
            """)
        let result = try strata(["run", path])
        #expect(result.status == 1)
        #expect(result.standardOutput.isEmpty)
        let name = luaName(path)
        #expect(result.standardError == """
            strata: \(name):3: rating too low: A Wizard of Earthsea
            stack traceback:
            \t[C]: in function 'error'
            \t\(name):3: in local 'check'
            \t\(name):4: in main chunk

            """)
        #expect(try savedState() == before)

        // A save the model's rules refuse is a data error (3), raised where the script saved.
        let invalid = try strata(["run", try script("invalid.lua", "ctx:create('Book', {title = 'No ISBN'})\nctx:save()\n")])
        #expect(invalid.status == 3, "\(invalid.standardError)")
        #expect(invalid.standardError.hasPrefix("strata: \(luaName(folder.url.appendingPathComponent("invalid.lua").path)):2: "), "\(invalid.standardError)")
        #expect(try savedState() == before)
    }

    @Test func aSyntaxErrorNamesTheFileAndLine() throws {
        let path = try script("syntax.lua", "print('fine')\nlocal x = = 1\n")
        let result = try strata(["run", path])
        #expect(result.status == 2)
        #expect(result.standardOutput.isEmpty, "nothing runs")
        #expect(result.standardError == "strata: \(luaName(path)):2: unexpected symbol near '='\n")
    }

    @Test func aMissingScriptIsNamedAndNoStoreIsCreated() throws {
        let missing = folder.url.appendingPathComponent("missing.lua").path
        let newStore = folder.url.appendingPathComponent("New.sqlite").path
        let result = try StrataRunner.run(["run", missing, "--store", newStore, "--model", LibraryExample.model])
        #expect(result.status == 1)
        #expect(result.standardError == "strata: cannot read the script \(missing): no such file\n")
        #expect(!FileManager.default.fileExists(atPath: newStore))
        let folderResult = try strata(["run", folder.url.path])
        #expect(folderResult.standardError == "strata: cannot read the script \(folder.url.path): it is a folder\n")
    }

    // MARK: - eval

    @Test func evalTakesPredicatesBuiltFromArguments() throws {
        let result = try strata(["eval", """
            return ctx:count("Book", {where = "%K.%K BEGINSWITH %@", args = {"author", "name", "J"}}),
              ctx:count("Book", {where = "FUNCTION(title, %@) > %d", args = {"length", 12}})
            """])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput == "2\n2\n")
    }

    /// Regression: `eval` printed `table: 0x7f…` for a table and `<Book p1 fault>` for an
    /// object; it shows them as the shell does, and strings and numbers still as they are.
    @Test func evalShowsTablesAndObjectsByTheirValues() throws {
        let result = try strata(["eval", #"ctx:first("Book", "title == %@", "The Hobbit"), {1, "two"}, "plain", 3"#])
        #expect(result.status == 0, "\(result.standardError)")
        let lines = result.standardOutput.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(!result.standardOutput.contains("0x") && !result.standardOutput.contains("fault"), "\(result.standardOutput)")
        #expect(lines.first?.contains("The Hobbit") == true, "\(result.standardOutput)")
        #expect(lines.suffix(3) == ["plain", "3", ""], "\(result.standardOutput)")
        #expect(result.standardOutput.contains("\"two\""), "\(result.standardOutput)")
    }

    @Test func evalOnAStoreThatKeepsItsModelNeedsNoModelOption() throws {
        let result = try StrataRunner.run(["eval", "return ctx:count('Book', {where = \"FUNCTION(title, 'length') > 10\"})", "--store", store])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput == "2\n")
        let created = try StrataRunner.run(["eval", "return 1", "--create", "--store", folder.url.appendingPathComponent("new.sqlite").path])
        #expect(created.status == 2)
        #expect(created.standardError.hasPrefix("strata: no model given: pass --model PATH or set STRATA_MODEL"), "\(created.standardError)")
    }

    @Test func evalPrintsTheValuesOfAnExpressionOrWhatStatementsReturn() throws {
        let expression = try strata(["eval", "ctx:count('Book')"])
        #expect(expression.status == 0, "\(expression.standardError)")
        #expect(expression.standardOutput == "3\n")
        let values = try strata(["eval", "ctx:first('Tag', {sort = {'name'}}).name, nil, 1.5, {} ~= nil"])
        #expect(values.standardOutput == "classic\nnil\n1.5\ntrue\n")
        let statements = try strata(["eval", "local n = 0 for b in ctx:each('Book') do n = n + #b.pages end print('pages') return n, n * 2"])
        #expect(statements.standardOutput == "pages\n2\n4\n")
        let nothing = try strata(["eval", "local x = 1"])
        #expect(nothing.status == 0 && nothing.standardOutput.isEmpty)
        let syntax = try strata(["eval", "x = = 1"])
        #expect(syntax.status == 2)
        #expect(syntax.standardError == "strata: eval:1: unexpected symbol near '='\n")
        let failure = try strata(["eval", "ctx:fetch('Bok')"])
        #expect(failure.status == 1)
        #expect(failure.standardError.hasPrefix("strata: eval:1: the model has no entity 'Bok' (did you mean 'Book'?)\nstack traceback:\n"), "\(failure.standardError)")
    }

    @Test func scriptsAreSandboxedUnlessUnsafe() throws {
        let sandboxed = try strata(["eval", "io, os, dofile, loadfile"])
        #expect(sandboxed.status == 0, "\(sandboxed.standardError)")
        #expect(sandboxed.standardOutput == "nil\nnil\nnil\nnil\n")
        let unsafe = try strata(["eval", "--allow-io", "io.write('written\\n') print('printed') return type(os.time())"])
        #expect(unsafe.status == 0, "\(unsafe.standardError)")
        #expect(unsafe.standardOutput == "written\nprinted\nnumber\n", "io.write and print share standard output, in order")
    }

    @Test func theInstructionBudgetAndMemoryCeilingStopAScript() throws {
        let loop = try strata(["eval", "--budget", "100000", "local n = 0 while true do n = n + 1 end"])
        #expect(loop.status == 1)
        #expect(loop.standardError.hasPrefix(
            "strata: eval:1: instruction budget exceeded (100000 instructions); raise it with --budget N, or 0 for no limit\nstack traceback:\n"),
            "\(loop.standardError)")
        let unlimited = try strata(["eval", "--budget", "0", "local n = 0 for i = 1, 200000 do n = n + i end return n"])
        #expect(unlimited.standardOutput == "20000100000\n", "\(unlimited.standardError)")
        let memory = try strata(["eval", "--memory", "8", "local t = {} for i = 1, 1e7 do t[i] = string.rep('x', 100) .. i end"])
        #expect(memory.status == 1)
        #expect(memory.standardError.contains("not enough memory (the limit is 8 MB; raise it with --memory MB, or 0 for no limit)"), "\(memory.standardError)")
        for bad in [["--budget", "-1"], ["--memory", "-5"], ["--timeout", "-1"], ["--timeout", "nan"]] {
            let refused = try strata(["eval"] + bad + ["1"])
            #expect(refused.status == 2, "\(bad)")
            #expect(refused.standardError.contains(bad[0]), "\(refused.standardError)")
        }
    }

    /// Garbage collection costs the budget little for its time, and a script may catch errors:
    /// the time limit ends it all the same, with the store as it was.
    @Test func theTimeLimitStopsWhatTheBudgetDoesNotCount() throws {
        let before = try savedState()
        let path = try script("collect.lua", "ctx:create('Tag', {name = 'unsaved'})\nwhile true do pcall(function() while true do collectgarbage() end end) end\n")
        let result = try strata(["run", "--budget", "0", "--timeout", "1", path])
        #expect(result.status == 1)
        #expect(result.standardError.hasPrefix(
            "strata: \(luaName(path)):2: time limit exceeded (1 s); raise it with --timeout SECONDS, or 0 for no limit\nstack traceback:\n"),
            "\(result.standardError)")
        #expect(try savedState() == before)
    }

    @Test(.disabled(if: StrataRunner.isThreadSanitized, "ThreadSanitizer runs a signal's handler only at a call it intercepts, which a running Lua loop never makes"))
    func ctrlCInterruptsTheScript() throws {
        // `ready` and the loop share a line: the interrupt can land just after `print` wrote it,
        // before the loop starts, and the traceback must name the same line either way.
        let path = try script("loop.lua", "ctx:create('Tag', {name = 'never'})\nprint('ready') while true do end\n")
        let output = Pipe(), errors = folder.url.appendingPathComponent("err")
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        let process = Process()
        process.executableURL = StrataRunner.binary
        // No budget: on a loaded machine (or under a sanitizer) the default one could end the
        // loop before the interrupt arrives.
        process.arguments = ["run", path, "--store", store, "--model", LibraryExample.model, "--budget", "0"]
        process.standardOutput = output
        process.standardError = try FileHandle(forWritingTo: errors)
        process.standardInput = FileHandle.nullDevice
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        // The interrupt goes once the script has printed `ready` (or ended early): its output is
        // read until then, with a limit in case it prints nothing.
        let ready = DispatchSemaphore(value: 0)
        let reader = output.fileHandleForReading
        DispatchQueue.global().async {
            var shown = ""
            while !shown.contains("ready\n") {
                let chunk = reader.availableData
                if chunk.isEmpty { break }
                shown += String(decoding: chunk, as: UTF8.self)
            }
            ready.signal()
        }
        if ready.wait(timeout: .now() + 30) == .timedOut { Issue.record("the script printed no `ready` within 30 s") }
        process.interrupt()
        if exited.wait(timeout: .now() + 60) == .timedOut {
            Issue.record("the script did not stop within 60 s of the interrupt")
            kill(process.processIdentifier, SIGKILL)
        }
        process.waitUntilExit()
        let message = try String(contentsOf: errors, encoding: .utf8)
        #expect(process.terminationReason == .exit && process.terminationStatus == 1, "\(message)")
        #expect(message.hasPrefix("strata: ") && message.contains("interrupted\nstack traceback:\n"), "\(message)")
        #expect(message.hasSuffix("\t\(luaName(path)):2: in main chunk\n"), "\(message)")
        #expect(try count("Tag") == "2")
    }

    // MARK: - shell

    @Test func theShellRunsStandardInputAsAScriptWhenItIsNotATerminal() throws {
        let result = try strata(["shell"], input: Data("""
            local tags = {}
            for tag in ctx:each("Tag", {sort = {"name"}}) do tags[#tags + 1] = tag.name end
            print(table.concat(tags, ", "))
            ctx:create("Tag", {name = "piped"})
            ctx:save()

            """.utf8))
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput == "classic, fantasy\n")
        #expect(try count("Tag") == "3")

        let failing = try strata(["shell"], input: Data("print('before')\nerror('stop here')\n".utf8))
        #expect(failing.status == 1)
        #expect(failing.standardOutput == "before\n")
        #expect(failing.standardError.hasPrefix("strata: stdin:2: stop here\nstack traceback:\n"), "\(failing.standardError)")
    }
}
