import Foundation
import Strata
import Testing

#if canImport(Glibc)
import Glibc
import StrataTestSupport
#endif

/// What the crash-safety and concurrent-process suites share: their sizes, a `strata` process
/// that can be killed part-way, a model and records made for them, and the checks on a store.
///
/// By default the sizes are small enough for every `swift test`; `STRATA_STRESS=full` (as
/// `scripts/stress` sets it) gives the sizes of the issue: 100,000 records, 20 kill points per
/// operation, 4 × 1,000 updates. `STRATA_STRESS_REPORT=PATH` appends what each run saw to PATH.
enum StressHarness {
    // MARK: - Sizes

    /// Whether the full-size run was asked for.
    static let isFull = ProcessInfo.processInfo.environment["STRATA_STRESS"] == "full"
    /// Records an import brings, and objects a bulk edit or a migration goes through.
    static let recordCount = isFull ? 100_000 : 2_000
    /// Moments at which each operation is killed: one at random in each of as many equal
    /// slices of its uninterrupted run.
    static let killPoints = isFull ? 25 : 4
    /// Updating processes, and the increments each makes.
    static let updaters = 4
    static let increments = isFull ? 1_000 : 50
    /// Records the importer brings while the updaters run.
    static let concurrentRecords = isFull ? 20_000 : 1_000

    // MARK: - Report

    /// Prints `line` and appends it to `STRATA_STRESS_REPORT` when set: the results
    /// `scripts/stress` prints at its end.
    static func report(_ line: String) {
        print("stress: \(line)")
        guard let path = ProcessInfo.processInfo.environment["STRATA_STRESS_REPORT"] else { return }
        let data = Data((line + "\n").utf8)
        if let handle = FileHandle(forWritingAtPath: path) {
            handle.seekToEndOfFile()
            handle.write(data)
            try? handle.close()
        } else {
            _ = FileManager.default.createFile(atPath: path, contents: data)
        }
    }

    // MARK: - The model

