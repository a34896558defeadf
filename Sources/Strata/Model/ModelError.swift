import Foundation

/// An error reading, choosing or checking a model, with where it was found.
///
/// Every case names the file; syntax and content errors also carry the line and column, and
/// validation failures list every problem with its entity and property.
public enum ModelError: Error, Sendable, Equatable {
    /// The path names no file or folder, or it cannot be read.
    case unreadable(path: String, reason: String)
    /// The file is not well-formed XML or JSON.
    case malformed(path: String, location: SourceLocation?, message: String)
    /// The file is well-formed but says something a model cannot hold, such as an unknown
    /// attribute type.
    case invalidContent(path: String, location: SourceLocation?, message: String)
    /// A bundle has no version of that name.
    case unknownVersion(name: String, bundle: String, available: [String])
    /// The model breaks the rules that ``ObjectModel/validate()`` checks.
    case invalid(path: String, issues: [ModelIssue])
}

extension ModelError: CustomStringConvertible, LocalizedError {
    /// The error as text for a user, starting with the path of the file or bundle and, where known,
    /// the ``SourceLocation`` (`Model.json: line 3, column 7: …`); a validation failure gives one
    /// line per error.
    public var description: String {
        switch self {
        case .unreadable(let path, let reason):
            return "\(path): \(reason)"
        case .malformed(let path, let location, let message), .invalidContent(let path, let location, let message):
            return "\(path)\(location.map { ": \($0)" } ?? ""): \(message)"
        case .unknownVersion(let name, let bundle, let available):
            return "\(bundle): no model version named '\(name)'; versions: \(available.joined(separator: ", "))"
        case .invalid(let path, let issues):
            let errors = issues.filter { $0.severity == .error }
            let lines = errors.map { "\(path): \($0)" }
            return (["\(path): the model has \(errors.count) error\(errors.count == 1 ? "" : "s")"] + lines)
                .joined(separator: "\n")
        }
    }

    /// The same text as ``description``.
    public var errorDescription: String? { description }
}
