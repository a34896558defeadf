import Foundation

/// One run of a ``MigrationStep`` that mapping models carry out: a new store of the destination
/// model, made object by object by a ``MigrationManager`` from the step's input, opened
/// read-only, and saved in one transaction, so the checks of a save (required values, the
/// relationships' counts) apply; then the input's persistent history, re-pointed to the objects
/// made (see `MappedStepRun+History`), the input's UUID and unknown metadata keys, SQLite's
/// integrity check, and the destination model's hashes. A failure leaves a file the caller
/// removes; the input is never written.
struct MappedStepRun {
    let step: MigrationStep
    let inputPath: String
    let outputPath: String
    /// The store being migrated, which errors name.
    let storePath: String
    let policy: (any MigrationPolicy)?

    /// Makes the new store; returns its objects per entity.
    func run() throws(MigrationError) -> [String: Int] {
        let sourceMetadata: StoreMetadata, journalMode: String
        do {
            let input = try Database(path: inputPath, configuration: .readOnly)
            defer { input.close() }
            sourceMetadata = try StoreMetadata(reading: input)
            journalMode = try input.scalar("PRAGMA journal_mode")?.stringValue?.lowercased() == "wal" ? "WAL" : "DELETE"
        } catch {
            throw error.asMigrationError(path: storePath, step: step.name)
        }
        let counterparts: [Counterpart]
        do {
            let source = try PersistentStore.open(at: inputPath, model: step.mapping.source, requiresMatchingModel: false, configuration: .readOnly)
            defer { source.close() }
            var configuration = Database.Configuration()
            configuration.journalMode = .delete
            configuration.synchronous = .off
            let destination = try PersistentStore.create(
                at: outputPath, model: step.mapping.destination, configuration: configuration, predicates: .objectPredicates)
            defer { destination.close() }
            let sourceContext = ObjectContext(store: source, name: "migration source")
            let destinationContext = ObjectContext(store: destination, name: "migration destination")
            let manager = MigrationManager(mappingModels: step.mappingModels, source: sourceContext, destination: destinationContext, policy: policy)
            try manager.migrate()
            counterparts = try destinationContext.performAndWait {
                try destinationContext.save()
                // Read once saved, when the objects have their primary keys in the new store.
                return manager.firstDestinations().map { Counterpart(source: $0.source, destination: $0.destination.objectID, mapping: $0.mapping) }
            }
        } catch let error as MigrationError {
            throw error
        } catch let error as StoreError {
            throw .store(error)
        } catch {
            throw .mappingFailed(path: storePath, step: step.name, error: error as any Error & Sendable)
        }
        do {
            let database = try Database(path: outputPath, configuration: Database.Configuration())
            defer { database.close() }
            try database.execute("ATTACH DATABASE ? AS src", [.text(Database.fileURI(for: inputPath, query: "mode=ro"))])
            try database.execute("BEGIN")
            let dropped = try carryHistory(on: database, counterparts: counterparts)
            try database.execute("COMMIT")
            try database.execute("DETACH DATABASE src")
            if dropped > 0 {
                StrataLog.logger(label: "strata.migrate").info(
                    "\(storePath): \(step.name): \(dropped) history change\(dropped == 1 ? "" : "s") of objects the mapping models do not carry dropped")
            }
            var metadata = try StoreMetadata(reading: database)
            metadata.uuid = sourceMetadata.uuid
            for (key, value) in sourceMetadata.properties where metadata.properties[key] == nil { metadata.properties[key] = value }
            try metadata.write(to: database)
            let integrity = try database.rows("PRAGMA integrity_check").compactMap { $0.first?.stringValue }
            guard integrity == ["ok"] else {
                throw MigrationError.verificationFailed(path: storePath, reason: "SQLite's integrity check says: " + integrity.prefix(5).joined(separator: "; "))
            }
            try database.execute("PRAGMA journal_mode = \(journalMode)")
            database.close()
            let handle = try FileHandle(forUpdating: URL(fileURLWithPath: outputPath))
            try handle.synchronize()
            try handle.close()
            let store = try PersistentStore.open(at: outputPath, model: step.mapping.destination, configuration: .readOnly)
            defer { store.close() }
            return try store.withConnection { try store.rowCountsExcludingSubentities() }
        } catch {
            throw error.asMigrationError(path: storePath, step: step.name)
        }
    }
}
