import Foundation
import Strata
import Testing
@testable import StrataLua

/// `ctx:watch` calls its function with each change to the results it follows, on the
/// script's thread, after the call that caused it or on `ctx:poll`.
@Suite struct WatchBindingTests {
    @Test func eachChangeReachesTheWatchFunction() throws {
        let fixture = try ContextBindingTests.Fixture()
        try fixture.run(ContextBindingTests.seed)
        let result = try fixture.run("""
            local seen = {}
            local w = ctx:watch("Book", {where = "rating >= 4", sort = {"name"}}, function(c)
              seen[#seen + 1] = #c.inserted .. "/" .. #c.updated .. "/" .. #c.moved .. "/" .. #c.deleted .. " of " .. c.count
            end)
            local before = w:count()
            local book = ctx:create("Book", {name = "Kindred", rating = 5})
            ctx:save()
            book.rating = 4.5
            ctx:save()
            book.name = "Kindred (2nd ed.)"
            ctx:save()
            book.order = 7
            ctx:save()
            ctx:delete(book)
            ctx:save()
            w:stop()
            ctx:create("Book", {name = "Dawn", rating = 5})
            ctx:save()
            return before .. ": " .. table.concat(seen, ", ")
            """)
        #expect(result == [.string("2: 1/0/0/0 of 3, 0/1/0/0 of 3, 0/0/1/0 of 3, 0/1/0/0 of 3, 0/0/0/1 of 2")])
    }

    @Test func pollHandsOverWhatAnotherContextSaved() throws {
        let fixture = try ContextBindingTests.Fixture()
        try fixture.run(ContextBindingTests.seed)
        try fixture.run("""
            names = {}
            watch = ctx:watch("Book", {where = "order > %@", args = {5}, sort = {"name"}}, function(c)
              for _, b in ipairs(c.inserted) do names[#names + 1] = b.name end
            end)
            """)
        let writer = ObjectContext(store: fixture.store, name: "writer")
        let viewer = fixture.context
        // The merge comes later, on the viewer's queue: ctx:poll waits for it.
        let observation = writer.addDidSaveObserver { note in viewer.perform { viewer.mergeChanges(fromContextDidSave: note) } }
        try Self.saveBook("Xenogenesis", order: 10, in: writer)
        let result = try fixture.run("return ctx:poll(1), table.concat(names, ','), watch:count()")
        #expect(result == [.integer(1), .string("Xenogenesis"), .integer(2)])
        withExtendedLifetime(observation) {}
    }

    @Test func pollTakesInWhatAnotherProcessSaved() throws {
        let fixture = try ContextBindingTests.Fixture()
        try fixture.run(ContextBindingTests.seed)
        try fixture.run(#"names = {} watch = ctx:watch("Book", "order > 5", function(c) for _, b in ipairs(c.inserted) do names[#names + 1] = b.name end end)"#)
        let other = try PersistentStore.open(at: fixture.folder.appendingPathComponent("Library.sqlite").path, model: fixture.store.model)
        let outsider = ObjectContext(store: other, name: "another process")
        try Self.saveBook("Parable", order: 12, in: outsider)
        let result = try fixture.run("return ctx:poll(), table.concat(names, ',')")
        #expect(result == [.integer(1), .string("Parable")])
        other.close()
    }

    /// Saves a new book through `context`, as a script's other contexts or another process would.
    static func saveBook(_ name: String, order: Int, in context: ObjectContext) throws {
        try context.performAndWait {
            let book = try context.insert("Book")
            try book.setValue(name, forKey: "name")
            try book.setValue(order, forKey: "order")
            try context.save()
        }
    }

    @Test func aWatchNeedsAFunction() throws {
        let fixture = try ContextBindingTests.Fixture()
        #expect(throws: LuaError.self) { try fixture.run(#"ctx:watch("Book", "rating > 4")"#) }
        #expect(throws: LuaError.self) { try fixture.run(#"ctx:watch("Nope", function() end)"#) }
    }
}
