import ArgumentParser
import Foundation
import Strata
import StrataLua

/// `strata run`: runs a Lua script on the stack of a store.
struct RunCommand: AsyncParsableCommand, ReadsModelOrStore {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a Lua script on a store.",
        discussion: """
            The script finds the globals ctx (the main context of the store's stack), stack and \
            strata (see the README's Lua section), and its arguments as ... and in the table \
            arg, arg[0] being the script's path, as the lua interpreter gives them; write -- \
            before arguments that begin with a dash. The store is opened with the chosen \
            version of the --model bundle; a store made with another version of it is refused, \
            naming both versions (exit status 3), unless --migrate is given, which migrates it \
            first as strata migrate does, keeping the old store as <store>.<UTC time>.bak. \
            Without --model, a store that keeps its model (Core Data's model cache, or \
            Strata's record) opens with that one. A missing store is an error unless --create \
            is given. With --read-only, the store is opened read-only (SQLite's own flag): \
            nothing is written to it, and a save is an error.

            Changes reach the store only when the script saves them, with ctx:save() or at the \
            end of ctx:transaction(fn): whatever is unsaved when the script ends or fails is \
            discarded.

            Scripts are sandboxed (no io, os, dofile or loadfile unless --allow-io) and stopped \
            when they go beyond --budget, --memory or --timeout (600 seconds unless given): \
            the script fails with an error that pcall cannot catch, and the store keeps what \
            was saved before. Ctrl-C interrupts the \
            script; a second Ctrl-C ends strata at once. On a terminal, a script that runs for \
            a second without writing shows on standard error what runs, for how long and what \
            its saves committed (running seed.lua... 42 s, 3 saves (120,000 objects)); the \
            line is cleared whenever the script writes, and kept off while it reads standard \
            input or runs a command.

            A script that fails prints the error, with the file and line, and its Lua \
            traceback on standard error, and exits with status 1; 2 for a syntax error, 3 when \
            a save breaks the model's rules.
            """)

    @OptionGroup var options: StoreOptions

    @OptionGroup var scriptOptions: ScriptOptions

    @Argument(help: ArgumentHelp("The Lua script.", valueName: "script"), completion: .file(extensions: ["lua"]))
    var script: String

    @Argument(help: ArgumentHelp("Arguments for the script: its ... and arg[1], arg[2]…", valueName: "argument"))
    var arguments: [String] = []

    func validate() throws {
        try scriptOptions.validate(with: options)
    }

    func run() async throws {
        // Read first: a missing script must not create a store.
        let source = try Self.source(ofScript: script)
        let path = script, arguments = arguments
        try await ScriptSession.with(storeOptions: options, scriptOptions: scriptOptions) { session in
            var table: [LuaValue: LuaValue] = [0: .string(path)]
            for (index, argument) in arguments.enumerated() { table[.integer(Int64(index + 1))] = .string(argument) }
            session.lua.setGlobal("arg", .table(table))
            try session.showingActivity("running \(URL(fileURLWithPath: path).lastPathComponent)") {
                try session.run(source, name: "@" + path, arguments: arguments.map(LuaValue.string))
            }
        }
    }

    /// The text of the script at `path`, as Lua reads a file: without a byte-order mark, and
    /// with a first line starting with # (`#!/usr/bin/env …`) left empty.
    static func source(ofScript path: String) throws -> String {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            throw CLIError.unreadableFile(path: path, role: .script, problem: .missing)
        }
        guard !isFolder.boolValue else { throw CLIError.unreadableFile(path: path, role: .script, problem: .folder) }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CLIError.unreadableFile(path: path, role: .script, problem: .unreadable)
        }
        var source = String(decoding: data, as: UTF8.self)
        if source.hasPrefix("\u{FEFF}") { source.removeFirst() }
        if source.hasPrefix("#") {
            source = source.firstIndex(where: \.isNewline).map { String(source[$0...]) } ?? ""
        }
        return source
    }
}
