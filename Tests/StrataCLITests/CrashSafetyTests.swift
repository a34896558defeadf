import Foundation
import Strata
import Testing
import StrataTestSupport

/// `strata import`, `migrate`, `delete`, `prune`, `reset`, `create` and a Lua bulk edit killed
/// with SIGKILL at moments spread over their run: each kill must leave a store that opens,
/// passes SQLite's integrity check, hands out no primary key twice, and holds either
/// everything as it was before the operation or everything as an uninterrupted run leaves it,
/// never a part. An import is one transaction (its batches are savepoints inside it), so a
/// kill never leaves some of its batches.
///
/// The run's duration is measured first, uninterrupted, and cut into `killPoints` equal slices;
/// each kill falls at a random moment of its slice. A process that ended before its moment
/// counts as a complete run. Sizes: ``StressHarness``.
@Suite(.serialized) struct CrashSafetyTests {
    /// What one killed run left, in words for the report.
    struct Outcome {
        var label: String
        var completed: Bool
    }

    // MARK: - Operations

    @Test func aKilledImportLeavesTheStoreAsBeforeOrAfter() throws {
        let folder = try TemporaryFolder()
        let bundle = try StressHarness.bundle(in: folder)
        let half = StressHarness.recordCount / 2
        let base = folder.url.appendingPathComponent("base.sqlite").path
        try StressHarness.succeed(["import", "Item", "--create", "--store", base, "--model", bundle], input: StressHarness.items(count: half))
        // The import updates the first half (each value raised by one) and creates the second.
        let records = folder.url.appendingPathComponent("records.ndjson")
        try StressHarness.items(count: StressHarness.recordCount) { $0 % 1000 + 1 }.write(to: records)
        try killRuns(of: "import", base: base) { store in
            ["import", "Item", records.path, "--store", store, "--model", bundle]
        } check: { store, _, before, after in
            try Self.expectOpens(store, items: [before.rows(of: "Item").count, after.rows(of: "Item").count])
            return nil
        }
    }

    @Test func aKilledLuaBulkEditLeavesTheStoreAsBeforeOrAfter() throws {
        let folder = try TemporaryFolder()
        let bundle = try StressHarness.bundle(in: folder)
        let base = folder.url.appendingPathComponent("base.sqlite").path
        try StressHarness.succeed(["import", "Item", "--create", "--store", base, "--model", bundle], input: StressHarness.items(count: StressHarness.recordCount))
        let script = folder.url.appendingPathComponent("bulk.lua")
        try """
            for item in ctx:each("Item") do
              item.value = item.value + 1
              item.name = item.name .. " edited"
            end
            ctx:save()
            """.write(to: script, atomically: true, encoding: .utf8)
        try killRuns(of: "Lua bulk edit", base: base) { store in
            ["run", script.path, "--store", store, "--model", bundle]
        } check: { store, _, _, _ in
            try Self.expectOpens(store, items: [StressHarness.recordCount])
            return nil
        }
    }

