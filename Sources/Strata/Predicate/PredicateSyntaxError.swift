/// A predicate format string that does not parse: the message, and the predicate with a
/// caret under the token where parsing stopped.
///
/// ```text
/// expected a value after '==', found 'AND'
///   name == AND rating > 3
///           ^
/// ```
public struct PredicateSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, in words.
    public var message: String
    /// The format string.
    public var predicate: String
    /// The 0-based character offset of the offending token in the format string.
    public var offset: Int

    /// Where the offending token is in the format string, as errors about other input a user
    /// wrote name a place: line 1 for a one-line predicate, column ``offset`` + 1.
    public var location: SourceLocation {
        var location = SourceLocation(line: 1, column: 1)
        for character in predicate.prefix(offset) {
            if character.isNewline { location = SourceLocation(line: location.line + 1, column: 1) } else { location.column += 1 }
        }
        return location
    }

    public var description: String {
        "\(message)\n  \(predicate)\n  \(String(repeating: " ", count: offset))^"
    }
}
