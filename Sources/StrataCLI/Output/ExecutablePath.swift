import Foundation

/// Finds the programs strata runs (a pager, Graphviz's `dot`) as a shell would.
enum ExecutablePath {
    /// `program` when it is a path to an executable, else the first executable of that name
    /// on `$PATH`; `nil` when there is none.
    static func find(_ program: String) -> String? {
        if program.contains("/") { return FileManager.default.isExecutableFile(atPath: program) ? program : nil }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(program)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
