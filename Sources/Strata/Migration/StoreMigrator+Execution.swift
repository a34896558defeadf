import Foundation

#if canImport(Glibc)
import Glibc
#endif

// Running a plan: each step copies its input into a new file beside the store, checked before
// the next step reads it; the last file then takes the store's place with one rename, the old
// store kept as a hard link (the backup). Until that rename the store is not written to, and
// the files a failed run made are removed.

/// How far a migration has come, for a progress display.
public struct MigrationProgress: Sendable {
    /// The step running, as `Model → Model 2`.
    public var step: String
    /// Objects copied so far in this step, and how many it copies.
    public var copied: Int
    /// How many objects the step copies in all.
    public var total: Int
}

/// What a migration did.
public struct MigrationResult: Sendable {
    /// The plan it ran.
    public var plan: MigrationPlan
    /// The objects per entity the migrated store holds.
    public var counts: [String: Int]
    /// The old store, kept unless the migration ran without a backup.
    public var backupPath: String?
}

extension StoreMigrator {
    /// How many rows a batch of a row copy covers, by primary key.
    static let batchSize: Int64 = 50_000

    /// A step of one's own, run on the migrated copy (its path given) before it replaces the
    /// store: data fixes that a lightweight migration cannot infer, such as a Lua script's.
    /// The copy holds every object in the destination model's layout, a new attribute at its
    /// default value or nil; the last step's checks of missing values (a required attribute
    /// or to-one without a value, an object of an entity that became abstract) wait until the
    /// custom step has run, so that it can fill what they would refuse, and the migration is
    /// refused, naming the objects, for what it leaves missing. What it throws stops the
    /// migration, the store as it was.
    public typealias CustomStep = (_ migratedStorePath: String) throws -> Void

    /// Runs `plan` (``plan()`` when `nil`), then `customStep`, and puts the migrated store in
    /// the store's place, keeping the old one as `<store>.<UTC time>.bak` unless `backup` is false.
    ///
    /// - Throws: ``MigrationError``; the store is then as it was.
    @discardableResult
    public func migrate(
        _ plan: MigrationPlan? = nil, backup: Bool = true, customStep: CustomStep? = nil, progress: (@Sendable (MigrationProgress) -> Void)? = nil
    ) throws(MigrationError) -> MigrationResult {
        let plan = if let plan { plan } else { try self.plan() }
        guard !plan.isEmpty else { return MigrationResult(plan: plan, counts: [:], backupPath: nil) }
        try checkWritable()
        let guardConnection = try holdStore()
        var guardOpen = true
        defer { if guardOpen { guardConnection.close() } }
        try checkUnchanged(since: plan, reading: guardConnection)
        let (migrated, lastCounts, lastStep) = try runSteps(of: plan, deferringRepairableChecks: customStep != nil, progress: progress)
        defer { PersistentStore.removeFiles(ofStoreAt: migrated) }
        let counts = try run(customStep, on: migrated, after: lastStep, counts: lastCounts)
        // Writers were held off until now; the store's own files go with its last connection.
        try? guardConnection.execute("ROLLBACK")
        guardConnection.close()
        guardOpen = false
        if backup { Self.removeStaleBackupLinks(of: storeFile) }
        let backupPath = backup ? try keepBackup() : nil
        guard rename(migrated, storeFile) == 0 else {
            let cause = POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            if let backupPath { Self.removeBackup(at: backupPath) }
            throw .cannotMigrate(path: storePath, reason: "cannot put the migrated store in place", cause: cause)
        }
        Self.synchronizeFolder(of: storeFile)
        // Files of external data that the migrated store no longer names (an attribute that
        // went, or keeps its values in the row now) go; the backup keeps its own links to them.
        if let layout = plan.steps.last?.destinationLayout, let model = plan.steps.last?.mapping.destination {
            Self.removeUnreferencedExternalData(ofStoreAt: storeFile, layout: layout, model: model)
        }
        return MigrationResult(plan: plan, counts: counts, backupPath: backupPath)
    }

    /// Runs `customStep` on the migrated copy at `path` that `lastStep` made, then checks the
    /// copy again (the checks of `lastStep` that waited for it, it opens with the destination
    /// model, SQLite's integrity check); returns its objects per entity.
    private func run(_ customStep: CustomStep?, on path: String, after lastStep: MigrationStep, counts: [String: Int]?) throws(MigrationError) -> [String: Int] {
        guard let customStep else { return counts ?? lastStep.expectedCounts }
        do {
            try customStep(path)
        } catch let error as MigrationError {
            throw error
        } catch {
            throw .customStepFailed(path: storePath, error: error as any Error & Sendable)
        }
        do {
            let store = try PersistentStore.open(at: path, model: destination.model, configuration: .readOnly)
            defer { store.close() }
            return try store.withConnection { () throws -> [String: Int] in
                // A mapped step's save checked its objects before the custom step ran.
                if !lastStep.isMapped { try lastStep.runDataChecks(.afterCustomStep, on: store.database, storePath: storePath) }
                let integrity = try store.database.rows("PRAGMA integrity_check").compactMap { $0.first?.stringValue }
                guard integrity == ["ok"] else {
                    throw MigrationError.verificationFailed(path: storePath, reason: "after the custom step, SQLite's integrity check says: " + integrity.prefix(5).joined(separator: "; "))
                }
                return try store.rowCountsExcludingSubentities()
            }
        } catch {
            throw error.asMigrationError(path: storePath, step: "checking after the custom step")
        }
    }

