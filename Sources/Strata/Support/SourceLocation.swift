/// A position in a text file: 1-based line and column.
///
/// Errors about files a user wrote (models, JSON, scripts) carry one so that the message can
/// point at the place to fix.
public struct SourceLocation: Sendable, Hashable, CustomStringConvertible {
    /// The 1-based line.
    public var line: Int
    /// The 1-based column, counted in Unicode scalars.
    public var column: Int

    /// The position at 1-based `line` and `column`.
    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    /// `line L, column C`.
    public var description: String { "line \(line), column \(column)" }
}
