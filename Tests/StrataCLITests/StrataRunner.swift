import Foundation
import StrataTestSupport

/// Runs the built `strata` binary as a user would, capturing what it prints and its status.
struct StrataRunner {
    struct Result {
        var status: Int32
        var standardOutput: String
        var standardError: String
    }

    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The bundled example's model, relative to the repository root (where commands run).
    static let exampleModel = "examples/Library/Library.xcdatamodeld"

    static let sharedFixtures = repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared/fixtures/coredata")
    static let fixturesAvailable = FileManager.default.fileExists(atPath: sharedFixtures.path)

    /// Whether the tests, and so the `strata` beside them, are built with ThreadSanitizer.
    static let isThreadSanitized = dlsym(nil, "__tsan_init") != nil

    /// The `strata` binary beside the test bundle in the build folder.
    static let binary: URL = {
        let buildFolder = Bundle.main.bundleURL.pathExtension == "xctest"
            ? Bundle.main.bundleURL.deletingLastPathComponent() : Bundle.main.bundleURL
        return buildFolder.appendingPathComponent("strata")
    }()

    /// Runs `strata arguments…` in `directory` (the repository root by default) with
    /// `environment` added to a clean environment (no STRATA_* variables from the caller), and
    /// `input` on standard input. With a `launcher` (`["/bin/sh", "-c", "ulimit -f 64; exec
    /// \"$0\" \"$@\""]`), runs `launcher… strata arguments…` instead, for limits set on the process.
    static func run(
        _ arguments: [String], environment: [String: String] = [:], input: Data? = nil, launcher: [String] = [], in directory: URL? = nil
    ) throws -> Result {
        let process = Process()
        process.executableURL = launcher.first.map(URL.init(fileURLWithPath:)) ?? binary
        process.arguments = launcher.isEmpty ? arguments : Array(launcher.dropFirst()) + [binary.path] + arguments
        process.currentDirectoryURL = directory ?? repositoryRoot
        var inherited = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("STRATA_") }
        inherited.merge(environment) { $1 }
        process.environment = inherited
        let temporary = try TemporaryFolder("strata-run")
        let folder = temporary.url
        let outURL = folder.appendingPathComponent("out"), errURL = folder.appendingPathComponent("err")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: outURL)
        process.standardError = try FileHandle(forWritingTo: errURL)
        if let input {
            let inURL = folder.appendingPathComponent("in")
            _ = FileManager.default.createFile(atPath: inURL.path, contents: input)
            process.standardInput = try FileHandle(forReadingFrom: inURL)
        } else {
            process.standardInput = FileHandle.nullDevice
        }
        try process.run()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus,
            standardOutput: String(decoding: try Data(contentsOf: outURL), as: UTF8.self),
            standardError: String(decoding: try Data(contentsOf: errURL), as: UTF8.self))
    }
}
