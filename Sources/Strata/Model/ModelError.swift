import Foundation

/// An error reading, choosing or checking a model, with where it was found.
///
/// Every case names the file; syntax and content errors also carry the line and column, and
/// validation failures list every problem with its entity and property.
public enum ModelError: Error, Sendable, Equatable {
    /// The path names no file or folder, or it cannot be read; `reason` says why, with the
    /// system's or the reader's error where one was the cause.
    case unreadable(path: String, reason: Unreadable)
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

extension ModelError {
    /// Why a model's file or bundle cannot be read.
    public enum Unreadable: Sendable, Equatable, CustomStringConvertible {
        /// No file or folder at the path.
        case notFound
        /// A folder that is no model bundle, version, or folder of models.
        case notAModel
        /// A bundle without a single `.xcdatamodel` version.
        case noVersion
        /// A folder where a model file was expected.
        case folder
        /// The bundle's folder could not be listed: the file system's error.
        case unlistableBundle(any Error)
        /// The model file could not be read: the file system's error.
        case unreadableFile(any Error)
        /// An Xcode 3 binary model (`elements`) that is not a readable property list: the
        /// property-list reader's error, with its byte offset.
        case notAPropertyList(any Error)
        /// An Xcode 3 binary model (`elements`) that is not a keyed archive: the archive
        /// reader's error.
        case notAKeyedArchive(any Error)

        public var description: String {
            switch self {
            case .notFound: "no such file or folder"
            case .notAModel: "not a model: expected an .xcdatamodeld bundle, an .xcdatamodel folder, a contents file, a .json model, or a folder of models"
            case .noVersion: "the bundle holds no .xcdatamodel version"
            case .folder: "is a folder; expected a model file"
            case .unlistableBundle(let error): "cannot list the bundle (\(error.localizedDescription))"
            case .unreadableFile(let error): "cannot read the model file (\(error.localizedDescription))"
            case .notAPropertyList(let error): "an Xcode 3 binary model (elements) that is not a readable property list: \(error)"
            case .notAKeyedArchive(let error): "an Xcode 3 binary model (elements) that is not a keyed archive: \(error)"
            }
        }

        /// Reasons of one case are equal; those carrying an error, when the errors read the same
        /// (errors of any type do not compare).
        public static func == (lhs: Unreadable, rhs: Unreadable) -> Bool {
            switch (lhs, rhs) {
            case (.notFound, .notFound), (.notAModel, .notAModel), (.noVersion, .noVersion), (.folder, .folder): true
            case (.unlistableBundle, .unlistableBundle), (.unreadableFile, .unreadableFile), (.notAPropertyList, .notAPropertyList),
                (.notAKeyedArchive, .notAKeyedArchive):
                lhs.description == rhs.description
            default: false
            }
        }
    }
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
