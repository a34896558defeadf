import Foundation

/// The size in bytes of the file at `path` (following symbolic links, as SQLite does when it
/// opens it), or `nil` when there is none.
///
/// One `stat` call: `FileManager.attributesOfItem` would also look up the owner's and group's
/// names, which reads the system's user and group databases on every call.
func fileSize(atPath path: String) -> Int? {
    var status = stat()
    guard stat(path, &status) == 0 else { return nil }
    return Int(status.st_size)
}
