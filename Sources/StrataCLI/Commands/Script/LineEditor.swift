import CEditLine
import Foundation

/// The shell's line editor: libedit with emacs keys, ~/.editrc, and a history kept in a file.
final class LineEditor {
    /// What a read gave.
    enum Input: Equatable {
        /// A line, without its newline.
        case line(String)
        /// Ctrl-C: the line was given up.
        case interrupted
        /// Ctrl-D on an empty line, or the end of input.
        case end
    }

    private let editor: OpaquePointer
    private let history: OpaquePointer?
    private let historyPath: String?

    /// The most entries the history keeps.
    static let historySize: Int32 = 1000

    /// A line editor on standard input and output, its history read from and written to
    /// `historyPath` when given; `nil` when libedit cannot start.
    init?(historyPath: String?) {
        // Multibyte (UTF-8) input needs the user's locale for characters.
        setlocale(LC_CTYPE, "")
        guard let editor = strata_el_init("strata") else { return nil }
        self.editor = editor
        self.historyPath = historyPath
        history = history_init()
        if let history {
            strata_history_configure(history, Self.historySize)
            strata_el_set_history(editor, history)
            if let historyPath { _ = strata_history_file(history, historyPath, 0) }
        }
    }

    deinit {
        el_end(editor)
        if let history { history_end(history) }
    }

    /// Reads a line after the prompt ("strata> ", or ">> " for a `continuation`).
    func read(continuation: Bool) -> Input {
        strata_el_set_continuation(editor, continuation ? 1 : 0)
        var count: Int32 = 0
        errno = 0
        guard let line = el_gets(editor, &count) else {
            return count < 0 && errno == EINTR ? .interrupted : .end
        }
        var text = String(cString: line)
        while text.last?.isNewline == true { text.removeLast() }
        return .line(text)
    }

    /// Adds `line` to the history, and writes the history file.
    func remember(_ line: String) {
        guard let history, !line.trimmingCharacters(in: .whitespaces).isEmpty else { return }
        strata_history_enter(history, line)
        if let historyPath { _ = strata_history_file(history, historyPath, 1) }
    }
}