    /// `Stress.xcdatamodeld` in `folder`: version `Stress` with `Group` (groupID, name, items),
    /// `Item` (itemID, name, value, group) and `Counter` (name, value); version `Stress 2`
    /// (current) adds `Item.note` with a default and widens `Item.value` to Integer 64.
    static func bundle(in folder: TemporaryFolder) throws -> String {
        let bundle = folder.url.appendingPathComponent("Stress.xcdatamodeld")
        for (version, valueType, note) in [
            ("Stress", "Integer 32", ""),
            ("Stress 2", "Integer 64", #"<attribute name="note" attributeType="String" defaultValueString="none"/>"#),
        ] {
            let contents = """
                <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
                <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" minimumToolsVersion="Automatic" sourceLanguage="Swift">
                    <entity name="Counter" representedClassName="Counter" syncable="YES">
                        <attribute name="name" attributeType="String"/>
                        <attribute name="value" attributeType="Integer 64" defaultValueString="0" usesScalarValueType="YES"/>
                        <uniquenessConstraints><uniquenessConstraint><constraint value="name"/></uniquenessConstraint></uniquenessConstraints>
                    </entity>
                    <entity name="Group" representedClassName="Group" syncable="YES">
                        <attribute name="groupID" attributeType="Integer 64" defaultValueString="0" usesScalarValueType="YES"/>
                        <attribute name="name" optional="YES" attributeType="String"/>
                        <relationship name="items" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Item" inverseName="group" inverseEntity="Item"/>
                        <uniquenessConstraints><uniquenessConstraint><constraint value="groupID"/></uniquenessConstraint></uniquenessConstraints>
                    </entity>
                    <entity name="Item" representedClassName="Item" syncable="YES">
                        <attribute name="itemID" attributeType="Integer 64" defaultValueString="0" usesScalarValueType="YES"/>
                        <attribute name="name" optional="YES" attributeType="String"/>
                        <attribute name="value" attributeType="\(valueType)" defaultValueString="0" usesScalarValueType="YES"/>\(note)
                        <relationship name="group" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Group" inverseName="items" inverseEntity="Group"/>
                        <uniquenessConstraints><uniquenessConstraint><constraint value="itemID"/></uniquenessConstraint></uniquenessConstraints>
                    </entity>
                </model>
                """
            let versionFolder = bundle.appendingPathComponent("\(version).xcdatamodel")
            try FileManager.default.createDirectory(at: versionFolder, withIntermediateDirectories: true)
            try contents.write(to: versionFolder.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
        }
        try ModelBundle.writeCurrentVersionMarker(in: bundle, versionName: "Stress 2")
        return bundle.path
    }

    /// NDJSON records of `count` items from `first`, each with its group nested (a group per
    /// 100 items), the values `value(itemID)`.
    static func items(count: Int, from first: Int = 1, value: (Int) -> Int = { $0 % 1000 }) -> Data {
        var text = ""
        text.reserveCapacity(count * 90)
        for id in first..<(first + count) {
            text += #"{"itemID": \#(id), "name": "item \#(id)", "value": \#(value(id)), "group": {"groupID": \#(id / 100), "name": "group \#(id / 100)"}}"# + "\n"
        }
        return Data(text.utf8)
    }

    // MARK: - Running strata

    /// Runs `strata arguments…` to its end and expects it to succeed.
    @discardableResult
    static func succeed(_ arguments: [String], input: Data? = nil, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws -> StrataRunner.Result {
        let result = try StrataRunner.run(arguments, input: input)
        #expect(result.status == 0, "strata \(arguments.joined(separator: " ")): \(result.standardError)", sourceLocation: sourceLocation)
        return result
    }

    /// A copy of the store at `path` (its file, and its `-wal` when there is one) at `copy`.
    static func copyStore(_ path: String, to copy: String) throws {
        for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: copy + suffix) }
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        if FileManager.default.fileExists(atPath: path + "-wal") { try FileManager.default.copyItem(atPath: path + "-wal", toPath: copy + "-wal") }
    }
}

/// A `strata` process started without waiting for it, which may be killed at any moment.
/// Whatever happens to the test, ``deinit`` kills and reaps it, and its output files go with
/// its folder.
final class SpawnedStrata {
    private let process = Process()
    private let folder: TemporaryFolder
    private var isReaped = false

    /// Starts `strata arguments…` in the repository root, standard input from `input`.
    init(_ arguments: [String], input: Data? = nil) throws {
        folder = try TemporaryFolder()
        process.executableURL = StrataRunner.binary
        process.arguments = arguments
        process.currentDirectoryURL = StrataRunner.repositoryRoot
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("STRATA_") }
        let out = folder.url.appendingPathComponent("out"), err = folder.url.appendingPathComponent("err")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        if let input {
            let inURL = folder.url.appendingPathComponent("in")
            _ = FileManager.default.createFile(atPath: inURL.path, contents: input)
            process.standardInput = try FileHandle(forReadingFrom: inURL)
        } else {
            process.standardInput = FileHandle.nullDevice
        }
        try process.run()
    }

    deinit {
        if !isReaped {
            _ = Glibc.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// Sends SIGKILL (when the process still runs) and waits for its end. Returns whether the
    /// process had already ended on its own.
    @discardableResult
    func kill() -> Bool {
        let ended = !process.isRunning
        if !ended { _ = Glibc.kill(process.processIdentifier, SIGKILL) }
        _ = finish()
        return ended && process.terminationReason == .exit
    }

    /// Waits for the process to end; its status (for a killed process, the signal).
    @discardableResult
    func finish() -> Int32 {
        process.waitUntilExit()
        isReaped = true
        return process.terminationStatus
    }

    /// Whether it ended by a signal rather than by exiting.
    var wasKilled: Bool { process.terminationReason == .uncaughtSignal }

    var standardOutput: String { (try? String(contentsOf: folder.url.appendingPathComponent("out"), encoding: .utf8)) ?? "" }
    var standardError: String { (try? String(contentsOf: folder.url.appendingPathComponent("err"), encoding: .utf8)) ?? "" }
}

extension Duration {
    /// The duration in seconds, for a report.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
