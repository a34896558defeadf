import Foundation
import Testing
#if canImport(Glibc)
import Glibc
import StrataTestSupport
#endif

extension StrataRunner {
    /// Runs `strata arguments` with standard output on a pseudo-terminal `columns` wide (as a
    /// user's terminal is), standard error in a file; what the terminal showed has its line
    /// ends as `\n`.
    static func runOnTerminal(_ arguments: [String], columns: UInt16) throws -> Result {
        let terminal = try PseudoTerminal()
        try terminal.resize(columns: columns, rows: 24)
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        process.currentDirectoryURL = repositoryRoot
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("STRATA_") }
        let temporary = try TemporaryFolder("strata-run")
        let folder = temporary.url
        let errURL = folder.appendingPathComponent("err")
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = terminal.secondary
        process.standardError = try FileHandle(forWritingTo: errURL)
        try process.run()
        let shown = terminal.readUntilExit(of: process)
        return Result(
            status: process.terminationStatus,
            standardOutput: shown.replacingOccurrences(of: "\r\n", with: "\n"),
            standardError: String(decoding: try Data(contentsOf: errURL), as: UTF8.self))
    }
}

extension PseudoTerminal {
    /// Sets the terminal's size, which a program reads with `TIOCGWINSZ`.
    func resize(columns: UInt16, rows: UInt16) throws {
        var size = winsize(ws_row: rows, ws_col: columns, ws_xpixel: 0, ws_ypixel: 0)
        guard ioctl(primary, UInt(TIOCSWINSZ), &size) == 0 else { throw CocoaError(.fileWriteUnknown) }
    }

    /// What the terminal shows until `process` ends (within 60 seconds) and all it wrote is read.
    func readUntilExit(of process: Process) -> String {
        var received: [UInt8] = []
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            let running = process.isRunning
            var poller = pollfd(fd: primary, events: Int16(POLLIN), revents: 0)
            if poll(&poller, 1, 100) > 0 {
                var buffer = [UInt8](repeating: 0, count: 4096)
                let count = Glibc.read(primary, &buffer, buffer.count)
                if count <= 0 { break }
                received += buffer[0..<count]
            } else if !running {
                break
            }
        }
        if process.isRunning {
            Issue.record("strata did not end: \(String(decoding: received, as: UTF8.self).debugDescription)")
            process.terminate()
        }
        process.waitUntilExit()
        return String(decoding: received, as: UTF8.self)
    }
}
