import Foundation

/// The pager a table goes through on a terminal, as `git` and `psql` page theirs:
/// `$STRATA_PAGER`, else `$PAGER`, else `less` (with `LESS=FRX` unless set: it quits at once
/// when the table fits the screen, and leaves the table on it). An empty pager, `cat`, or one
/// that cannot be found prints straight to the terminal.
final class Pager {
    private let process: Process

    private init(_ process: Process) {
        self.process = process
    }

    /// Starts the pager and sends standard output through it, when standard output is a
    /// terminal and a pager is found; `nil` otherwise.
    static func start() -> Pager? {
        guard isatty(STDOUT_FILENO) == 1 else { return nil }
        var environment = ProcessInfo.processInfo.environment
        let command = (environment["STRATA_PAGER"] ?? environment["PAGER"] ?? "less").trimmingCharacters(in: .whitespaces)
        guard let program = command.split(separator: " ").first.map(String.init), program != "cat", isFound(program) else { return nil }
        if environment["LESS"] == nil { environment["LESS"] = "FRX" }
        let pipe = Pipe()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        process.environment = environment
        process.standardInput = pipe.fileHandleForReading
        do { try process.run() } catch { return nil }
        fflush(nil)
        dup2(pipe.fileHandleForWriting.fileDescriptor, STDOUT_FILENO)
        try? pipe.fileHandleForWriting.close()
        try? pipe.fileHandleForReading.close()
        return Pager(process)
    }

    /// Ends the output, then waits for the user to leave the pager: also when the command
    /// fails part-way, so that no pager is left holding the terminal.
    deinit {
        fflush(nil)
        close(STDOUT_FILENO)
        process.waitUntilExit()
    }

    /// Whether `program` is a path to an executable, or one on `$PATH`.
    private static func isFound(_ program: String) -> Bool {
        if program.contains("/") { return FileManager.default.isExecutableFile(atPath: program) }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").contains { FileManager.default.isExecutableFile(atPath: "\($0)/\(program)") }
    }
}
