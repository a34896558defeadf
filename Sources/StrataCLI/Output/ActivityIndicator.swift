import Foundation
import Synchronization

/// A line on standard error, when it is a terminal, that says what a long step is doing and
/// for how long (`deleting Book objects... 12 s`), so that a command that works for minutes
/// does not look hung. The line is cleared when the step ends.
final class ActivityIndicator: Sendable {
    private let isShown: Bool
    private let isRunning = Atomic<Bool>(true)

    /// Shows `message` at once and its elapsed seconds every second, until ``stop()``;
    /// nothing when standard error is not a terminal.
    init(_ message: String, isShown: Bool = isatty(STDERR_FILENO) == 1) {
        self.isShown = isShown
        guard isShown else { return }
        Self.write("\r\(message)...\u{1B}[K")
        let started = Date()
        Thread.detachNewThread { [weak self] in
            var shown = 0
            while let self, self.isRunning.load(ordering: .sequentiallyConsistent) {
                Thread.sleep(forTimeInterval: 0.1)
                let seconds = Int(Date().timeIntervalSince(started))
                guard seconds > shown, self.isRunning.load(ordering: .sequentiallyConsistent) else { continue }
                shown = seconds
                Self.write("\r\(message)... \(seconds) s\u{1B}[K")
            }
        }
    }

    /// Clears the line, before the command prints what it did.
    func stop() {
        guard isRunning.exchange(false, ordering: .sequentiallyConsistent), isShown else { return }
        // The thread looks at the flag every tenth of a second: clearing after that keeps a
        // last update from landing after the clear.
        Thread.sleep(forTimeInterval: 0.12)
        Self.write("\r\u{1B}[K")
    }

    deinit { stop() }

    private static func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
