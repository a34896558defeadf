import CEditLine
import Foundation

/// The shell's line editor: libedit with emacs keys, ~/.editrc, a history kept in a file, and
/// tab completion.
final class LineEditor {
    /// What tab completes: the word that ends at the cursor, and the words it may become.
    struct Completion: Equatable {
        var word: String
        var candidates: [String]
    }

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

    /// Gives the completions of the text before the cursor, when tab is pressed; called on
    /// the thread that reads.
    var completer: ((String) -> Completion)?

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
        strata_el_set_client_data(editor, Unmanaged.passUnretained(self).toOpaque())
        strata_el_bind_completion(editor, completeKey)
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

    /// Tab: completes the word before the cursor as far as its completions agree, or lists
    /// them when they go different ways (as readline does); beeps when there is none.
    fileprivate func complete() -> UInt8 {
        guard let completer, let info = el_line(editor)?.pointee, let buffer = info.buffer, let cursor = info.cursor else {
            return UInt8(CC_ERROR)
        }
        let before = String(decoding: UnsafeRawBufferPointer(start: buffer, count: buffer.distance(to: cursor)), as: UTF8.self)
        let completion = completer(before)
        let candidates = Array(Set(completion.candidates.filter { $0.hasPrefix(completion.word) })).sorted()
        guard let first = candidates.first else { return UInt8(CC_ERROR) }
        let common = candidates.dropFirst().reduce(first) { common, candidate in
            String(decoding: zip(common.utf8, candidate.utf8).prefix { $0 == $1 }.map(\.0), as: UTF8.self)
        }
        if common.utf8.count > completion.word.utf8.count {
            el_insertstr(editor, String(decoding: common.utf8.dropFirst(completion.word.utf8.count), as: UTF8.self))
            return UInt8(CC_REFRESH)
        }
        guard candidates.count > 1 else { return UInt8(CC_NORM) }
        print("\n" + Self.columns(candidates))
        fflush(nil)
        return UInt8(CC_REDISPLAY)
    }

    /// `words` in columns across a line of 80 characters.
    static func columns(_ words: [String]) -> String {
        let width = (words.map(\.count).max() ?? 0) + 2
        let perLine = max(1, 80 / width)
        return stride(from: 0, to: words.count, by: perLine).map { start in
            words[start..<min(start + perLine, words.count)].map { $0.padding(toLength: width, withPad: " ", startingAt: 0) }
                .joined().trimmingCharacters(in: .whitespaces)
        }.joined(separator: "\n")
    }
}

/// The tab key's function: asks the line editor kept with the editor to complete.
private let completeKey: strata_el_key_function = { editor, _ in
    guard let editor, let data = strata_el_client_data(editor) else { return UInt8(CC_ERROR) }
    return Unmanaged<LineEditor>.fromOpaque(data).takeUnretainedValue().complete()
}
