import Foundation
import Synchronization

/// Ctrl-C during a command that writes in one transaction (an import): the first asks it to
/// stop after the batch it is writing, roll back and say so; a second ends `strata` at once, as
/// Ctrl-C normally does. Either way the store is as it was: the transaction never commits.
enum CommandInterruption {
    /// Starts listening for Ctrl-C on the threads that take signals.
    static func start() {
        // The message is made here: the handler may only write bytes made before.
        _ = interruptedMessage.count
        var action = sigaction()
        action.__sigaction_handler.sa_handler = handleCommandInterrupt
        sigemptyset(&action.sa_mask)
        sigaction(SIGINT, &action, nil)
    }

    /// Fails when Ctrl-C was pressed since ``start()``: the caller's transaction rolls back.
    static func check() throws {
        guard interruptRequested.load(ordering: .sequentiallyConsistent) else { return }
        throw CLIError.importInterrupted
    }
}

private let interruptRequested = Atomic<Bool>(false)
private let interruptedMessage = Array("\nstrata: interrupted: rolling back after this batch (Ctrl-C again to quit at once)\n".utf8)

/// The SIGINT handler: async-signal-safe (an atomic, write, signal).
private let handleCommandInterrupt: @convention(c) (Int32) -> Void = { _ in
    let saved = errno
    defer { errno = saved }
    interruptRequested.store(true, ordering: .sequentiallyConsistent)
    _ = signal(SIGINT, SIG_DFL)
    interruptedMessage.withUnsafeBytes { _ = write(STDERR_FILENO, $0.baseAddress, $0.count) }
}
