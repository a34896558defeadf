import Foundation
import Strata
import Testing
import StrataTestSupport

/// Several `strata` processes on one store at once: four `strata run` scripts make small
/// read-modify-write increments of shared counters while `strata import` brings items. No
/// increment may be lost, no process may fail with "database is locked", and a stale save
/// (another process saved the counter since this one read it) fails with the Lua error code
/// `conflict`, after which the script refreshes and tries again, as the README describes.
@Suite struct ConcurrentProcessTests {
    /// The script each updater runs: `increments` increments of the counters a, b and c in
    /// turn, each read, raised by one and saved, retried after `ctx:refresh()` on a conflict;
    /// prints how many saves it retried.
    static let updater = """
        local increments = tonumber(arg[1])
        local names = {"a", "b", "c"}
        local retries = 0
        for i = 1, increments do
          local name = names[i % #names + 1]
          while true do
            local counter = ctx:first("Counter", "name == %@", name)
            counter.value = counter.value + 1
            local saved, err = pcall(ctx.save, ctx)
            if saved then break end
            if type(err) ~= "table" or err.code ~= "conflict" then error(err, 0) end
            retries = retries + 1
            ctx:refresh()
          end
        end
        print("retries " .. retries)
        """

    @Test func updatersAndAnImporterLoseNothing() throws {
        let folder = try TemporaryFolder()
        let bundle = try StressHarness.bundle(in: folder)
        let store = folder.url.appendingPathComponent("Stress.sqlite").path
        let model = ["--store", store, "--model", bundle]
        try StressHarness.succeed(["import", "Counter", "--create"] + model, input: Data(#"[{"name": "a"}, {"name": "b"}, {"name": "c"}]"#.utf8))
        let script = folder.url.appendingPathComponent("updater.lua")
        try Self.updater.write(to: script, atomically: true, encoding: .utf8)
        let records = folder.url.appendingPathComponent("records.ndjson")
        try StressHarness.items(count: StressHarness.concurrentRecords).write(to: records)

        let started = ContinuousClock.now
        // The import is one transaction, holding the write lock to its end: the updaters wait
        // for it with a busy timeout longer than it runs. The importer waits as long: SQLite's
        // busy handler polls rather than queues, so short transactions alone do not bound its
        // wait while four updaters take turns on a loaded machine (a sanitizer's CI run).
        let updaters = try (1...StressHarness.updaters).map { _ in
            try SpawnedStrata(["run", script.path, "--store", store, "--model", bundle, "--busy-timeout", "300", "--", "\(StressHarness.increments)"])
        }
        let importer = try SpawnedStrata(["import", "Item", records.path, "--busy-timeout", "300"] + model)
        var retries = 0
        var busy = 0
        for (index, updater) in updaters.enumerated() {
            let status = updater.finish()
            #expect(status == 0, "updater \(index + 1) failed: \(updater.standardError)")
            busy += updater.standardError.contains("database is locked") ? 1 : 0
            let line = updater.standardOutput.split(separator: "\n").last { $0.hasPrefix("retries ") }
            retries += line.flatMap { Int($0.dropFirst("retries ".count)) } ?? 0
        }
        #expect(importer.finish() == 0, "the importer failed: \(importer.standardError)")
        busy += importer.standardError.contains("database is locked") ? 1 : 0
        let duration = ContinuousClock.now - started
        #expect(busy == 0, "processes failed with \"database is locked\"")

        let state = try StoreState(path: store)
        #expect(state.isSound, "\(state.problems)")
        let sum = try StrataRunner.run(["query", "Counter", "--select", "sum(value) as total", "--format", "csv", "--store", store])
        #expect(sum.status == 0, "\(sum.standardError)")
        let total = sum.standardOutput.split(whereSeparator: \.isNewline).last.map(String.init) ?? ""
        let expected = StressHarness.updaters * StressHarness.increments
        #expect(total == "\(expected)", "the counters' sum is \(total), not \(expected)")
        #expect(state.rows(of: "Item").count == StressHarness.concurrentRecords)
        StressHarness.report(String(
            format: "concurrency: %d updaters × %d increments and an import of %d items in %.2f s: counters' sum %@ (expected %d), %d conflicts retried, %d busy failures",
            StressHarness.updaters, StressHarness.increments, StressHarness.concurrentRecords, duration.seconds,
            total, expected, retries, busy))
    }
}
