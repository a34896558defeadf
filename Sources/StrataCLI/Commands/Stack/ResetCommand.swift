import ArgumentParser
import Foundation
import Strata

/// `strata reset`: removes a store's files and starts it empty.
struct ResetCommand: AsyncParsableCommand, ReadsModelOrStore {
    static let configuration = CommandConfiguration(
        commandName: "reset",
        abstract: "Remove every object of a store: delete its files and create it empty.",
        discussion: """
            Replaces the store with an empty one for the model: the store file, its -wal, -shm \
            and -journal, and its external data folder go, and the files removed are listed. On \
            a terminal it asks first; otherwise --yes is required. A store made with another \
            model is refused (exit status 3). Without --model, the store's own model is kept: \
            the one Core Data wrote in its model cache, or Strata in its metadata.

            The reset is crash-safe: the empty store is made beside the old one and renamed over \
            it, so that a reset killed at any moment leaves the old store or the new one, and a \
            reset run again succeeds. It needs the store to itself: while another connection \
            has it open (an app, another strata) it waits --busy-timeout, then refuses (exit \
            status 1), naming the process where the system tells it, and changes nothing.
            """)

    @OptionGroup var options: StoreOptions

    @Flag(help: "Reset without asking.")
    var yes = false

    func validate() throws {
        if options.readOnly { throw ValidationError("reset rewrites the store; --read-only cannot be used with it") }
    }

    func run() async throws {
        let path = try options.requireStorePath()
        guard FileManager.default.fileExists(atPath: path) else { throw CLIError.noSuchStore(path: path, remedy: .passStore) }
        let stack = try options.modelPath == nil ? options.openStackWithStoresModel() : options.openStack()
        if !yes {
            guard isatty(STDIN_FILENO) == 1 else {
                throw CLIError.needsConfirmation(.reset(path: path))
            }
            FileHandle.standardError.write(Data("Remove every object in \(path) (its file, -wal and -shm)? [y/N] ".utf8))
            guard let answer = readLine(), ["y", "yes"].contains(answer.lowercased()) else {
                throw CLIError.declined(.reset(path: path))
            }
        }
        for file in try stack.resetStore() { print("removed \(file)") }
        print("created an empty store at \(path) (UUID \(stack.store.metadata.uuid))")
        stack.cleanUp()
    }
}
