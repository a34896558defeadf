import Foundation
import Strata
import Testing
@testable import StrataLua
import StrataTestSupport

/// The stack in scripts: updates that keep only what they commit, background work, reset, and
/// the object methods that need a stack around them.
@Suite struct StackBindingTests {
    static func stack() throws -> (DataStack, LuaState) {
        let model = try ContextBindingTests.libraryModel()
        let stack = try DataStack(model: model, modelName: "Library", store: .inMemory)
        let lua = try LuaState()
        // A worker of the stack stands in for its main context, whose queue is the main thread's.
        lua.installStrata(context: stack.newWorkerContext(name: "script"), stack: stack)
        return (stack, lua)
    }

    @Test func updatesKeepOnlyWhatTheyCommitAndBackgroundWorkSaves() throws {
        let (stack, lua) = try Self.stack()
        let results = try lua.run("""
            stack:update(function(u) u:create('Book', {name = 'kept'}) u:commit() end)
            stack:update(function(u) u:create('Book', {name = 'dropped'}) end)
            stack:background(function(c) c:create('Author', {name = 'Le Guin'}) end)
            local description = stack:description()
            return ctx:count('Book'), ctx:count('Author'), type(description), tostring(stack) == description
            """, name: "=stack")
        #expect(results == [1, 1, "string", true])
        try lua.run("stack:reset()", name: "=reset")
        #expect(try stack.store.count(of: "Book") == 0)
    }

    @Test func objectMethodsDescribeAndDelete() throws {
        let (_, lua) = try Self.stack()
        let results = try lua.run("""
            local author = ctx:create('Author', {name = 'Le Guin'})
            local book = ctx:create('Book', {name = 'Earthsea', order = 1, author = author})
            local page = ctx:create('Page', {number = 1, book = book})
            ctx:save()
            local t = book:to_table()
            local id = book:id()
            book:delete('replaced')
            ctx:save()
            return t.name, t.order, t.author == author:id(), #t.pages, id:match('^x%-coredata://') ~= nil, ctx:count('Page'), pcall(function() return book.name end)
            """, name: "=methods")
        // The page goes with its book (Cascade); once the deletion is saved the object is gone.
        #expect(results.prefix(7) == ["Earthsea", 1, true, 1, true, 0, false])
    }

    @Test func errorsInsideTransactionsRollBackAndCarryTheirCode() throws {
        let (_, lua) = try Self.stack()
        let results = try lua.run("""
            local ok, e = pcall(ctx.transaction, ctx, function()
              ctx:create('Book', {name = 'x'})
              ctx:create('Book', {order = 1})
            end)
            return ok, e.code, ctx:count('Book'), ctx:has_changes()
            """, name: "=tx")
        #expect(results == [false, "validation", 0, false])
    }

    /// A save of an object another process changed since the script read it fails with the
    /// code `conflict`; `ctx:refresh()` drops the stale change from the script's context and
    /// from the contexts it saves through, so that the object read again has the store's
    /// values and saves.
    @Test func aStaleSaveFailsWithConflictAndARefreshReadsTheStoreAgain() throws {
        let temporary = try TemporaryFolder("strata-lua")
        let folder = temporary.url
        let model = try ContextBindingTests.libraryModel()
        let url = folder.appendingPathComponent("Library.sqlite")
        let stack = try DataStack(model: model, modelName: "Library", store: .sqlite(url))
        let lua = try LuaState()
        lua.installStrata(context: stack.newWorkerContext(name: "script"), stack: stack)
        try lua.run("ctx:create('Book', {name = 'x', order = 1}) ctx:save() book = ctx:first('Book') assert(book.order == 1)", name: "=seed")

        let other = try PersistentStore.open(at: url.path, model: model)
        defer { other.close() }
        let context = ObjectContext(store: other, name: "another process")
        try context.performAndWait {
            let book = try #require(try context.fetch(FetchRequest(entityName: "Book")).first)
            try book.setValue(5, forKey: "order")
            try context.save()
        }

        let results = try lua.run("""
            book.order = book.order + 1
            local saved, e = pcall(ctx.save, ctx)
            ctx:refresh()
            local fresh = ctx:first('Book')
            local seen = fresh.order
            fresh.order = fresh.order + 1
            ctx:save()
            return saved, e.code, seen, ctx:first('Book').order
            """, name: "=retry")
        #expect(results == [false, "conflict", 5, 6])
        #expect(try other.count(of: "Book") == 1)
    }
}
