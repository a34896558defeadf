/// A value kept in a file beside the store (external binary data) that cannot be read.
public struct ExternalDataError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Why the file could not be read.
    public enum Reason: Sendable, Equatable {
        /// The file the row names is not there.
        case missing
        /// The file is there but could not be read: the file system's error.
        case unreadable(any Error)
        /// The store is in memory, so it has no folder for files.
        case noFolder

        /// Reasons of one case are equal; unreadable files, when the file system's errors read
        /// the same (errors of any type do not compare).
        public static func == (lhs: Reason, rhs: Reason) -> Bool {
            switch (lhs, rhs) {
            case (.missing, .missing), (.noFolder, .noFolder): true
            case (.unreadable(let a), .unreadable(let b)): a.localizedDescription == b.localizedDescription
            default: false
            }
        }
    }

    /// The file's path (its name alone for a store without a folder).
    public var file: String
    /// The attribute and object whose value it is: `Book.cover of p3`.
    public var place: String
    /// Why the file could not be read.
    public var reason: Reason

    public var description: String {
        switch reason {
        case .missing: "the external data file of \(place) is missing: \(file)"
        case .unreadable(let error): "the external data file of \(place) cannot be read (\(error.localizedDescription)): \(file)"
        case .noFolder: "\(place) refers to the external data file \(file), but a store in memory keeps no files"
        }
    }
}