    /// Runs `plan` into a copy that is then thrown away: every check of the data runs, and
    /// the store does not change. Returns the objects per entity the migrated store would hold.
    public func check(
        _ plan: MigrationPlan, customStep: CustomStep? = nil, progress: (@Sendable (MigrationProgress) -> Void)? = nil
    ) throws(MigrationError) -> [String: Int] {
        guard !plan.isEmpty else { return [:] }
        do {
            let store = try Database(path: storePath, configuration: .readOnly)
            defer { store.close() }
            try checkUnchanged(since: plan, reading: store)
        } catch {
            throw error.asMigrationError(path: storePath, step: "reading the store")
        }
        let (migrated, lastCounts, lastStep) = try runSteps(of: plan, deferringRepairableChecks: customStep != nil, progress: progress)
        defer { PersistentStore.removeFiles(ofStoreAt: migrated) }
        return try run(customStep, on: migrated, after: lastStep, counts: lastCounts)
    }

    // MARK: - Steps

    /// Runs every step, each into a new file beside the store; returns the last one's path,
    /// its objects per entity when a mapping model made it or a step before it (the plan
    /// only estimated them then), and the last step as it ran. With
    /// `deferringRepairableChecks`, the last step leaves the checks that a custom step can
    /// repair to the caller; the steps before it, which no custom step sees, make them all.
    ///
    /// A step after one that mapping models carried out is planned again on the objects that
    /// step made, which its plan could only estimate.
    private func runSteps(
        of plan: MigrationPlan, deferringRepairableChecks: Bool, progress: (@Sendable (MigrationProgress) -> Void)?
    ) throws(MigrationError) -> (String, [String: Int]?, MigrationStep) {
        var input = storePath
        var madeCounts: [String: Int]?
        var lastStep = plan.steps[plan.steps.count - 1]
        for (index, planned) in plan.steps.enumerated() {
            let output = "\(storeFile).migrating-\(index + 1)"
            PersistentStore.removeFiles(ofStoreAt: output)
            var step = planned
            do {
                if let counts = madeCounts, !step.isMapped {
                    step = try MigrationStep(
                        from: (step.sourceVersion, step.mapping.source), to: (step.destinationVersion, step.mapping.destination),
                        sourceSchema: nil, sourceCounts: counts)
                }
                if step.isMapped {
                    madeCounts = try MappedStepRun(step: step, inputPath: input, outputPath: output, storePath: storePath, policy: policy).run()
                } else {
                    try MigrationStepRun(
                        step: step, inputPath: input, outputPath: output, storePath: storePath, progress: progress,
                        defersRepairableChecks: deferringRepairableChecks && index == plan.steps.count - 1
                    ).run()
                    // Planned again after a mapped step, it knows the objects it made.
                    madeCounts = madeCounts == nil ? nil : step.expectedCounts
                }
            } catch let error as ModelMappingError {
                PersistentStore.removeFiles(ofStoreAt: output)
                if input != storePath { PersistentStore.removeFiles(ofStoreAt: input) }
                throw .unmappable(path: storePath, step: step.name, reasons: error.reasons)
            } catch {
                PersistentStore.removeFiles(ofStoreAt: output)
                if input != storePath { PersistentStore.removeFiles(ofStoreAt: input) }
                throw error.asMigrationError(path: storePath, step: step.name)
            }
            // A step's input, once copied, is only needed when it is the store itself.
            if input != storePath { PersistentStore.removeFiles(ofStoreAt: input) }
            input = output
            lastStep = step
        }
        return (input, madeCounts, lastStep)
    }

    /// Refuses a plan made for the store as it was before someone migrated it.
    private func checkUnchanged(since plan: MigrationPlan, reading database: Database) throws(MigrationError) {
        let hashes: [String: Data]
        do {
            hashes = try StoreMetadata(reading: database).entityVersionHashes
        } catch {
            throw .store(error)
        }
        guard hashes == plan.storeHashes else {
            throw .cannotMigrate(path: storePath, reason: "the store's model changed since the plan was made; plan the migration again")
        }
    }

    // MARK: - Files

    /// The store's file, the symbolic links at ``storePath`` followed: a store reached through
    /// a link is migrated and backed up where it lives, in its own folder, and the link kept.
    /// (A loop of links has no file; opening the store refuses it before anything is written.)
    var storeFile: String { SymbolicLinks.finalPath(of: storePath) ?? storePath }

