import Foundation
import Strata
import Synchronization

/// The line at the bottom of the terminal where `strata` says what a long step is doing: an
/// import's progress, a delete or a script that works for minutes. It is kept on standard
/// error, and only when that is a terminal.
///
/// Whatever else `strata` writes to the terminal while the line may show (a script's `print`,
/// a log line, an error) goes through ``writing(to:endsLine:_:)``, which clears the line
/// first, so that the two never share a line. The status comes back below the output once
/// the output has stopped for a second, and never while output has left the cursor in the
/// middle of a line (`io.write("x")`), which the status would overwrite, nor while the terminal
/// is lent out (``lend()``). It is cleared when the process exits, and by a second Ctrl-C
/// that ends it (``isShown``).
final class StatusLine: Sendable {
    /// The status line of standard error, and what writes to the terminal go through.
    static let standardError = StatusLine()

    /// The standard streams, for ``writing(to:endsLine:_:)``.
    enum Stream {
        case standardOutput, standardError
    }

    private struct State {
        var drawnText: String?
        var isMidLine = false
        var lastOutput: ContinuousClock.Instant?
        var lendings = 0
        /// Set when the process exits: nothing is drawn after the last clear.
        var hasEnded = false
    }

    /// Whether a status is on the terminal: read by a signal handler, which may only write.
    static let isShown = Atomic<Bool>(false)

    private let isTerminal: Bool
    private let outputIsTerminal: Bool
    private let state = Locked(State())
    private static let quietPeriod = Duration.seconds(1)

    private init() {
        isTerminal = isatty(STDERR_FILENO) == 1
        outputIsTerminal = isatty(STDOUT_FILENO) == 1
        // os.exit in a script, or exit() anywhere, leaves no status behind, though another
        // thread may still try to draw one while exit handlers run (regression: a sanitizer's
        // second-long wait at exit let the activity indicator draw the line again).
        atexit { StatusLine.standardError.end() }
    }

    /// Shows the text `text()` returns, cut to the terminal's width, unless it returns `nil`
    /// or output reached the terminal in the last second. `text` is called with the line held,
    /// so that a step that ends (``clear()``) cannot be shown again by an update under way.
    func show(_ text: () -> String?) {
        guard isTerminal else { return }
        state.withLock { state in
            guard !state.hasEnded, !state.isMidLine, state.lendings == 0, state.lastOutput.map({ .now - $0 >= Self.quietPeriod }) ?? true,
                let text = text()
            else { return }
            let shown = Self.cut(text)
            guard shown != state.drawnText else { return }
            // Said before it is drawn: a second Ctrl-C between the two then clears a line that
            // is there or about to be, rather than leaving one behind.
            Self.isShown.store(true, ordering: .sequentiallyConsistent)
            Self.write("\r\(shown)\u{1B}[K")
            state.drawnText = shown
        }
    }

    /// Takes the status away, when a step ends.
    func clear() {
        guard isTerminal else { return }
        state.withLock { Self.erase(&$0) }
    }

    /// Takes the status away for good, as the process exits.
    private func end() {
        guard isTerminal else { return }
        state.withLock { state in
            Self.erase(&state)
            state.hasEnded = true
        }
    }

    /// Runs `write`, which writes to `stream`, after clearing the status when the stream is
    /// the terminal. `endsLine` says whether what it writes ends with a newline.
    func writing(to stream: Stream, endsLine: Bool = true, _ write: () -> Void) {
        guard isTerminal, stream == .standardError || outputIsTerminal else { return write() }
        state.withLock { state in
            Self.erase(&state)
            write()
            state.isMidLine = !endsLine
            state.lastOutput = .now
        }
    }

    /// Lends the terminal out (a script reads standard input or runs a command): the status is
    /// cleared, and not drawn again before ``takeBack()``.
    func lend() {
        guard isTerminal else { return }
        state.withLock { state in
            Self.erase(&state)
            state.lendings += 1
        }
    }

    /// Takes the terminal back: the status may come back after a quiet second.
    func takeBack() {
        guard isTerminal else { return }
        state.withLock { state in
            state.lendings = max(0, state.lendings - 1)
            state.lastOutput = .now
            state.isMidLine = false
        }
    }

    private static func erase(_ state: inout State) {
        guard state.drawnText != nil else { return }
        write("\r\u{1B}[K")
        state.drawnText = nil
        isShown.store(false, ordering: .sequentiallyConsistent)
    }

    /// `text` cut to the terminal's width: a wrapped status would leave its first part behind.
    private static func cut(_ text: String) -> String {
        guard let columns = TextTable.terminalWidth(of: STDERR_FILENO), columns > 1 else { return text }
        // The last column is left free: some terminals wrap as soon as it is written.
        let width = columns - 1
        return TextTable.displayWidth(text) > width ? TextTable.cut(text, to: width).0 : text
    }

    private static func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
