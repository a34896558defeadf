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

/// The file a store path leads to once the symbolic links at its end are followed: what a
/// store reached through a link is created, migrated, reset and backed up as, so that the link
/// stays a link and the store is changed where it lives.
enum SymbolicLinks {
    /// How many links a chain may hold, as the kernel's own limit (`MAXSYMLINKS`) allows.
    static let maximumChain = 40

    /// The path that the chain of symbolic links at `path` ends at: `path` itself when it is
    /// no link (or nothing), else the last target, which need not exist (a link that leads
    /// nowhere names the file a new store would be). A relative target is read from the link's
    /// folder, as the kernel reads it. `nil` when the links form a loop or pass
    /// ``maximumChain``: there is no file for the path.
    static func finalPath(of path: String) -> String? {
        var current = path
        for _ in 0...maximumChain {
            var status = stat()
            guard lstat(current, &status) == 0, status.st_mode & S_IFMT == S_IFLNK else { return current }
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: current) else { return current }
            let folder = (current as NSString).deletingLastPathComponent
            current = target.hasPrefix("/") || folder.isEmpty ? target : (folder as NSString).appendingPathComponent(target)
        }
        return nil
    }
}
