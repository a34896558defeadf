import Foundation
import Strata
import Testing
#if canImport(Glibc)
import Glibc
import StrataTestSupport
#endif

/// `strata shell` on a terminal (a pseudo-terminal): tab completion, multi-line input, `=`
/// and the dot-commands; and its dot-commands through a pipe. On a store of the example
/// Library (2 authors, 3 books, 2 pages, 2 tags).
@Suite struct ShellCommandTests {
    let folder: TemporaryFolder
    let store: String

    init() throws {
        folder = try TemporaryFolder()
        store = try LibraryExample.importedStore(at: folder.path("Library.sqlite"))
    }

    private static let hasTerminals = FileManager.default.fileExists(atPath: "/dev/ptmx")

    private func count(_ entity: String) throws -> String {
        let result = try StrataRunner.run(["count", entity, "--store", store, "--model", LibraryExample.model])
        #expect(result.status == 0, "\(result.standardError)")
        return result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test(.enabled(if: hasTerminals, "no /dev/ptmx: the terminal test is skipped"))
    func tabCompletesGlobalsMethodsEntitiesAndAttributes() throws {
        let shell = try ShellOnTerminal(store: store, home: folder.url.appendingPathComponent("home"))
        // A global: stri → strata (the line that runs is `strata ~= nil`).
        #expect(try shell.type("stri\t ~= nil\r").contains("true\nstrata> "), "\(shell.transcript)")
        // A method of ctx: fe → fetch (fetch and fetch_or_create share it).
        #expect(try shell.type("ctx:fe\t('Tag', {sort = {'name'}})[2].name\r").contains("fantasy\nstrata> "), "\(shell.transcript)")
        // An entity: "Bo → "Book.
        #expect(try shell.type("ctx:count(\"Bo\t\")\r").contains("3\nstrata> "), "\(shell.transcript)")
        // An object's attribute: book.ti → book.title.
        try shell.type("book = ctx:first('Book', {sort = {'title'}})\r")
        #expect(try shell.type("book.ti\t\r").contains("A Wizard of Earthsea\nstrata> "), "\(shell.transcript)")
        // Ambiguous: ctx:co lists commit and count, and the line stays as typed.
        let listed = try shell.type("ctx:co\t", until: "strata> ctx:co")
        #expect(listed.contains("commit  count"), "\(listed.debugDescription)")
        #expect(try shell.type("unt('Tag')\r").contains("2\nstrata> "), "\(shell.transcript)")
        try shell.terminal.write("\u{4}")
        #expect(shell.waitForExit() == 0, "\(shell.transcript)")
    }

    @Test(.enabled(if: hasTerminals, "no /dev/ptmx: the terminal test is skipped"))
    func multiLineInputEqualsAndDotCommandsOnATerminal() throws {
        let shell = try ShellOnTerminal(store: store, home: folder.url.appendingPathComponent("home"))
        // A chunk over several lines, and = for a value.
        try shell.type("local function twice(x)\r", until: ">> ")
        try shell.type("return 2 * x\r", until: ">> ")
        #expect(try shell.type("end print(twice(21))\r").contains("42\nstrata> "), "\(shell.transcript)")
        #expect(try shell.type("= 1 + 1, 'two'\r").contains("2\ntwo\nstrata> "), "\(shell.transcript)")
        // Regression: a fetch's result printed as table: 0x…, and an object as <Tag p1 fault>.
        let fetched = try shell.type("ctx:fetch('Tag', {sort = {'name'}})\r")
        #expect(fetched.contains("<Tag p2 {name=\"classic\"}>\n<Tag p1 {name=\"fantasy\"}>\n(2 items)\nstrata> "), "\(fetched)")
        #expect(try shell.type("ctx:first('Tag', 'name == %@', 'classic')\r").contains("<Tag p2 {name=\"classic\"}>\nstrata> "), "\(shell.transcript)")
        #expect(try shell.type("ctx:query('Tag', {select = {'name'}, sort = {'name'}})\r").contains("{name = \"classic\"}\n{name = \"fantasy\"}\n(2 items)\n"), "\(shell.transcript)")
        try shell.type("= 'con' ..\r", until: ">> ")
        #expect(try shell.type("'tinued'\r").contains("continued\nstrata> "), "\(shell.transcript)")
        #expect(try shell.type("ctx:count('Page')\r").contains("2\nstrata> "), "\(shell.transcript)")
        #expect(try shell.type(".5\r").contains("0.5\nstrata> "), "a number is not a command")

        let help = try shell.type(".help\r")
        #expect(help.contains(".describe ENTITY") && help.contains(".count ENTITY [PREDICATE]") && help.contains("ctx:fetch"), "\(help)")
        let entities = try shell.type(".entities\r")
        #expect(entities.contains("Author  2\n") && entities.contains("Book    3\n") && entities.contains("Tag     2\n"), "\(entities)")
        let book = try shell.type(".describe Book\r")
        #expect(book.contains("title") && book.contains("String") && book.contains("required"), "\(book)")
        #expect(book.contains("-> Author") && book.contains("to-one") && book.contains("-> Page") && book.contains("to-many"), "\(book)")
        let unknown = try shell.type(".describe Bok\r")
        #expect(unknown.contains("strata: the model has no entity 'Bok'"), "\(unknown)")
        #expect(try shell.type(".count Book\r").contains("3\nstrata> "))
        #expect(try shell.type(".count Book rating > 4.6\r").contains("2\nstrata> "), "\(shell.transcript)")
        let badPredicate = try shell.type(".count Book rating >\r")
        #expect(badPredicate.contains("strata: "), "\(badPredicate)")
        #expect(!badPredicate.contains("traceback"), "\(badPredicate)")
        let badEntity = try shell.type(".count Bok\r")
        // One line, without the place in the shell's own chunk or a Lua traceback.
        #expect(badEntity.contains("\nstrata: the model has no entity 'Bok'"), "\(badEntity)")
        #expect(!badEntity.contains("traceback") && !badEntity.contains(".count:1"), "\(badEntity)")
        #expect(badEntity.split(separator: "\n").filter { $0.hasPrefix("strata: ") }.count == 1, "\(badEntity)")
        #expect(try shell.type(".nothing\r").contains("strata: no command .nothing (.help lists them)"))
        // Tab completes dot-commands and their entities.
        #expect(try shell.type(".ent\t\r").contains("Page    2\n"), "\(shell.transcript)")
        #expect(try shell.type(".count Ta\t\r").contains("2\nstrata> "), "\(shell.transcript)")

        // .rollback discards, .save saves.
        try shell.type("ctx:create('Tag', {name = 'dropped'})\r")
        try shell.type(".rollback\r")
        #expect(try shell.type("ctx:count('Tag')\r").contains("2\nstrata> "))
        try shell.type("ctx:create('Tag', {name = 'kept'})\r")
        try shell.type(".save\r")
        try shell.terminal.write(".quit\r")
        #expect(shell.waitForExit() == 0, "\(shell.transcript)")
        #expect(try count("Tag") == "3")
    }

    /// Regression: piped input refused dot-commands. The Lua between them runs as one chunk,
    /// its locals reaching its end, and errors name the input's own lines.
    @Test func dotCommandsRunBetweenChunksInAPipe() throws {
        let input = "local before = 'before'\nprint(before)\n.count Book\nprint('after')\n"
        let result = try StrataRunner.run(["shell", "--store", store, "--model", LibraryExample.model], input: Data(input.utf8))
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput == "before\n3\nafter\n")
        let failing = try StrataRunner.run(
            ["shell", "--store", store, "--model", LibraryExample.model], input: Data("print('one')\n.count Book\n\nerror('two')\nprint('three')\n".utf8))
        #expect(failing.status == 1)
        #expect(failing.standardOutput == "one\n3\n")
        #expect(failing.standardError.hasPrefix("strata: stdin:4: two\n"), "\(failing.standardError)")
    }
}
