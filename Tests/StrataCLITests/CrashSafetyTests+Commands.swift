import Foundation
import Strata
import Testing
import StrataTestSupport

/// The admin's commands that delete, replace or create a store, killed as ``CrashSafetyTests``
/// kills the others.
extension CrashSafetyTests {
    /// The stress bundle and a store of ``StressHarness/recordCount`` imported items, in `folder`.
    static func storeOfItems(in folder: TemporaryFolder) throws -> (bundle: String, store: String) {
        let bundle = try StressHarness.bundle(in: folder)
        let base = folder.url.appendingPathComponent("base.sqlite").path
        try StressHarness.succeed(["import", "Item", "--create", "--store", base, "--model", bundle], input: StressHarness.items(count: StressHarness.recordCount))
        return (bundle, base)
    }

    @Test func aKilledDeleteLeavesTheStoreAsBeforeOrAfter() throws {
        let folder = try TemporaryFolder()
        let (bundle, base) = try Self.storeOfItems(in: folder)
        try killRuns(of: "delete", base: base) { store in
            ["delete", "Item", "--where", "value < 500", "--store", store, "--model", bundle]
        } check: { store, _, before, after in
            try Self.expectOpens(store, items: [before.rows(of: "Item").count, after.rows(of: "Item").count])
            return nil
        }
    }

    @Test func aKilledPruneLeavesTheStoreAsBeforeOrAfter() throws {
        let folder = try TemporaryFolder()
        let (bundle, base) = try Self.storeOfItems(in: folder)
        // Counters without the name the model requires, as another program might leave them.
        let database = try Database(path: base)
        try database.inTransaction {
            let entity = try #require(try database.scalar("SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Counter'")?.int64Value)
            for key in 1...Int64(StressHarness.recordCount) {
                try database.execute(
                    "INSERT INTO ZCOUNTER (Z_PK, Z_ENT, Z_OPT, ZNAME, ZVALUE) VALUES (?, ?, 1, ?, ?)",
                    [.integer(key), .integer(entity), key % 2 == 0 ? .null : .text("counter \(key)"), .integer(key)])
            }
            try database.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_NAME = 'Counter'", [.integer(Int64(StressHarness.recordCount))])
        }
        database.close()
        try killRuns(of: "prune", base: base) { store in
            ["prune", "--invalid", "Counter", "--store", store, "--model", bundle]
        } check: { store, _, _, _ in
            try Self.expectOpens(store, items: [StressHarness.recordCount])
            return nil
        }
    }

    /// Whatever a killed reset left, the store opens and a reset run again succeeds: an app
    /// that dies while its user logs out still starts.
    @Test func aKilledResetLeavesTheOldStoreOrTheEmptyOneAndResetsAgain() throws {
        let folder = try TemporaryFolder()
        let (bundle, base) = try Self.storeOfItems(in: folder)
        try killRuns(of: "reset", base: base) { store in
            ["reset", "--yes", "--store", store, "--model", bundle]
        } check: { store, work, before, after in
            try Self.expectOpens(store, items: [before.rows(of: "Item").count, 0])
            try StressHarness.succeed(["reset", "--yes", "--store", store, "--model", bundle])
            let again = try StoreState(path: store)
            #expect(again.isSound && again == after, "resetting again: \(again.problems)")
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: work.url.path).filter { $0.contains("strata-reset") }
            #expect(leftovers.isEmpty, "files a reset left: \(leftovers)")
            return "reset again"
        }
    }

    /// A killed `create` leaves no store, or the whole empty store: never a file that does not
    /// open, which would also make the next `create` fail.
    @Test func aKilledCreateLeavesNoStoreOrAWholeOne() throws {
        let folder = try TemporaryFolder()
        let bundle = try StressHarness.bundle(in: folder)
        let complete = folder.url.appendingPathComponent("complete.sqlite").path
        let started = ContinuousClock.now
        try StressHarness.succeed(["create", "--store", complete, "--model", bundle])
        let duration = ContinuousClock.now - started
        let created = try StoreState(path: complete)

        var tally: [String: Int] = [:]
        for point in 1...StressHarness.killPoints {
            let work = try TemporaryFolder()
            let store = work.url.appendingPathComponent("Stress.sqlite").path
            let process = try SpawnedStrata(["create", "--store", store, "--model", bundle])
            // The wait is the subject: it picks the moment of the kill.
            Thread.sleep(forTimeInterval: (duration * ((Double(point - 1) + Double.random(in: 0..<1)) / Double(StressHarness.killPoints))).seconds)
            if process.kill() { #expect(process.finish() == 0, "create ended on its own but failed: \(process.standardError)") }
            let label: String
            if FileManager.default.fileExists(atPath: store) {
                let state = try StoreState(path: store)
                #expect(state.isSound && state == created, "create killed at \(point)/\(StressHarness.killPoints) left a store unlike a created one")
                label = "created"
            } else {
                try StressHarness.succeed(["create", "--store", store, "--model", bundle])
                label = "none (created again)"
            }
            let visible = try FileManager.default.contentsOfDirectory(atPath: work.url.path).filter { !$0.hasPrefix(".") }
            #expect(visible == ["Stress.sqlite"], "files beside the store: \(visible)")
            tally[label, default: 0] += 1
        }
        StressHarness.report("create: \(StressHarness.killPoints) kills over \(String(format: "%.2f", duration.seconds)) s: "
            + tally.map { "\($0.key) ×\($0.value)" }.sorted().joined(separator: ", "))
    }
}
