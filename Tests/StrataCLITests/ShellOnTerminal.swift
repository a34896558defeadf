import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `strata shell` on a pseudo-terminal, with HOME (its history's folder) at `home`.
final class ShellOnTerminal {
    let terminal: PseudoTerminal
    let process = Process()
    var transcript = ""
    /// Signalled when the shell ends, so that a test waits on the exit itself.
    private let exited = DispatchSemaphore(value: 0)

    init(store: String, home: URL) throws {
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        terminal = try PseudoTerminal()
        process.executableURL = StrataRunner.binary
        process.arguments = ["shell", "--store", store, "--model", LibraryExample.model]
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("STRATA_") }
        environment["HOME"] = home.path
        environment["TERM"] = "dumb"
        process.environment = environment
        process.standardInput = terminal.secondary
        process.standardOutput = terminal.secondary
        process.standardError = terminal.secondary
        process.terminationHandler = { [exited] _ in exited.signal() }
        try process.run()
        transcript = try terminal.read(until: "strata> ")
    }

    deinit { if process.isRunning { process.terminate() } }

    /// Types `keys`, and returns what the terminal shows until `reply`.
    @discardableResult
    func type(_ keys: String, until reply: String = "strata> ") throws -> String {
        try terminal.write(keys)
        let shown = try terminal.read(until: reply)
        transcript += shown
        return shown.replacingOccurrences(of: "\r\n", with: "\n")
    }

    /// Waits (30 seconds at most) for the shell to end; its status, or nil.
    func waitForExit() -> Int32? {
        guard exited.wait(timeout: .now() + 30) == .success else { return nil }
        process.waitUntilExit()
        return process.terminationStatus
    }
}

/// A pseudo-terminal, so that `strata shell` sees a terminal on its standard input.
final class PseudoTerminal {
    let primary: Int32
    let secondary: FileHandle

    init() throws {
        // posix_openpt and ptsname are hidden from Swift: /dev/ptmx and its ioctls instead
        // (TIOCSPTLCK and TIOCGPTN, as asm-generic numbers them).
        primary = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        var unlock: Int32 = 0
        var number: UInt32 = 0
        guard primary >= 0, ioctl(primary, UInt(0x4004_5431), &unlock) == 0, ioctl(primary, UInt(0x8004_5430), &number) == 0 else {
            throw CocoaError(.fileReadUnknown)
        }
        let fd = open("/dev/pts/\(number)", O_RDWR | O_NOCTTY)
        guard fd >= 0 else { throw CocoaError(.fileReadUnknown) }
        secondary = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
    }

    deinit { close(primary) }

    /// Writes `text` once the line editor reads characters as they are typed (it shows its
    /// prompt before it leaves the terminal's line mode, which would echo and keep the text).
    func write(_ text: String) throws {
        let deadline = Date().addingTimeInterval(30)
        var settings = termios()
        while tcgetattr(primary, &settings) == 0, settings.c_lflag & tcflag_t(ICANON) != 0, Date() < deadline {
            // A terminal's mode has no event to wait on: it is polled.
            Thread.sleep(forTimeInterval: 0.01)
        }
        let bytes = Array(text.utf8)
        guard Glibc.write(primary, bytes, bytes.count) == bytes.count else { throw CocoaError(.fileWriteUnknown) }
    }

    /// Writes `text` at once, as a user types an answer to a question read in line mode.
    func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        guard Glibc.write(primary, bytes, bytes.count) == bytes.count else { throw CocoaError(.fileWriteUnknown) }
    }

    /// What the terminal shows up to and including `marker` (within 30 seconds).
    func read(until marker: String) throws -> String {
        var received: [UInt8] = []
        let deadline = Date().addingTimeInterval(30)
        while !String(decoding: received, as: UTF8.self).hasSuffix(marker) {
            guard Date() < deadline else {
                Issue.record("no '\(marker)' in \(String(decoding: received, as: UTF8.self).debugDescription)")
                break
            }
            var poller = pollfd(fd: primary, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) > 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = Glibc.read(primary, &buffer, buffer.count)
            if count <= 0 { break }
            received += buffer[0..<count]
        }
        return String(decoding: received, as: UTF8.self)
    }
}
