import Logging

/// How much Strata logs: the five levels of the Core Data wrapper libraries, from the fewest
/// messages to the most.
public enum LogLevel: String, Sendable, CaseIterable, Comparable {
    /// Only failures that stop the program.
    case fatal
    /// Operations that failed.
    case error
    /// Operations that went through but deserve a look.
    case warn
    /// What happened, one line per operation.
    case info
    /// Everything, including per-entity activity.
    case verbose

    /// The swift-log level that messages at this level are logged with.
    public var loggerLevel: Logger.Level {
        switch self {
        case .fatal: .critical
        case .error: .error
        case .warn: .warning
        case .info: .info
        case .verbose: .debug
        }
    }

    /// The Strata level that shows swift-log messages of `level`.
    public init(_ level: Logger.Level) {
        switch level {
        case .critical: self = .fatal
        case .error: self = .error
        case .warning: self = .warn
        case .notice, .info: self = .info
        case .debug, .trace: self = .verbose
        }
    }

    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}
