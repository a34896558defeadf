/// An error setting up a stack.
public enum StackError: Error, Sendable, CustomStringConvertible {
    /// The store was made with another model, and automatic migration is off.
    case modelMismatch(path: String, comparison: HashComparison)

    public var description: String {
        switch self {
        case .modelMismatch(let path, let comparison):
            "\(path): the store was made with another model; \(comparison.summary) (automatic migration is off)"
        }
    }
}
