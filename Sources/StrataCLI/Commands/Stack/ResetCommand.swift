import ArgumentParser
import Foundation
import Strata

/// `strata reset`: removes a store's files and starts it empty.
struct ResetCommand: AsyncParsableCommand, ReadsModelOrStore {
    static let configuration = CommandConfiguration(
        commandName: "reset",
        abstract: "Remove every object of a store: delete its files and create it empty.",
        discussion: """
            Removes the store file, its -wal, -shm and -journal, and its external data folder, \
            then creates an empty store for the model, and lists the files removed. On a terminal \
            it asks first; otherwise --yes is required. A store made with another model is \
            refused (exit status 3). Without --model, the store's own model is kept: the one \
            Core Data wrote in its model cache, or Strata in its metadata.
            """)

    @OptionGroup var options: StoreOptions

    @Flag(help: "Reset without asking.")
    var yes = false

    func validate() throws {
        if options.readOnly { throw ValidationError("reset rewrites the store; --read-only cannot be used with it") }
    }

    func run() async throws {
        guard let path = options.storePath, FileManager.default.fileExists(atPath: path) else {
            throw CLIError("\(options.storePath ?? "no store given"): no such store; pass --store PATH", status: options.storePath == nil ? .usage : .failure)
        }
        let stack = try options.modelPath == nil ? options.openStackWithStoresModel() : options.openStack()
        if !yes {
            guard isatty(STDIN_FILENO) == 1 else {
                throw CLIError("reset removes every object in \(path); pass --yes to confirm", status: .usage)
            }
            FileHandle.standardError.write(Data("Remove every object in \(path) (its file, -wal and -shm)? [y/N] ".utf8))
            guard let answer = readLine(), ["y", "yes"].contains(answer.lowercased()) else {
                throw CLIError("\(path) was not reset")
            }
        }
        for file in try stack.resetStore() { print("removed \(file)") }
        print("created an empty store at \(path) (UUID \(stack.store.metadata.uuid))")
        stack.cleanUp()
    }
}
