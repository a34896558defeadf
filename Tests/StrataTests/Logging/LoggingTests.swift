import Foundation
import Logging
import Synchronization
import Testing
@testable import Strata

@Suite struct LoggingTests {
    /// Collects the lines a ``LineLogHandler`` writes.
    final class Lines: Sendable {
        let storage = Mutex<[String]>([])
        var all: [String] { storage.withLock { $0 } }
        func append(_ line: String) { storage.withLock { $0.append(line) } }
    }

    private func logger(level: LogLevel, into lines: Lines) -> Logger {
        Logger(label: "test") { label in LineLogHandler(label: label, level: level) { lines.append($0) } }
    }

    @Test func levelsFilterFromFatalToVerbose() {
        let lines = Lines()
        let logger = logger(level: .warn, into: lines)
        logger.critical("c")
        logger.error("e")
        logger.warning("w")
        logger.info("i")
        logger.debug("d")
        #expect(lines.all == ["fatal c", "error e", "warn w"])
    }

    @Test func oneLinePerEventWithEntityAndMetadata() {
        let lines = Lines()
        logger(level: .verbose, into: lines).info("saved", metadata: ["entity": "Book", "count": "3"])
        #expect(lines.all == ["info [Book] saved count=3"])
    }

    @Test func entitiesMarkedVerboseLogTheirActivityAtInfo() throws {
        let bundle = try ModelLoader.load(Fixtures.exampleModel)
        let model = try bundle.currentVersion.model
        #expect(model.verboseEntityNames == ["Book", "EBook"])
        let lines = Lines()
        let activity = EntityActivityLog(logger: logger(level: .info, into: lines), verboseEntities: model.verboseEntityNames)
        activity.record("inserted 2 objects", entity: "Book")
        activity.record("inserted 1 object", entity: "Author")
        activity.record("inserted 1 object", entity: "EBook")
        #expect(lines.all == ["info [Book] inserted 2 objects", "info [EBook] inserted 1 object"])
    }

    @Test func verboseLevelShowsEveryEntitysActivity() {
        let lines = Lines()
        let activity = EntityActivityLog(logger: logger(level: .verbose, into: lines), verboseEntities: [])
        activity.record("fetched 4 objects", entity: "Author")
        #expect(lines.all == ["verbose [Author] fetched 4 objects"])
    }

    @Test func levelNamesRoundTripThroughSwiftLog() {
        for level in LogLevel.allCases {
            #expect(LogLevel(level.loggerLevel) == level)
        }
        #expect(LogLevel.fatal < LogLevel.verbose)
    }
}
