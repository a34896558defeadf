import Foundation

// MARK: - Timing

/// The times of one contender over the rounds of a case.
struct Timings {
    private(set) var seconds: [Double] = []
    /// The processor time the process spent in each run (all its threads): what a loaded
    /// machine stretches far less than the elapsed time.
    private(set) var processorSeconds: [Double] = []

    /// The median of ``processorSeconds``.
    var processorMedian: Double {
        let sorted = processorSeconds.sorted()
        guard !sorted.isEmpty else { return .nan }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    var median: Double {
        let sorted = seconds.sorted()
        guard !sorted.isEmpty else { return .nan }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// Runs `body` once and records how long it took.
    @discardableResult
    mutating func time<T>(_ body: () throws -> T) rethrows -> T {
        let start = ContinuousClock.now, processorStart = Self.processorTime()
        let result = try body()
        let elapsed = ContinuousClock.now - start
        seconds.append(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        processorSeconds.append(Self.processorTime() - processorStart)
        return result
    }

    private static func processorTime() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    mutating func record(_ elapsed: Double) {
        seconds.append(elapsed)
    }
}

// MARK: - Results

/// One line of the table: Strata's median against a baseline's median from the same run.
struct CaseResult {
    var number: String
    var title: String
    var strata: Double
    var baselineName: String
    var baseline: Double
    /// The goal, as a ratio Strata's time must stay under (or a speed-up it must reach).
    var goal: Goal
    var peakMemory: Int?
    /// The most resident memory Strata may take, in bytes.
    var memoryLimit: Int?
    var note: String = ""

    enum Goal {
        /// Strata's time ≤ this many times the baseline's.
        case atMost(Double)
        /// The baseline's time ≥ this many times Strata's.
        case fasterBy(Double)
        /// Only reported.
        case none
    }

    var ratio: Double { strata / baseline }

    var isMet: Bool? {
        let withinMemory = memoryLimit.map { limit in (peakMemory ?? .max) <= limit }
        let withinTime: Bool? = switch goal {
        case .atMost(let limit): ratio <= limit
        case .fasterBy(let factor): baseline / strata >= factor
        case .none: nil
        }
        guard let withinTime else { return withinMemory }
        return withinTime && withinMemory != false
    }

    var goalText: String {
        let time = switch goal {
        case .atMost(let limit): "≤ \(format(limit))×"
        case .fasterBy(let factor): "≥ \(format(factor))× faster"
        case .none: ""
        }
        return ([time] + [memoryLimit.map { "≤ \($0 / 1_048_576) MB" }].compactMap { $0 }).filter { !$0.isEmpty }.joined(separator: ", ")
    }
}

/// Prints the results as a Markdown table, the form BENCHMARKS.md records.
func printTable(_ results: [CaseResult]) {
    let header = ["#", "case", "Strata", "baseline", "baseline time", "ratio", "goal", "met", "peak RSS", "note"]
    let rows = results.map { result -> [String] in
        [result.number, result.title, seconds(result.strata), result.baselineName, seconds(result.baseline),
         "\(format(result.ratio))×", result.goalText, result.isMet.map { $0 ? "yes" : "NO" } ?? "",
         result.peakMemory.map { "\($0 / 1_048_576) MB" } ?? "", result.note]
    }
    print("| " + header.joined(separator: " | ") + " |")
    print("|" + header.map { _ in "---" }.joined(separator: "|") + "|")
    for row in rows { print("| " + row.joined(separator: " | ") + " |") }
}

func seconds(_ value: Double) -> String {
    value < 1 ? "\(format(value * 1000)) ms" : "\(format(value)) s"
}

func format(_ value: Double) -> String {
    String(format: value < 10 ? "%.2f" : "%.1f", value)
}

// MARK: - Child processes

/// What a command did: its time, its peak resident memory (when measured) and its output.
struct CommandRun {
    var seconds: Double
    var peakMemory: Int?
    /// The output, unless the command was run without keeping it.
    var output: String
    /// The number of lines of the output.
    var lineCount: Int
    /// When the line the run waited for came, in seconds from the start.
    var firstLineSeconds: Double?
}

struct CommandFailure: Error, CustomStringConvertible {
    var description: String
}

/// Runs `executable` with `arguments`, its standard output captured, and measures its wall time
/// and, with `measuresMemory`, its peak resident set; with `timesLine`, when that line of its
/// output (1 for the first) came; without `keepsOutput`, only the output's lines are counted.
/// A status not among `exitStatuses` is a failure.
///
/// The peak is the kernel's high-water mark of the process's own memory (`VmHWM` in
/// `/proc/PID/status`), read every 5 ms while it runs. Its `ru_maxrss` would not do: a child
/// that `posix_spawn` starts shares this process's memory until it executes, and Linux keeps
/// that high-water mark across the exec, so a small command started from a big benchmark
/// would seem as big as the benchmark.
func runCommand(
    _ executable: String, _ arguments: [String], measuresMemory: Bool = false, timesLine: Int? = nil, keepsOutput: Bool = true,
    exitStatuses: Set<Int32> = [0]
) throws -> CommandRun {
    let pipe = Pipe()
    var actions: posix_spawn_file_actions_t = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, pipe.fileHandleForWriting.fileDescriptor, 1)
    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var pid: pid_t = 0
    let start = ContinuousClock.now
    let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ)
    guard spawned == 0 else { throw CommandFailure(description: "cannot start \(executable): \(String(cString: strerror(spawned)))") }
    let peak = measuresMemory ? PeakMemoryWatch(pid: pid) : nil
    try? pipe.fileHandleForWriting.close()
    var data = Data(), lineCount = 0, firstLineSeconds: Double?
    while case let chunk = pipe.fileHandleForReading.availableData, !chunk.isEmpty {
        lineCount += chunk.reduce(0) { $0 + ($1 == 10 ? 1 : 0) }
        if firstLineSeconds == nil, let line = timesLine, lineCount >= line { firstLineSeconds = seconds(since: start) }
        if keepsOutput { data.append(chunk) }
    }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    let elapsed = seconds(since: start)
    // A command may succeed with another status (strata diff's 1: the stores differ).
    let exited = status & 0x7F == 0 ? (status >> 8) & 0xFF : -1
    guard exitStatuses.contains(exited) else {
        throw CommandFailure(description: "\(([executable] + arguments).joined(separator: " ")) failed (status \(status))")
    }
    return CommandRun(
        seconds: elapsed, peakMemory: peak?.stop(), output: String(decoding: data, as: UTF8.self), lineCount: lineCount,
        firstLineSeconds: firstLineSeconds)
}

private func seconds(since start: ContinuousClock.Instant) -> Double {
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

/// Reads a running process's memory high-water mark until stopped.
private final class PeakMemoryWatch: @unchecked Sendable {
    private let lock = NSLock()
    private var peak = 0
    private var isStopped = false
    private let finished = DispatchSemaphore(value: 0)

    init(pid: pid_t) {
        let path = "/proc/\(pid)/status"
        Thread.detachNewThread { [self] in
            while !lock.withLock({ isStopped }) {
                if let bytes = Self.highWaterMark(path) { lock.withLock { peak = max(peak, bytes) } }
                usleep(5_000)
            }
            finished.signal()
        }
    }

    /// The highest mark read, in bytes.
    func stop() -> Int {
        lock.withLock { isStopped = true }
        finished.wait()
        return lock.withLock { peak }
    }

    private static func highWaterMark(_ path: String) -> Int? {
        guard let status = try? String(contentsOfFile: path, encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "")
        else { return nil }
        return kilobytes * 1024
    }
}
