import ArgumentParser
import Foundation
import Strata

/// How `strata import --format` names the ways records are written: json, ndjson, csv.
extension StreamingImport.Format: ExpressibleByArgument {}

/// How an import goes, on standard error when it is a terminal: the records imported, the rate,
/// and for a file of known size how far it has come and about how long is left.
struct ImportProgress {
    private let isShown = isatty(STDERR_FILENO) == 1
    private var count = 0
    private var lastShown = Date.distantPast
    private let started = Date()
    /// The file being read and its size, when known (not for standard input or a pipe).
    private var file: (name: String, size: Int)?

    /// Shows how far `progress` has come, at most five times a second.
    mutating func show(_ progress: StreamingImport.Progress) {
        count = progress.recordsImported
        file = progress.sourceSize.map { (progress.source, $0) }
        guard Date().timeIntervalSince(lastShown) > 0.2 else { return }
        lastShown = Date()
        let line = line(bytesRead: progress.bytesRead)
        StatusLine.standardError.show { line }
    }

    func finish() {
        guard isShown, count > 0 else { return }
        let summary = "imported \(count.formatted()) records in \(Self.duration(Date().timeIntervalSince(started)))\n"
        StatusLine.standardError.writing(to: .standardError) { FileHandle.standardError.write(Data(summary.utf8)) }
    }

    /// `imported 120,000 records, 45% of 51 MB, 38,000 records/s, about 12 s left`.
    func line(bytesRead: Int, now: Date = Date()) -> String {
        let elapsed = max(now.timeIntervalSince(started), 0.001)
        var parts = ["imported \(count.formatted()) records"]
        if let file, bytesRead > 0 {
            let fraction = min(1, Double(bytesRead) / Double(file.size))
            parts.append("\(Int(fraction * 100))% of \(ByteCountFormatter.string(fromByteCount: Int64(file.size), countStyle: .file))")
            parts.append("\(Int(Double(count) / elapsed).formatted()) records/s")
            if fraction > 0.01, fraction < 1 { parts.append("about \(Self.duration(elapsed / fraction - elapsed)) left") }
        } else {
            parts.append("\(Int(Double(count) / elapsed).formatted()) records/s")
        }
        return parts.joined(separator: ", ")
    }

    private static func duration(_ seconds: Double) -> String {
        seconds < 60 ? "\(Int(seconds.rounded(.up))) s" : "\(Int(seconds / 60)) min \(Int(seconds.truncatingRemainder(dividingBy: 60))) s"
    }
}
