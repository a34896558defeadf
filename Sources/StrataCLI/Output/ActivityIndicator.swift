import Foundation
import Synchronization

/// The status line (``StatusLine``) of a long step: what it is doing, for how long, and what
/// `details` says of its progress (`running seed.lua... 12 s, 3 saves (120,000 objects)`), so
/// that a command that works for minutes does not look hung. Nothing is shown when standard
/// error is not a terminal.
final class ActivityIndicator: Sendable {
    private let isRunning = Atomic<Bool>(true)

    /// Shows `message` after `delay` seconds (at once by default), then every second its
    /// elapsed seconds and `details()` when that is not `nil`, until ``stop()``. `details` is
    /// called from another thread.
    init(_ message: String, after delay: Double = 0, details: @escaping @Sendable () -> String? = { nil }) {
        let started = Date()
        if delay == 0 { update(message + "...") }
        Thread.detachNewThread { [weak self] in
            while let self, self.isRunning.load(ordering: .sequentiallyConsistent) {
                Thread.sleep(forTimeInterval: 0.1)
                let seconds = Date().timeIntervalSince(started)
                guard seconds >= max(delay, 1) else { continue }
                self.update("\(message)... \(Int(seconds)) s" + (details().map { ", " + $0 } ?? ""))
            }
        }
    }

    /// Clears the line, before the command prints what it did.
    func stop() {
        guard isRunning.exchange(false, ordering: .sequentiallyConsistent) else { return }
        StatusLine.standardError.clear()
    }

    deinit { stop() }

    private func update(_ text: String) {
        StatusLine.standardError.show { isRunning.load(ordering: .sequentiallyConsistent) ? text : nil }
    }
}
