import Foundation

/// The pager a table goes through on a terminal, as `git` and `psql` page theirs:
/// `$STRATA_PAGER`, else `$PAGER`, else `less` (with `LESS=FRX` unless set: it quits at once
/// when the table fits the screen, and leaves the table on it). An empty pager, `cat`, or one
/// that cannot be found prints straight to the terminal.
final class Pager {
    private let pid: pid_t

    private init(_ pid: pid_t) {
        self.pid = pid
    }

    /// Starts the pager and sends standard output through it, when standard output is a
    /// terminal and a pager is found; `nil` otherwise.
    static func start() -> Pager? {
        guard isatty(STDOUT_FILENO) == 1 else { return nil }
        var environment = ProcessInfo.processInfo.environment
        let command = (environment["STRATA_PAGER"] ?? environment["PAGER"] ?? "less").trimmingCharacters(in: .whitespaces)
        guard let program = command.split(separator: " ").first.map(String.init), program != "cat", ExecutablePath.find(program) != nil else { return nil }
        if environment["LESS"] == nil { environment["LESS"] = "FRX" }
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { return nil }
        let (readEnd, writeEnd) = (ends[0], ends[1])
        guard let pid = spawnInOwnProcessGroup(["/bin/sh", "-c", command], environment: environment, standardInput: readEnd, closing: writeEnd) else {
            close(readEnd)
            close(writeEnd)
            return nil
        }
        close(readEnd)
        fflush(nil)
        dup2(writeEnd, STDOUT_FILENO)
        close(writeEnd)
        return Pager(pid)
    }

    /// Ends the output, then waits for the user to leave the pager: also when the command
    /// fails part-way, so that no pager is left holding the terminal.
    deinit {
        fflush(nil)
        close(STDOUT_FILENO)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1, errno == EINTR {}
    }

    /// Runs `arguments` with `standardInput` as its standard input, in strata's own process
    /// group. Foundation's `Process` starts a child in a group of its own, which is not the
    /// terminal's foreground group: a pager that reads the keyboard (`less` waiting for `q`)
    /// was stopped by SIGTTIN at once, and `strata fetch` on a terminal hung (regression).
    private static func spawnInOwnProcessGroup(
        _ arguments: [String], environment: [String: String], standardInput: Int32, closing other: Int32
    ) -> pid_t? {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, standardInput, STDIN_FILENO)
        posix_spawn_file_actions_addclose(&actions, standardInput)
        posix_spawn_file_actions_addclose(&actions, other)
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, arguments[0], &actions, nil, argv, envp) == 0 else { return nil }
        return pid
    }
}
