import Foundation
import Strata

/// Case 17: what keeping a `FetchedResultsController` up to date costs. A writer saves a few
/// changed people at a time and a viewer merges each save; the viewer's controller watches
/// every person, or only a thousand. The changes are the same in both runs, so the two times
/// differ only by what the controller's size costs: the goal is that it costs nothing much.
struct WatchCase {
    let bench: Workbench
    let rounds: Int
    static let saves = 20
    static let changesPerSave = 10

    func updates() throws -> CaseResult {
        let everyone = bench.people.count
        let few = min(1_000, max(everyone / 10, Self.saves * Self.changesPerSave))
        var large = Timings(), small = Timings()
        for _ in 0..<rounds {
            let path = try bench.fresh(bench.full)
            large.record(try time(watching: everyone, changedAmong: few, on: path))
            small.record(try time(watching: few, changedAmong: few, on: path))
            bench.discard(path)
        }
        return CaseResult(
            number: "17", title: "\(Self.saves) saves of \(Self.changesPerSave) people merged into a context watching \(everyone) (`FetchedResultsController`)",
            strata: large.median, baselineName: "the same, watching \(few)", baseline: small.median, goal: .atMost(1.5))
    }

    /// Seconds for the writer's saves, each merged into a viewer whose controller watches the
    /// people of id ≤ `watched` sorted by score; the changed people are among the first `changedAmong`.
    private func time(watching watched: Int, changedAmong candidates: Int, on path: String) throws -> Double {
        let store = try PersistentStore.open(at: path, model: People.model)
        defer { store.close() }
        let viewer = ObjectContext(store: store, name: "viewer"), writer = ObjectContext(store: store, name: "writer")
        let observation = writer.addDidSaveObserver { note in viewer.performAndWait { viewer.mergeChanges(fromContextDidSave: note) } }
        defer { observation.cancel() }
        let request = FetchRequest(
            entityName: People.entityName, predicate: try ObjectPredicate(format: "id <= %@", Int64(watched)),
            sortDescriptors: [ObjectSortDescriptor("score")])
        let controller = FetchedResultsController(fetchRequest: request, context: viewer)
        var told = 0
        try viewer.performAndWait {
            try controller.performFetch()
            controller.onChange = { change in told += change.moved.count + change.updated.count }
        }
        var timings = Timings()
        try timings.time {
            try writer.performAndWait {
                for save in 0..<Self.saves {
                    let ids = (0..<Self.changesPerSave).map { Int64(1 + (save * Self.changesPerSave + $0) * 7 % candidates) }
                    let people = try writer.fetch(FetchRequest(entityName: People.entityName, predicate: try ObjectPredicate(format: "id IN %@", ids)))
                    for person in people { try person.setValue((person["score"] as? Double ?? 0) + 1, forKey: "score") }
                    try writer.save()
                }
            }
        }
        guard told == Self.saves * Self.changesPerSave else {
            throw CommandFailure(description: "case 17: the controller watching \(watched) told \(told) changes, not \(Self.saves * Self.changesPerSave)")
        }
        return timings.median
    }
}
