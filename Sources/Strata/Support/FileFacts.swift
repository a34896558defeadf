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

/// Writes the file or folder at `path` through to the disk, so that a rename or link that
/// follows cannot reach the disk before what it names.
func syncToDisk(atPath path: String) throws {
    let descriptor = Glibc.open(path, O_RDONLY)
    guard descriptor >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
    defer { Glibc.close(descriptor) }
    guard fsync(descriptor) == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
}
