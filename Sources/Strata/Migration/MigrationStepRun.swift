import Foundation

/// One run of a ``MigrationStep``: a new store file made from the step's input, checked before
/// anyone reads it. The input is attached read-only and never written.
struct MigrationStepRun {
    let step: MigrationStep
    let inputPath: String
    let outputPath: String
    /// The store being migrated, which errors name (the input of a later step is a file of
    /// this migration's own).
    let storePath: String
    let progress: (@Sendable (MigrationProgress) -> Void)?
    /// Whether the checks a custom step can repair (missing required values) are left to the
    /// caller, which runs them after that step (``MigrationStep/CheckStage/afterCustomStep``).
    var defersRepairableChecks = false

    /// Makes the new store, or fails leaving a file the caller removes.
    func run() throws {
        let sourceMetadata = try Self.metadata(of: inputPath)
        var configuration = Database.Configuration()
        configuration.journalMode = nil
        configuration.synchronous = .off
        let database = try Database(path: outputPath, configuration: configuration)
        defer { database.close() }
        try database.defineMigrationFunctions(externalFolder: ExternalBinaryStorage.folder(ofStoreAt: storePath))
        try database.execute("ATTACH DATABASE ? AS src", [.text(Database.fileURI(for: inputPath, query: "mode=ro"))])
        // A file's page size and vacuum mode are set before its first write; the copy takes the input's.
        let pageSize = try database.scalar("PRAGMA src.page_size")?.int64Value ?? 4096
        let autoVacuum = try database.scalar("PRAGMA src.auto_vacuum")?.int64Value ?? 2
        let journalMode = try database.scalar("PRAGMA src.journal_mode")?.stringValue?.lowercased() == "wal" ? "WAL" : "DELETE"
        try database.execute("PRAGMA main.page_size = \(pageSize)")
        try database.execute("PRAGMA main.auto_vacuum = \(autoVacuum)")
        // The file is thrown away if anything fails, so it needs no journal while it is made.
        try database.execute("PRAGMA main.journal_mode = OFF")

        try step.runDataChecks(.input, on: database, storePath: storePath)
        try database.execute("BEGIN")
        for statement in step.destinationLayout.createStatements where statement.hasPrefix("CREATE TABLE") {
            try database.execute(statement)
        }
        for statement in StoreLayout.bookkeepingStatements { try database.execute(statement) }
        // The migrated store describes its new model, as Core Data's migration leaves it.
        try ModelCacheEncoder.write(step.mapping.destination, to: database, predicates: .objectPredicates)
        try copyRows(on: database)
        for statement in step.positionStatements + step.relationshipStatements { try database.execute(statement) }
        try writePrimaryKeys(on: database)
        try copyHistory(on: database)
        var metadata = StoreMetadata(model: step.mapping.destination, uuid: sourceMetadata.uuid)
        metadata.properties["_NSAutoVacuumLevel"] = .string(String(autoVacuum))
        for (key, value) in sourceMetadata.properties where metadata.properties[key] == nil { metadata.properties[key] = value }
        try metadata.write(to: database)
        try step.runDataChecks(.newStore(deferringRepairable: defersRepairableChecks), on: database, storePath: storePath)
        for index in step.destinationLayout.indexes { try database.execute(index.createStatement) }
        // Derived attributes: Core Data's triggers keep them current from now on, and the
        // copied rows, written without them, get their values computed once.
        for trigger in step.destinationLayout.triggers { try database.execute(trigger.createStatement) }
        for statement in step.destinationLayout.derivedValueStatements { try database.execute(statement) }
        try database.execute("COMMIT")
        try database.execute("DETACH DATABASE src")

        try verify(database)
        try database.execute("PRAGMA main.journal_mode = \(journalMode)")
        database.close()
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: outputPath))
        try handle.synchronize()
        try handle.close()
        try verifyModel()
    }

    private static func metadata(of path: String) throws -> StoreMetadata {
        let input = try Database(path: path, configuration: .readOnly)
        defer { input.close() }
        return try StoreMetadata(reading: input)
    }

    // MARK: - Copying

    private func copyRows(on database: Database) throws {
        let copies = step.rowCopies
        let numbers = Dictionary(step.sourceLayout.entities.map { ($0.number, $0.name) }, uniquingKeysWith: { first, _ in first })
        let total = copies.flatMap(\.sourceEntityNumbers).reduce(0) { $0 + (numbers[$1].flatMap { step.sourceCounts[$0] } ?? 0) }
        var copied = 0
        for copy in copies {
            let rows = "FROM src.\(copy.sourceTable) WHERE \(copy.sourceCondition)"
            // Batches of keys that are in use, however far apart the keys are.
            var start = try database.scalar("SELECT MIN(Z_PK) \(rows)")?.int64Value
            while let first = start {
                let last = try database.scalar("SELECT Z_PK \(rows) AND Z_PK >= ? ORDER BY Z_PK LIMIT 1 OFFSET ?", [.integer(first), .integer(StoreMigrator.batchSize - 1)])?.int64Value ?? Int64.max
                try database.execute(copy.sql, [.integer(first), .integer(last)])
                copied += database.changedRowCount
                progress?(MigrationProgress(step: step.name, copied: copied, total: total))
                start = last == Int64.max ? nil : try database.scalar("SELECT MIN(Z_PK) \(rows) AND Z_PK > ?", [.integer(last)])?.int64Value
            }
        }
    }

    /// `Z_PRIMARYKEY` of the new store: each hierarchy's keys continue after the largest the
    /// input handed out for any of the objects that land in it.
    private func writePrimaryKeys(on database: Database) throws {
        var handedOut: [String: Int64] = [:]
        for row in try database.rows("SELECT Z_NAME, Z_MAX FROM src.Z_PRIMARYKEY") {
            if let name = row[0].stringValue { handedOut[name] = row[1].int64Value ?? 0 }
        }
        let layout = step.destinationLayout, source = step.mapping.source
        let sourceEntity = { (name: String) in step.mapping.entity(named: name)?.source }
        for entity in layout.entities {
            var maximum = sourceEntity(entity.name).flatMap { handedOut[$0.name] } ?? 0
            if entity.superNumber == 0 {
                // The input handed keys out through the roots of its hierarchies.
                for member in layout.entities where member.tableName == entity.tableName {
                    guard let old = sourceEntity(member.name) else { continue }
                    maximum = max(maximum, handedOut[old.name] ?? 0, handedOut[source.rootEntity(of: old).name] ?? 0)
                }
                maximum = max(maximum, try database.scalar("SELECT MAX(Z_PK) FROM main.\(entity.tableName)")?.int64Value ?? 0)
            }
            try database.execute(
                "INSERT INTO main.Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, ?)",
                [.integer(Int64(entity.number)), .text(entity.name), .integer(Int64(entity.superNumber)), .integer(maximum)])
        }
    }

    // MARK: - Checking

    /// SQLite's integrity check, and the objects per entity the plan predicts.
    private func verify(_ database: Database) throws {
        let integrity = try database.rows("PRAGMA main.integrity_check").compactMap { $0.first?.stringValue }
        guard integrity == ["ok"] else {
            throw MigrationError.verificationFailed(path: storePath, reason: "SQLite's integrity check says: " + integrity.prefix(5).joined(separator: "; "))
        }
        var counts: [String: Int] = [:]
        let layout = step.destinationLayout
        for table in Set(layout.entities.map(\.tableName)).sorted() {
            for row in try database.rows("SELECT Z_ENT, COUNT(*) FROM main.\(table) GROUP BY Z_ENT") {
                let name = layout.entities.first { $0.number == Int(row[0].int64Value ?? -1) }?.name ?? "Z_ENT \(row[0].int64Value ?? -1)"
                counts[name] = Int(row[1].int64Value ?? 0)
            }
        }
        for (entity, expected) in step.expectedCounts where counts[entity, default: 0] != expected {
            throw MigrationError.verificationFailed(path: storePath, reason: "\(entity) has \(counts[entity, default: 0]) objects where \(expected) were expected")
        }
        if let stray = counts.keys.first(where: { step.expectedCounts[$0] == nil }) {
            throw MigrationError.verificationFailed(path: storePath, reason: "rows of \(stray), which the plan does not expect")
        }
    }

    /// The new store opens with the destination model, whose hashes it records.
    private func verifyModel() throws {
        let store = try PersistentStore.open(at: outputPath, model: step.mapping.destination, configuration: .readOnly)
        store.close()
    }
}
