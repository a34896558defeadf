import Dispatch
import Foundation
import Strata
import StrataLua
import Synchronization

/// Ctrl-C while Lua runs: the first interrupts the running chunk (it fails with
/// "interrupted" within a thousand instructions), a second before it stops ends `strata` as
/// Ctrl-C normally does (for a script stuck in a long query). At the shell's prompt Ctrl-C
/// makes the line editor give up the line (its read fails with EINTR).
///
/// The signal handler only counts and writes a byte to a pipe, both async-signal-safe; a
/// dispatch source reading the pipe calls ``LuaState/interrupt()`` (safe from any thread)
/// while a chunk runs, and ignores the signals that came while none did. The kernel hands
/// the signal to any thread (usually the main thread, which libdispatch keeps waiting for
/// signals); the handler passes it on to the session's thread, whose read it must interrupt.
final class ScriptInterruption: @unchecked Sendable {
    private let lua: LuaState
    /// Whether a chunk runs.
    private let running = Locked(false)
    private let source: DispatchSourceRead
    private let pipeReadEnd: Int32
    private var previous = sigaction()

    /// Starts handling SIGINT for `lua`; ``stop()`` restores the handler there was.
    init(lua: LuaState) throws {
        self.lua = lua
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw CLIError.unavailable(.interruptHandling(errno: errno)) }
        for fd in fds {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
        pipeReadEnd = fds[0]
        source = DispatchSource.makeReadSource(fileDescriptor: fds[0], queue: DispatchQueue(label: "strata.interrupt"))
        source.setEventHandler { [weak self] in self?.drainPipe() }
        let ends = (fds[0], fds[1])
        source.setCancelHandler {
            close(ends.0)
            close(ends.1)
        }
        source.resume()
        interruptPipe.store(fds[1], ordering: .sequentiallyConsistent)
        sessionThread.store(Int(bitPattern: pthread_self()), ordering: .sequentiallyConsistent)
        // Threads that libdispatch or Swift concurrency start (and those they start) block
        // signals; this one must take SIGINT.
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        pthread_sigmask(SIG_UNBLOCK, &signals, nil)
        var action = sigaction()
        action.__sigaction_handler.sa_handler = handleInterrupt
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0  // no SA_RESTART: the line editor's read must fail with EINTR
        sigaction(SIGINT, &action, &previous)
    }

    /// Restores the SIGINT handler there was and closes the pipe (once its reader is done).
    func stop() {
        sigaction(SIGINT, &previous, nil)
        interruptPipe.store(-1, ordering: .sequentiallyConsistent)
        sessionThread.store(0, ordering: .sequentiallyConsistent)
        source.cancel()
    }

    /// Runs `body` (which runs a chunk) as the chunk Ctrl-C interrupts.
    func whileRunning<T, Failure: Error>(_ body: () throws(Failure) -> T) throws(Failure) -> T {
        interruptCount.store(0, ordering: .sequentiallyConsistent)
        interruptArmed.store(true, ordering: .sequentiallyConsistent)
        running.withLock { $0 = true }
        defer {
            interruptArmed.store(false, ordering: .sequentiallyConsistent)
            // An interruption the chunk did not see (it ended first) is dropped by the next run.
            running.withLock { $0 = false }
        }
        return try body()
    }

    private func drainPipe() {
        var bytes = [UInt8](repeating: 0, count: 64)
        while read(pipeReadEnd, &bytes, bytes.count) > 0 {}
        running.withLock { running in
            if running { lua.interrupt() }
        }
    }
}

/// The write end of the pipe the SIGINT handler writes to, or -1.
private let interruptPipe = Atomic<Int32>(-1)
/// The thread that runs the session (the shell's reads, the chunks), or 0.
private let sessionThread = Atomic<Int>(0)
/// Whether a chunk runs, and the Ctrl-C presses since it started.
private let interruptArmed = Atomic<Bool>(false)
private let interruptCount = Atomic<Int>(0)

/// The SIGINT handler: async-signal-safe (atomics, pthread_self, pthread_kill, write, signal, raise).
private let handleInterrupt: @convention(c) (Int32) -> Void = { number in
    let saved = errno
    defer { errno = saved }
    let session = sessionThread.load(ordering: .sequentiallyConsistent)
    if session != 0, Int(bitPattern: pthread_self()) != session {
        _ = pthread_kill(pthread_t(bitPattern: session), number)
        return
    }
    if interruptArmed.load(ordering: .sequentiallyConsistent), interruptCount.add(1, ordering: .sequentiallyConsistent).newValue >= 2 {
        // The chunk did not stop after the first: end as Ctrl-C does without a handler, taking
        // the status line away first (exit handlers do not run).
        if StatusLine.isShown.load(ordering: .sequentiallyConsistent) {
            let clear: StaticString = "\r\u{1B}[K"
            _ = write(STDERR_FILENO, clear.utf8Start, clear.utf8CodeUnitCount)
        }
        signal(number, SIG_DFL)
        raise(number)
        return
    }
    let fd = interruptPipe.load(ordering: .sequentiallyConsistent)
    guard fd >= 0 else { return }
    var byte: UInt8 = 1
    _ = write(fd, &byte, 1)
}
