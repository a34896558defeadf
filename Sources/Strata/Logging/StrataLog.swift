import Logging

/// Where Strata's own messages go, for a program that does not set up swift-log itself.
///
/// By default Strata logs through swift-log's `LoggingSystem`, as the program bootstrapped it
/// (or swift-log's default handler). Setting ``level`` sends Strata's messages from that level
/// up to standard error instead, one line per event (``LineLogHandler``), whatever swift-log
/// was given; setting it back to `nil` returns them to the `LoggingSystem`.
///
/// ```swift
/// StrataLog.level = .verbose      // every import, delete and failed commit, on standard error
/// ```
///
/// It applies to the loggers Strata makes from then on: an import started before keeps its own.
public enum StrataLog {
    private static let settings = Locked<(level: LogLevel?, write: @Sendable (String) -> Void)>((nil, LineLogHandler.writeToStandardError))

    /// The level from which Strata's messages are written, or `nil` to leave them to
    /// swift-log's `LoggingSystem`.
    public static var level: LogLevel? {
        get { settings.withLock { $0.level } }
        set { settings.withLock { $0.level = newValue } }
    }

    /// Writes Strata's lines with `write` instead of to standard error, once ``level`` is set
    /// (a test, or a program that shows them in its own way).
    public static func write(to write: @escaping @Sendable (String) -> Void) {
        settings.withLock { $0.write = write }
    }

    /// A logger for one part of Strata (`strata.import`), following ``level``.
    public static func logger(label: String) -> Logger {
        let (level, write) = settings.withLock { ($0.level, $0.write) }
        guard let level else { return Logger(label: label) }
        return Logger(label: label) { label in LineLogHandler(label: label, level: level, write: write) }
    }
}
