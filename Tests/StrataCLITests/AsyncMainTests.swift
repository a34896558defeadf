import Foundation
import Testing

/// Every context API driven from a program whose `async` main has suspended, where Linux runs
/// the main queue on a worker thread (`Tests/AsyncMainProbe`): once a trap in libdispatch
/// (SIGILL, a `sync` onto the main queue from the thread that was running it).
@Suite struct AsyncMainTests {
    static let probe = StrataRunner.binary.deletingLastPathComponent().appendingPathComponent("AsyncMainProbe")

    static let scenarios = [
        "main-performAndWait-commit", "worker-performAndWait-commit", "worker-async-perform-commit", "worker-perform-commit",
        "worker-inside-main-performAndWait", "commit-wait", "commit-completion", "beginUpdateAndWait-use", "beginUpdate-completion",
        "nested-update", "serial-nested-updateAndWait", "serial-updateAndWait-commit", "save-inBackground", "view-context-save", "batch-context-save",
    ]

    @Test(arguments: scenarios)
    func everyAPIWorksFromTheMainActorAndADetachedTaskInEachTopology(_ scenario: String) throws {
        let process = Process()
        process.executableURL = Self.probe
        process.arguments = [StrataRunner.repositoryRoot.appendingPathComponent("examples/Library/Library.xcdatamodeld").path, scenario]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 0, "\(printed)")
        let expected = ["three-tier", "two-tier"].flatMap { topology in
            ["main-actor", "detached"].map { caller in "\(scenario) \(caller) \(topology): ok" }
        }
        #expect(Set(printed.split(separator: "\n").map(String.init)) == Set(expected), "\(printed)")
    }
}