    private func checkWritable() throws(MigrationError) {
        let folder = (storeFile as NSString).deletingLastPathComponent
        let permissions = (try? FileManager.default.attributesOfItem(atPath: storeFile))?[.posixPermissions] as? Int ?? 0
        guard FileManager.default.isWritableFile(atPath: storeFile), permissions & 0o222 != 0 else {
            throw .cannotMigrate(path: storePath, reason: "the store is read-only")
        }
        let folderPath = folder.isEmpty ? "." : folder
        let folderPermissions = (try? FileManager.default.attributesOfItem(atPath: folderPath))?[.posixPermissions] as? Int ?? 0
        // For root, access(2) allows writing anywhere: the permission bits say what is meant.
        guard FileManager.default.isWritableFile(atPath: folderPath), folderPermissions & 0o222 != 0 else {
            throw .cannotMigrate(path: storePath, reason: "its folder is read-only, so the migrated store cannot be written beside it")
        }
    }

    /// A connection that folds the store's write-ahead log into it and keeps other writers
    /// out while the copy runs; refuses when another connection uses the store.
    private func holdStore() throws(MigrationError) -> Database {
        var configuration = Database.Configuration()
        configuration.createsFile = false
        configuration.journalMode = nil
        configuration.busyTimeout = busyTimeout
        do {
            let database = try Database(path: storePath, configuration: configuration)
            if try database.scalar("PRAGMA journal_mode")?.stringValue?.lowercased() == "wal" {
                let result = try database.rows("PRAGMA wal_checkpoint(TRUNCATE)")
                if result.first?.first?.int64Value != 0 {
                    database.close()
                    throw MigrationError.cannotMigrate(path: storePath, reason: "another connection is using the store; close it and try again")
                }
            }
            try database.execute("BEGIN IMMEDIATE")
            return database
        } catch let error as MigrationError {
            throw error
        } catch let error as DatabaseError where error.isBusy {
            throw .cannotMigrate(path: storePath, reason: "another connection is writing to the store; close it and try again")
        } catch let error as DatabaseError {
            throw .store(.database(error))
        } catch {
            // Only the connection's DatabaseError and the refusal above are thrown in there.
            throw .store(.fileOperation(path: storePath, cause: error))
        }
    }

    /// Links the store's file as `<store>.<UTC time>.bak` (a copy where links are not
    /// possible); its write-ahead log was folded into it first.
    private func keepBackup() throws(MigrationError) -> String {
        let formatter = DateFormatter()
        (formatter.locale, formatter.timeZone, formatter.dateFormat) = (Locale(identifier: "en_US_POSIX"), TimeZone(identifier: "UTC"), "yyyyMMdd'T'HHmmss'Z'")
        let stamp = formatter.string(from: Date())
        var path = "\(storeFile).\(stamp).bak"
        var counter = 1
        while FileManager.default.fileExists(atPath: path) {
            counter += 1
            path = "\(storeFile).\(stamp)-\(counter).bak"
        }
        if link(storeFile, path) != 0 {
            // A copy takes time: made under another name and synced first, so that a kill
            // part-way never leaves a `.bak` that is only part of the store.
            let partial = path + ".partial"
            do {
                try? FileManager.default.removeItem(atPath: partial)
                try FileManager.default.copyItem(atPath: storeFile, toPath: partial)
                Self.synchronizeFile(at: partial)
                guard rename(partial, path) == 0 else { throw CocoaError(.fileWriteUnknown) }
            } catch {
                try? FileManager.default.removeItem(atPath: partial)
                throw .backupFailed(path: storePath, backup: path, ofExternalData: false, cause: error)
            }
        }
        do {
            try Self.copySupportFolder(of: storeFile, to: path)
        } catch {
            Self.removeBackup(at: path)
            throw .backupFailed(path: storePath, backup: path, ofExternalData: true, cause: error)
        }
        return path
    }

    /// Removes the `<store>.<time>.bak` files that are hard links of the store's own file. A
    /// migration killed between linking its backup and renaming the migrated store over the
    /// store leaves one: it is the store itself, changing with every later write, so no
    /// backup; the backup this migration keeps takes its place.
    static func removeStaleBackupLinks(of storePath: String) {
        var store = stat()
        guard stat(storePath, &store) == 0, store.st_nlink > 1 else { return }
        let folder = (storePath as NSString).deletingLastPathComponent
        let prefix = (storePath as NSString).lastPathComponent + "."
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.isEmpty ? "." : folder)) ?? []
        for name in names where name.hasPrefix(prefix) && name.hasSuffix(".bak") {
            let path = folder.isEmpty ? name : (folder as NSString).appendingPathComponent(name)
            var backup = stat()
            if lstat(path, &backup) == 0, backup.st_dev == store.st_dev, backup.st_ino == store.st_ino { unlink(path) }
        }
    }

    /// Writes the file at `path` through to the disk.
    static func synchronizeFile(at path: String) {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }

    /// Makes a rename in the folder of `path` durable.
    static func synchronizeFolder(of path: String) {
        let folder = (path as NSString).deletingLastPathComponent
        let descriptor = open(folder.isEmpty ? "." : folder, O_RDONLY)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }
}

extension Error {
    /// The error as a migration reports it.
    func asMigrationError(path: String, step: String) -> MigrationError {
        switch self {
        case let error as MigrationError: error
        case let error as StoreError: .store(error)
        case let error as DatabaseError: .store(.database(error))
        default: .stepFailed(path: path, step: step, error: self)
        }
    }
}
