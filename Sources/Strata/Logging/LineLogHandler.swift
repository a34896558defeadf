import Foundation
import Logging

/// A swift-log handler that writes one line per event: the Strata level, the entity when the
/// event concerns one, the message, and any other metadata as `key=value`.
///
/// ```text
/// warn [Book] 2 objects failed validation
/// info model loaded path=examples/Library/Library.xcdatamodeld
/// ```
///
/// Install it once at start-up with `LoggingSystem.bootstrap`:
///
/// ```swift
/// LoggingSystem.bootstrap { label in LineLogHandler(label: label, level: .info) }
/// ```
package struct LineLogHandler: LogHandler {
    /// The metadata key that names the entity an event concerns.
    static let entityKey = "entity"

    package var metadata: Logger.Metadata = [:]
    package var logLevel: Logger.Level
    private let write: @Sendable (String) -> Void

    /// A handler showing events at `level` and above, writing each line with `write`
    /// (standard error by default).
    package init(label: String, level: LogLevel, write: @escaping @Sendable (String) -> Void = LineLogHandler.writeToStandardError) {
        self.logLevel = level.loggerLevel
        self.write = write
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    package func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        var line = LogLevel(event.level).rawValue
        if let entity = merged[Self.entityKey] { line += " [\(entity)]" }
        line += " \(event.message)"
        for (key, value) in merged.sorted(by: { $0.key < $1.key }) where key != Self.entityKey {
            line += " \(key)=\(value)"
        }
        write(line)
    }

    /// Writes `line` and a newline to standard error.
    package static let writeToStandardError: @Sendable (String) -> Void = { line in
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
