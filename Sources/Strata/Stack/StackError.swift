/// An error setting up a stack.
public enum StackError: Error, Sendable, CustomStringConvertible {
    /// The store was made with another model, and migration is not available yet.
    case modelMismatch(path: String, comparison: HashComparison, automigrates: Bool)

    public var description: String {
        switch self {
        case .modelMismatch(let path, let comparison, let automigrates):
            "\(path): the store was made with another model; \(comparison.summary)"
                + (automigrates ? " (automatic migration is not available yet)" : " (automatic migration is off)")
        }
    }
}
