import CBaseline
import Foundation
import Strata
import StrataLua

/// Case 6: case 4's bulk edit written in Lua, as a `strata run` script does it.
struct ScriptCase {
    let bench: Workbench
    let rounds: Int

    static let script = """
        for p in ctx:each("Person") do p.score = p.score + 1 end
        ctx:save()
        """

    func bulkEdit(comparedTo update: CaseResult) throws -> CaseResult {
        var lua = Timings()
        for _ in 0..<rounds {
            let path = try bench.fresh(bench.full)
            try lua.time { try run(in: path) }
            let expected = try bench.fresh(bench.full)
            try baseline { baseline_update_scores(expected, $0, $1) }
            try expectSameRows(path, expected)
            [path, expected].forEach(bench.discard)
        }
        return CaseResult(number: "6", title: "case 4's edit in Lua (`ctx:each`, `ctx:save()`)", strata: lua.median,
                          baselineName: "case 4 in Swift", baseline: update.strata, goal: .atMost(3))
    }

    private func run(in path: String) throws {
        let context = ObjectContext(store: try PersistentStore.open(at: path, model: People.model), name: "bench")
        let lua = try LuaState()
        lua.installStrata(context: context)
        try context.performAndWait { _ = try lua.run(Self.script, name: "=bulk-edit") }
    }
}