    @Test func aKilledMigrationLeavesTheOldStoreOrTheNewAndAWholeBackup() throws {
        let folder = try TemporaryFolder()
        let bundle = try StressHarness.bundle(in: folder)
        let base = folder.url.appendingPathComponent("base.sqlite").path
        try StressHarness.succeed(
            ["import", "Item", "--create", "--store", base, "--model", bundle, "--model-version", "Stress"], input: StressHarness.items(count: StressHarness.recordCount))
        try killRuns(of: "migrate", base: base) { store in
            ["migrate", "--store", store, "--model", bundle]
        } check: { store, work, before, after in
            var notes: [String] = []
            let backups = try FileManager.default.contentsOfDirectory(atPath: work.url.path).filter { $0.hasSuffix(".bak") }
            for name in backups {
                let backup = try StoreState(path: work.url.appendingPathComponent(name).path)
                #expect(backup.isSound, "the backup \(name): \(backup.problems)")
                #expect(backup == before, "the backup \(name) is not the old store")
            }
            notes.append(backups.isEmpty ? "no backup" : "backup whole")
            if try StoreState(path: store) == before {
                // The next run must complete whatever the killed one left behind.
                try StressHarness.succeed(["migrate", "--store", store, "--model", bundle])
                let migrated = try StoreState(path: store)
                #expect(migrated.isSound, "after migrating again: \(migrated.problems)")
                #expect(migrated == after, "migrating again did not give the migrated store")
                notes.append("migrated again")
            }
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: work.url.path).filter { $0.contains(".migrating") }
            #expect(leftovers.isEmpty, "files a migration left: \(leftovers)")
            try Self.expectOpens(store, items: [StressHarness.recordCount])
            return notes.joined(separator: ", ")
        }
    }

    /// A migration killed between linking its backup and renaming the migrated store over the
    /// store leaves `<store>.<time>.bak` as a hard link of the store, changing with it: the
    /// next migration removes it and keeps a backup of its own, of the store it migrated.
    @Test func aBackupLinkLeftByAKilledMigrationIsReplaced() throws {
        let folder = try TemporaryFolder()
        let bundle = try StressHarness.bundle(in: folder)
        let store = folder.url.appendingPathComponent("Stress.sqlite").path
        let old = ["--store", store, "--model", bundle, "--model-version", "Stress"]
        try StressHarness.succeed(["import", "Item", "--create"] + old, input: StressHarness.items(count: 10))
        let stale = store + ".20260101T000000Z.bak"
        #expect(link(store, stale) == 0)
        try StressHarness.succeed(["import", "Item"] + old, input: StressHarness.items(count: 10, from: 11))
        let before = try StoreState(path: store)

        try StressHarness.succeed(["migrate", "--store", store, "--model", bundle])
        #expect(!FileManager.default.fileExists(atPath: stale), "the store's own file, linked as a backup, is still there")
        let backups = try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { $0.hasSuffix(".bak") }
        #expect(backups.count == 1, "\(backups)")
        for name in backups {
            let backup = try StoreState(path: folder.url.appendingPathComponent(name).path)
            #expect(backup.isSound, "\(backup.problems)")
            #expect(backup == before)
        }
    }

    // MARK: - Killing

    /// Runs `arguments(store)` uninterrupted on a copy of `base`, then once per kill point on a
    /// new copy, killed at that point; after each, checks the store against the states before
    /// and after and runs `check(store, folder, before, after)`, whose words join the report.
    func killRuns(
        of name: String, base: String, arguments: (String) -> [String],
        check: (String, TemporaryFolder, StoreState, StoreState) throws -> String?
    ) throws {
        let before = try StoreState(path: base)
        #expect(before.isSound, "the store before \(name): \(before.problems)")

        let complete = try TemporaryFolder()
        let completeStore = complete.url.appendingPathComponent("Stress.sqlite").path
        try StressHarness.copyStore(base, to: completeStore)
        let started = ContinuousClock.now
        try StressHarness.succeed(arguments(completeStore))
        let duration = ContinuousClock.now - started
        let after = try StoreState(path: completeStore)
        #expect(after.isSound, "the store after \(name): \(after.problems)")
        #expect(after != before, "\(name) changed nothing")
        _ = try check(completeStore, complete, before, after)

        var outcomes: [Outcome] = []
        for point in 1...StressHarness.killPoints {
            let work = try TemporaryFolder()
            let store = work.url.appendingPathComponent("Stress.sqlite").path
            try StressHarness.copyStore(base, to: store)
            let delay = duration * ((Double(point - 1) + Double.random(in: 0..<1)) / Double(StressHarness.killPoints))
            let process = try SpawnedStrata(arguments(store))
            // The wait is the subject: it picks the moment of the kill.
            Thread.sleep(forTimeInterval: delay.seconds)
            let completed = process.kill()
            if completed { #expect(process.finish() == 0, "\(name) ended on its own but failed: \(process.standardError)") }

            let state = try StoreState(path: store)
            #expect(state.isSound, "\(name) killed at \(point)/\(StressHarness.killPoints): \(state.problems)")
            let label: String
            if state == before {
                #expect(!completed, "\(name) ended on its own and changed nothing")
                label = "before"
            } else if state == after {
                label = "after"
            } else {
                label = "PARTIAL"
                Issue.record("\(name) killed at \(point)/\(StressHarness.killPoints) left a store that is neither as before nor as after: \(Self.difference(state, before: before, after: after))")
            }
            let notes = try check(store, work, before, after)
            outcomes.append(Outcome(label: label + (notes.map { " (\($0))" } ?? ""), completed: completed))
            StressHarness.report(String(
                format: "%@ kill %d/%d at %.2f s of %.2f s: %@%@, integrity %@", name, point, StressHarness.killPoints,
                delay.seconds, duration.seconds, label, notes.map { " (\($0))" } ?? "", state.isSound ? "ok" : state.problems)
                + (completed ? " [ended before the kill]" : ""))
        }
        let tally = Dictionary(grouping: outcomes, by: \.label).map { "\($0.key) ×\($0.value.count)" }.sorted().joined(separator: ", ")
        StressHarness.report("\(name): \(StressHarness.recordCount) records, \(outcomes.count) kills over \(String(format: "%.2f", duration.seconds)) s: \(tally)")
    }

    /// Expects `strata count Item` to open the store and count one of `items`.
    static func expectOpens(_ store: String, items: [Int], sourceLocation: Testing.SourceLocation = #_sourceLocation) throws {
        let count = try StrataRunner.run(["count", "Item", "--store", store])
        #expect(count.status == 0, "strata count: \(count.standardError)", sourceLocation: sourceLocation)
        let counted = Int(count.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        #expect(items.contains(counted), "strata count Item says \(counted), not one of \(items)", sourceLocation: sourceLocation)
    }

    /// Which tables of `state` are neither as before nor as after, with their row counts.
    private static func difference(_ state: StoreState, before: StoreState, after: StoreState) -> String {
        var lines = state.versionHashes == before.versionHashes || state.versionHashes == after.versionHashes ? [] : ["the version hashes"]
        for (table, rows) in state.tables.sorted(by: { $0.key < $1.key }) where rows != before.tables[table] && rows != after.tables[table] {
            lines.append("\(table): \(rows.count) rows (before \(before.tables[table]?.count ?? 0), after \(after.tables[table]?.count ?? 0))")
        }
        return lines.joined(separator: "; ")
    }
}
