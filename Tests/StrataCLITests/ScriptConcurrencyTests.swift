import Foundation
import Testing
import StrataTestSupport

/// The script commands where `strata` runs threads of its own: worker and update contexts
/// beside the script's main-queue context, and the status line a long run shows on a terminal.
/// They run under ThreadSanitizer (Package.swift's `threadedSuites`, which is why they are not
/// in ``ScriptCommandTests``: there a sanitized `strata` would only make the other tests slower).
@Suite struct ScriptConcurrencyTests: ScriptCommandTesting {
    let folder: TemporaryFolder
    let store: String

    init() throws {
        (folder, store) = try Self.libraryStore()
    }

    @Test func workerAndUpdateContextsSaveThroughTheMainContext() throws {
        // The workers' saves go through ctx (the main-queue context) while the script holds
        // the main queue: they must call back into it inline, not wait for it.
        let result = try strata(["eval", """
            stack:background(function(worker) worker:create("Tag", {name = "background"}) end)
            stack:update(function(update) update:create("Tag", {name = "update"}) update:save() end)
            stack:update(function(update) update:create("Tag", {name = "discarded"}) end)
            return ctx:count("Tag"), ctx:has_changes()
            """])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput == "4\nfalse\n")
        #expect(try savedState().hasSuffix("name\nbackground\nclassic\nfantasy\nupdate\n"))
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/dev/ptmx"), "no /dev/ptmx: the terminal test is skipped"))
    func aLongRunOnATerminalSaysWhatItDoesAndClearsTheLineBeforeTheScriptWrites() throws {
        let path = try script("long.lua", Self.busyWait + """
            ctx:fetch("Book", { sort = { "title" } })[1].rating = 1
            ctx:save()
            print("saved")
            wait(2.5)
            io.write("half ")
            wait(1.5)
            print("done")
            """)
        let (terminal, process) = try runOnATerminal(path)
        let shown = try terminal.read(until: "done\r\n")
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(shown.debugDescription)")
        // Regression: a long script showed nothing. After a second without output, the line
        // says what runs, for how long, and what its saves committed…
        let status = try #require(shown.range(of: "saved\r\n\rrunning long.lua... "), "\(shown.debugDescription)")
        #expect(shown[status.upperBound...].contains(" s, 1 save (1 object)\u{1B}[K"), "\(shown.debugDescription)")
        // …and is cleared before the script writes, and not drawn over a line left open.
        #expect(shown.hasSuffix("\r\u{1B}[Khalf done\r\n"), "\(shown.debugDescription)")
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/dev/ptmx"), "no /dev/ptmx: the terminal test is skipped"))
    func theStatusLineStaysOffWhileTheScriptReadsOrRunsACommandAndGoesWhenItExits() throws {
        let path = try script("ask.lua", Self.busyWait + """
            print("name?")
            local name = io.read()
            os.execute("sleep 1.5")
            print("hello " .. name)
            wait(1.6)
            os.exit(0)
            """)
        let (terminal, process) = try runOnATerminal(path)
        var shown = try terminal.read(until: "name?\r\n")
        // The wait is the subject: the status line appears after a second without output, and
        // must not while the script reads.
        Thread.sleep(forTimeInterval: 1.6)
        try terminal.send("bob\n")
        shown += try terminal.read(until: "hello bob\r\n")
        // Regression: the status was drawn over what the user typed, and next to a command's output.
        #expect(!shown.contains("running"), "\(shown.debugDescription)")
        // os.exit leaves no status behind: the last thing written clears it (regression: the
        // activity indicator drew it again while exit handlers ran).
        let rest = terminal.readUntilExit(of: process)
        #expect(process.terminationStatus == 0)
        #expect(rest.contains("\rrunning ask.lua... "), "\(rest.debugDescription)")
        #expect(rest.hasSuffix("\r\u{1B}[K"), "\(rest.debugDescription)")
    }

    /// `wait(seconds)`: a script busy for at least `seconds` of the wall clock (at most one more),
    /// without handing the terminal to a command. Not `os.clock()`: that counts the process's
    /// processor time, which on a loaded machine (a sanitizer's CI run) went by at a fraction of
    /// the wall clock's pace, and the run outlasted the test's 30 s wait (regression).
    private static let busyWait = """
        local function wait(seconds) local finish = os.time() + math.ceil(seconds) + 1 while os.time() < finish do end end

        """

    /// `strata run SCRIPT --allow-io` on a pseudo-terminal.
    private func runOnATerminal(_ path: String) throws -> (PseudoTerminal, Process) {
        let terminal = try PseudoTerminal()
        let process = Process()
        process.executableURL = StrataRunner.binary
        process.arguments = ["run", path, "--allow-io", "--store", store, "--model", LibraryExample.model]
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("STRATA_") }
        (process.standardInput, process.standardOutput, process.standardError) = (terminal.secondary, terminal.secondary, terminal.secondary)
        try process.run()
        return (terminal, process)
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/dev/ptmx"), "no /dev/ptmx: the terminal test is skipped"))
    func theShellOnATerminalPrintsValuesAsksForMoreAndGoesOnAfterErrors() throws {
        let home = folder.url.appendingPathComponent("home")
        let shell = try ShellOnTerminal(store: store, home: home)
        for (line, reply) in [
            ("ctx:count('Book')", "strata> "), ("for i = 1, 2 do", ">> "), ("print(i * 10)", ">> "), ("end", "strata> "),
            ("error('oops')", "strata> "), ("ctx:first('Tag', {sort = {'name'}}).name, 42", "strata> "),
        ] {
            try shell.type(line + "\r", until: reply)
        }
        try shell.terminal.write("\u{4}")
        let transcript = shell.transcript
        guard let status = shell.waitForExit() else {
            Issue.record("the shell did not end on Ctrl-D: \(transcript.debugDescription)")
            return
        }
        #expect(status == 0)
        let lines = transcript.replacingOccurrences(of: "\r\n", with: "\n")
        #expect(lines.contains("3\nstrata> "), "\(lines)")
        #expect(lines.contains(">> end\n10\n20\nstrata> "), "\(lines)")
        #expect(lines.contains("strata: stdin:1: oops\nstack traceback:\n\t[C]: in function 'error'\n"), "\(lines)")
        #expect(lines.contains("classic\n42\nstrata> "), "\(lines)")
        let history = try String(contentsOf: home.appendingPathComponent(".strata_history"), encoding: .utf8)
        #expect(history.contains("ctx:count('Book')"), "\(history)")
        // Regression: a chunk of several lines was kept line by line; it is one entry (libedit
        // writes spaces and line breaks as \040 and \012).
        #expect(history.split(separator: "\n").contains(#"for\040i\040=\0401,\0402\040do\012print(i\040*\04010)\012end"#), "\(history)")
    }
}
