import Foundation
import Strata
import Testing
import StrataTestSupport

/// What `eval` and the shell print of a long list: a screenful (--max-items, 50) and how many
/// more, never megabytes; --format json the whole value. On a store of the example Library
/// with 120 more tags (122).
@Suite struct ScriptOutputTests {
    let folder: TemporaryFolder
    let store: String

    init() throws {
        folder = try TemporaryFolder()
        store = try LibraryExample.importedStore(at: folder.path("Library.sqlite"))
        let tagged = try eval(["for i = 1, 120 do ctx:create('Tag', {name = string.format('t%03d', i)}) end ctx:save()"])
        #expect(tagged.status == 0, "\(tagged.standardError)")
    }

    private func eval(_ arguments: [String]) throws -> StrataRunner.Result {
        try StrataRunner.run(["eval"] + arguments + ["--store", store, "--model", LibraryExample.model])
    }

    @Test func aLongListShowsAScreenfulAndHowManyMore() throws {
        let result = try eval(["ctx:fetch('Tag', {sort = {'name'}})"])
        #expect(result.status == 0, "\(result.standardError)")
        let lines = result.standardOutput.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 50 + 3, "\(result.standardOutput)")
        #expect(lines[0].hasPrefix("<Tag ") && lines[0].contains("name=\"classic\""), "\(lines[0])")
        #expect(lines[50] == "… 72 more" && lines[51] == "(122 items)" && lines[52].isEmpty, "\(result.standardOutput)")

        let few = try eval(["--max-items", "3", "local t = {} for i = 1, 200000 do t[i] = i end return t"])
        #expect(few.standardOutput == "1\n2\n3\n… 199,997 more\n(200,000 items)\n", "\(few.standardOutput)")
        let all = try eval(["--max-items", "0", "ctx:fetch('Tag')"])
        #expect(all.standardOutput.split(separator: "\n").count == 122 + 1, "\(all.standardOutput)")
        // A table inside a value is cut as well.
        let nested = try eval(["--max-items", "2", "{list = {1, 2, 3, 4}}"])
        #expect(nested.standardOutput == "{list = {1, 2, … 2 more}}\n", "\(nested.standardOutput)")
        // A script sets its own limit.
        let set = try eval(["strata.list_limit = 1 return {10, 20}"])
        #expect(set.standardOutput == "10\n… 1 more\n(2 items)\n", "\(set.standardOutput)")

        let negative = try eval(["--max-items", "-1", "1"])
        #expect(negative.status == 2 && negative.standardError.contains("--max-items must be"), "\(negative.standardError)")
    }

    @Test func jsonPrintsTheWholeValue() throws {
        let result = try eval(["--format", "json", "ctx:fetch('Tag', {sort = {'name'}})"])
        #expect(result.status == 0, "\(result.standardError)")
        let tags = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [[String: Any]])
        #expect(tags.count == 122)
        #expect(tags.first?["name"] as? String == "classic")
        let several = try eval(["--format", "json", "1, 'two', {three = 3}"])
        #expect(several.standardOutput.filter { !$0.isWhitespace } == #"[1,"two",{"three":3}]"#, "\(several.standardOutput)")
        let none = try eval(["--format", "json", "local x = 1"])
        #expect(none.status == 0 && none.standardOutput.isEmpty)
    }

    private static let hasTerminals = FileManager.default.fileExists(atPath: "/dev/ptmx")

    @Test(.enabled(if: hasTerminals, "no /dev/ptmx: the terminal test is skipped"))
    func theShellOnATerminalShowsAScreenful() throws {
        let shell = try ShellOnTerminal(store: store, home: folder.url.appendingPathComponent("home"))
        let shown = try shell.type("ctx:fetch('Tag')\r")
        #expect(shown.contains("\n… 72 more\n(122 items)\nstrata> "), "\(shown)")
        #expect(shown.split(separator: "\n").filter { $0.hasPrefix("<Tag ") }.count == 50, "\(shown)")
        try shell.type("strata.list_limit = 0\r")
        let whole = try shell.type("ctx:fetch('Tag')\r")
        #expect(whole.split(separator: "\n").filter { $0.hasPrefix("<Tag ") }.count == 122, "\(whole)")
        try shell.terminal.write("\u{4}")
        #expect(shell.waitForExit() == 0, "\(shell.transcript)")
    }
}
