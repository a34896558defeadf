import CSQLite
import Foundation

extension PersistentStore {
    /// Replaces the store at `path` with an empty store for `model`, so that a crash at any
    /// moment leaves either the old store or the new one, each whole, and never a file that
    /// does not open. The store's connections must be closed first: the reset takes the file's
    /// exclusive lock, and refuses while any other connection has the store open.
    ///
    /// The steps, and why each is safe to stop after:
    /// 1. What a reset killed earlier left (its new file, its folder of old external data) is
    ///    removed: neither is part of any store.
    /// 2. The old store leaves WAL mode, which checkpoints its `-wal` into the main file and
    ///    needs every other connection closed (SQLite refuses it otherwise). Killed here, SQLite
    ///    recovers the old store from its `-wal` as from any crash.
    /// 3. An exclusive lock keeps other connections out until the end.
    /// 4. The empty store is made beside it under a name of its own, closed (no `-wal`) and
    ///    synced to disk.
    /// 5. Journal files left beside the old store are removed: in rollback mode it needs none,
    ///    and a `-wal` left there would be replayed into the new file.
    /// 6. The new file is renamed over the old one: one atomic step from old to new.
    /// 7. The old external data folder (`.<Name>_SUPPORT`) is moved aside, then removed.
    ///
    /// A store reached through a symbolic link is reset where it lives; the link stays.
    ///
    /// - Parameters:
    ///   - path: the store file.
    ///   - model: the model of the empty store.
    ///   - configuration: how the empty store is made (its journal mode) and how long to wait
    ///     for other connections' locks.
    ///   - predicates: what archives the predicates of fetched properties and templates into
    ///     the new store's model cache (see ``create(at:model:configuration:frameworkVersion:predicates:)``).
    /// - Returns: the files that were removed or replaced: the store, its journal files, its
    ///   external data folder.
    /// - Throws: ``StoreError/inUse(path:processIDs:)`` while another connection has the store
    ///   open (the processes named where `/proc` tells them); ``StoreError`` when the new store
    ///   cannot be made; nothing is changed then.
    static func resetFiles(
        at path: String, model: ObjectModel, configuration: Database.Configuration = Database.Configuration(), predicates: PredicateArchiver? = nil
    ) throws(StoreError) -> [String] {
        guard let location = StoreFileLocation(path) else { throw .symbolicLinkLoop(path: path) }
        let fileManager = FileManager.default
        for leftover in [location.resetting, location.supportBeingRemoved] + journalFiles(of: location.resetting) {
            try? fileManager.removeItem(atPath: leftover)
        }
        let lock = try exclusiveLock(on: location.file, busyTimeout: configuration.busyTimeout)
        defer { lock?.close() }

        var newConfiguration = configuration
        newConfiguration.isInMemory = false
        try build(at: location.resetting, model: model, configuration: newConfiguration, frameworkVersion: StoreMetadata.frameworkVersion, predicates: predicates)
            .close()
        do {
            try syncToDisk(atPath: location.resetting)
            var removed = [location.file]
            for journal in journalFiles(of: location.file) where fileManager.fileExists(atPath: journal) {
                try fileManager.removeItem(atPath: journal)
                removed.append(journal)
            }
            guard Glibc.rename(location.resetting, location.file) == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
            try syncToDisk(atPath: location.folder)
            if fileManager.fileExists(atPath: location.support) {
                try fileManager.moveItem(atPath: location.support, toPath: location.supportBeingRemoved)
                try fileManager.removeItem(atPath: location.supportBeingRemoved)
                removed.append(location.support)
            }
            return removed
        } catch {
            removeFiles(ofStoreAt: location.resetting)
            throw .fileOperation(path: location.file, cause: error)
        }
    }

    /// Takes the exclusive lock of the store at `path` on a connection of its own, after
    /// taking it out of WAL mode; `nil` when there is no SQLite database to lock (a missing or
    /// damaged file, which the reset replaces all the same).
    private static func exclusiveLock(on path: String, busyTimeout: Duration) throws(StoreError) -> Database? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        var configuration = Database.Configuration()
        configuration.createsFile = false
        configuration.journalMode = nil
        configuration.busyTimeout = busyTimeout
        let database: Database
        do {
            database = try Database(path: path, configuration: configuration)
        } catch {
            return nil
        }
        do throws(DatabaseError) {
            // SQLite leaves WAL mode only with no other connection open: checkpointed, its
            // -wal removed. Busy, it answers with the mode it keeps.
            let mode = try database.scalar("PRAGMA journal_mode = DELETE")?.stringValue
            guard mode?.lowercased() != "wal" else { throw DatabaseError(resultCode: DatabaseError.SQLITE_BUSY, message: "the store is in use", path: path) }
            try database.execute("BEGIN EXCLUSIVE")
            return database
        } catch {
            database.close()
            if error.isBusy { throw .inUse(path: path, processIDs: processesHoldingFile(atPath: path)) }
            if error.isDamagedFile { return nil }
            throw .database(error)
        }
    }
}

/// The processes other than this one that have the file at `path` open, as Linux's `/proc`
/// tells them (empty where it does not: another system, or processes of other users).
func processesHoldingFile(atPath path: String) -> [Int32] {
    let fileManager = FileManager.default
    let target = (path as NSString).resolvingSymlinksInPath
    let own = getpid()
    guard let entries = try? fileManager.contentsOfDirectory(atPath: "/proc") else { return [] }
    return entries.compactMap(Int32.init).filter { pid in
        guard pid != own, let descriptors = try? fileManager.contentsOfDirectory(atPath: "/proc/\(pid)/fd") else { return false }
        return descriptors.contains { descriptor in
            (try? fileManager.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(descriptor)")) == target
        }
    }.sorted()
}

/// Where a store's files are: the store file where it lives (through symbolic links),
/// its external data folder, and the names a create and a reset use beside them.
struct StoreFileLocation {
    let file: String
    let folder: String
    let support: String
    /// The new store a create makes before it links it into place.
    let creating: String
    /// The new store a reset makes before it takes the old one's place.
    let resetting: String
    /// The old external data folder while a reset removes it.
    let supportBeingRemoved: String

    /// `nil` when `path` is a loop of symbolic links.
    init?(_ path: String) {
        guard let file = SymbolicLinks.finalPath(of: path) else { return nil }
        self.file = file
        let parent = (file as NSString).deletingLastPathComponent
        folder = parent.isEmpty ? "." : parent
        let name = ((file as NSString).lastPathComponent as NSString).deletingPathExtension
        support = (folder as NSString).appendingPathComponent(".\(name)_SUPPORT")
        let hidden = (folder as NSString).appendingPathComponent(".\((file as NSString).lastPathComponent)")
        creating = hidden + ".strata-creating"
        resetting = hidden + ".strata-reset"
        supportBeingRemoved = support + ".strata-reset"
    }
}
