import Foundation
import Strata
import Testing
@testable import StrataLua
import StrataTestSupport

/// A script on the main context of a three-tier stack (as `strata run` and `strata shell`
/// run it) sees another process's save at `ctx:poll`: through history where the store keeps
/// it, by comparing rows where it does not.
@Suite struct ExternalChangeWatchTests {
    @Test(arguments: [true, false])
    func aWatchOnAThreeTierStackSeesAnotherProcessSave(history: Bool) throws {
        let temporary = try TemporaryFolder("strata-lua")
        let folder = temporary.url
        let model = try ContextBindingTests.libraryModel()
        var options = DataStack.Options()
        options.tracksPersistentHistory = history
        let stack = try DataStack(model: model, modelName: "Library", store: .sqlite(folder.appendingPathComponent("Library.sqlite")), options: options)
        defer { stack.cleanUp() }
        #expect(stack.options.topology == .threeTier && stack.mainContext.parent != nil)
        let lua = try LuaState()
        lua.installStrata(context: stack.mainContext, stack: stack)
        try lua.run(ContextBindingTests.seed, name: "=seed")
        try lua.run(#"""
            names = {} updated = 0
            watch = ctx:watch("Book", "order > 5", function(c)
              for _, b in ipairs(c.inserted) do names[#names + 1] = b.name end
              updated = updated + #c.updated
            end)
            """#, name: "=watch")
        let other = try PersistentStore.open(at: stack.store.path, model: model)
        defer { other.close() }
        let outsider = ObjectContext(store: other, name: "another process")
        try WatchBindingTests.saveBook("Parable", order: 12, in: outsider)
        #expect(try lua.run("return ctx:poll(), table.concat(names, ','), watch:count()", name: "=poll")
            == [.integer(1), .string("Parable"), .integer(2)])
        try outsider.performAndWait {
            let dune = try outsider.fetch(FetchRequest(entityName: "Book", predicate: try ObjectPredicate(format: "name == 'Dune'")))[0]
            try dune.setValue(10, forKey: "order")
            try outsider.save()
        }
        #expect(try lua.run("return ctx:poll(), updated, ctx:first('Book', \"name == 'Dune'\").order", name: "=poll")
            == [.integer(1), .integer(1), .integer(10)])
    }
}
