import Foundation
import Strata

/// Case 19: the saves of cases 1 and 4 on a store that records persistent history, against
/// the same saves on a store that does not. Both stores start from the same rows; the one
/// with history already has Core Data's history tables, so that only recording is measured.
struct HistoryCase {
    let bench: Workbench
    let context: ContextCases
    let rounds: Int

    func saves() throws -> [CaseResult] {
        let empty = try withHistoryTables(bench.empty, named: "empty-history.sqlite")
        let full = try withHistoryTables(bench.full, named: "full-history.sqlite")
        defer { [empty, full].forEach(Workbench.remove) }
        var insert = Timings(), insertTracked = Timings(), update = Timings(), updateTracked = Timings()
        for _ in 0..<rounds {
            let plain = try bench.fresh(bench.empty), tracked = try bench.fresh(empty)
            try insert.time { try context.insertThroughContext(into: plain) }
            try insertTracked.time { try context.insertThroughContext(into: tracked, history: true) }
            try expectSameRows(plain, tracked)
            try expectHistory(in: tracked, changes: bench.people.count)
            [plain, tracked].forEach(bench.discard)

            let plainFull = try bench.fresh(bench.full), trackedFull = try bench.fresh(full)
            try update.time { try context.raiseScores(in: plainFull) }
            try updateTracked.time { try context.raiseScores(in: trackedFull, history: true) }
            try expectSameRows(plainFull, trackedFull)
            try expectHistory(in: trackedFull, changes: bench.people.count)
            [plainFull, trackedFull].forEach(bench.discard)
        }
        let count = bench.people.count
        return [
            CaseResult(number: "19a", title: "case 1's insert of \(count) with persistent history", strata: insertTracked.median,
                       baselineName: "the same without history", baseline: insert.median, goal: .atMost(1.25),
                       note: Self.processorNote(insertTracked, insert)),
            CaseResult(number: "19b", title: "case 4's update of \(count) with persistent history", strata: updateTracked.median,
                       baselineName: "the same without history", baseline: update.median, goal: .atMost(1.25),
                       note: Self.processorNote(updateTracked, update)),
        ]
    }

    /// The processor times of both, which load stretches less than elapsed times.
    private static func processorNote(_ tracked: Timings, _ plain: Timings) -> String {
        let (a, b) = (tracked.processorMedian, plain.processorMedian)
        return String(format: "CPU %.2f s vs %.2f s: %.2f×", a, b, a / b)
    }

    /// A copy of `template` with Core Data's history tables, made once per run.
    private func withHistoryTables(_ template: String, named name: String) throws -> String {
        let path = bench.path(name)
        Workbench.remove(path)
        try FileManager.default.copyItem(atPath: template, toPath: path)
        let store = try PersistentStore.open(at: path, model: People.model)
        try store.enablePersistentHistory()
        store.close()
        return path
    }

    /// The save recorded one transaction holding one change per person: recording did its work.
    private func expectHistory(in path: String, changes: Int) throws {
        let store = try PersistentStore.open(at: path, model: People.model, configuration: .readOnly)
        defer { store.close() }
        let transactions = try store.execute(.fetchHistory(after: nil)).transactions
        let recorded = transactions.reduce(0) { $0 + $1.changes.count }
        guard transactions.count == 1, recorded == changes else {
            throw CommandFailure(description: "\(path) recorded \(transactions.count) transactions of \(recorded) changes, not 1 of \(changes)")
        }
    }
}
