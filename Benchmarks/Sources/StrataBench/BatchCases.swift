import CBaseline
import Foundation
import Strata

/// Cases 9 to 11: Core Data's batch requests against the same SQL written in C.
struct BatchCases {
    let bench: Workbench
    let rounds: Int

    // MARK: - 9. Batch insert

    func insert() throws -> CaseResult {
        let objects: [[String: AttributeValue?]] = bench.people.map { person in
            ["id": .integer(person.id), "name": .string(person.name), "age": .integer(Int64(person.age)),
             "score": .double(person.score), "city": .string(person.city)]
        }
        var strata = Timings(), c = Timings()
        for _ in 0..<rounds {
            let strataPath = try bench.fresh(bench.empty)
            try strata.time {
                let context = ObjectContext(store: try PersistentStore.open(at: strataPath, model: People.model), name: "bench")
                try context.performAndWait { _ = try context.execute(BatchInsertRequest(entityName: People.entityName, objects: objects)) }
            }
            let cPath = try bench.fresh(bench.empty)
            try withBaselineRows(bench.people) { rows, count in
                try c.time { try baseline { baseline_insert(cPath, rows, count, $0, $1) } }
            }
            try expectSameRows(strataPath, cPath)
            [strataPath, cPath].forEach(bench.discard)
        }
        return CaseResult(number: "9", title: "batch insert \(bench.people.count) objects (`BatchInsertRequest`)", strata: strata.median,
                          baselineName: "C insert", baseline: c.median, goal: .atMost(1.3))
    }

    // MARK: - 10. Batch update

    func update() throws -> CaseResult {
        let request = BatchUpdateRequest(entityName: People.entityName, propertiesToUpdate: ["city": .string("Moved")])
        let (strata, c) = try compare({ _ = try $0.execute(request) }, with: "UPDATE ZPERSON SET ZCITY = 'Moved', Z_OPT = Z_OPT + 1")
        return CaseResult(number: "10", title: "batch update one attribute of \(bench.people.count) objects (`BatchUpdateRequest`)",
                          strata: strata, baselineName: "C, the same UPDATE", baseline: c, goal: .atMost(1.3))
    }

    // MARK: - 11. Batch delete

    func delete() throws -> CaseResult {
        let request = BatchDeleteRequest(entityName: People.entityName, predicate: try ObjectPredicate(format: "age < 50"))
        let (strata, c) = try compare({ _ = try $0.execute(request) }, with: "DELETE FROM ZPERSON WHERE ZAGE < 50")
        return CaseResult(number: "11", title: "batch delete the objects `age < 50` of \(bench.people.count) (`BatchDeleteRequest`)",
                          strata: strata, baselineName: "C, the same DELETE", baseline: c, goal: .atMost(1.3))
    }

    /// The median times of `run` on a context and of `sql` in C, each on its own copy of the
    /// full store every round, which must hold the same rows afterwards.
    private func compare(_ run: (ObjectContext) throws -> Void, with sql: String) throws -> (strata: Double, c: Double) {
        var strata = Timings(), c = Timings()
        for _ in 0..<rounds {
            let strataPath = try bench.fresh(bench.full)
            try strata.time {
                let context = ObjectContext(store: try PersistentStore.open(at: strataPath, model: People.model), name: "bench")
                try context.performAndWait { try run(context) }
            }
            let cPath = try bench.fresh(bench.full)
            try c.time { try baseline { baseline_exec(cPath, sql, $0, $1) } }
            try expectSameRows(strataPath, cPath)
            [strataPath, cPath].forEach(bench.discard)
        }
        return (strata.median, c.median)
    }
}
