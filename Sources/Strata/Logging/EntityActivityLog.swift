import Logging

/// Logs what happens to the objects of each entity: at verbose level normally, and at info
/// level for the entities a user asked to follow (a model's `strata.verbose` = `YES` userInfo,
/// see ``ObjectModel/verboseEntityNames``).
///
/// ```swift
/// let activity = EntityActivityLog(logger: logger, verboseEntities: model.verboseEntityNames)
/// activity.record("inserted 3 objects", entity: "Book")
/// // info [Book] inserted 3 objects    (when Book has strata.verbose = YES)
/// ```
public struct EntityActivityLog: Sendable {
    /// The logger the messages go to.
    public var logger: Logger
    /// The entities whose activity is logged at info level.
    public var verboseEntities: Set<String>

    /// Logs to `logger`, at info level for `verboseEntities` and at verbose level for the rest.
    public init(logger: Logger, verboseEntities: Set<String> = []) {
        self.logger = logger
        self.verboseEntities = verboseEntities
    }

    /// The level activity on `entity` is logged at.
    public func level(for entity: String) -> LogLevel {
        verboseEntities.contains(entity) ? .info : .verbose
    }

    /// Logs `message` about `entity`, naming the entity in the line.
    public func record(_ message: @autoclosure () -> String, entity: String) {
        logger.log(
            level: level(for: entity).loggerLevel, Logger.Message(stringLiteral: message()),
            metadata: [LineLogHandler.entityKey: .string(entity)])
    }
}
