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

    public var description: String {
        "\(message)\n  \(predicate)\n  \(String(repeating: " ", count: offset))^"
    }
}
