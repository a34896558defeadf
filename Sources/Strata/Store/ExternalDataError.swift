/// A value kept in a file beside the store (external binary data) that cannot be read.
public struct ExternalDataError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Why the file could not be read.
    public enum Reason: Sendable, Equatable {
        /// The file the row names is not there.
        case missing
        /// The file is there but could not be read.
        case unreadable(String)
        /// The store is in memory, so it has no folder for files.
        case noFolder
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
        case .unreadable(let why): "the external data file of \(place) cannot be read (\(why)): \(file)"
        case .noFolder: "\(place) refers to the external data file \(file), but a store in memory keeps no files"
        }
    }
}
