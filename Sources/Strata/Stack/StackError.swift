/// An error setting up a stack.
public enum StackError: Error, Sendable, CustomStringConvertible {
    /// The store was made with another model, and automatic migration is off.
    case modelMismatch(path: String, comparison: HashComparison)
    /// The store was made with the version `storeVersion` of the model bundle `bundle`, the
    /// stack uses another (`stackVersion`, when the bundle holds it), and automatic migration
    /// is off.
    case modelVersionMismatch(path: String, bundle: String, storeVersion: String, stackVersion: String?)
    /// The stack opened its store read-only (``Database/Configuration/isReadOnly``), and was
    /// asked to change its files.
    case readOnly(path: String)

    public var description: String {
        switch self {
        case .modelMismatch(let path, let comparison):
            "\(path): the store was made with another model; \(comparison.summary) (automatic migration is off)"
        case .modelVersionMismatch(let path, let bundle, let storeVersion, let stackVersion):
            "\(path): the store was made with version \(storeVersion) of \(bundle), and the stack uses \(stackVersion.map { "version \($0)" } ?? "another model") (automatic migration is off)"
        case .readOnly(let path): "\(path): the store was opened read-only; it cannot be reset"
        }
    }
}
