import Foundation
import Strata
import Testing
@testable import StrataLua

/// Imports, deprecated-object cleanup, invalid objects and hooks from scripts.
@Suite struct ImportBindingTests {
    typealias Fixture = ContextBindingTests.Fixture

    @Test func aScriptImportsTablesAndJsonTextAndPrunes() throws {
        let fixture = try Fixture()
        let first = try fixture.run("""
            local report = ctx:import("Book", {{name = "A", order = 1, pages = {{number = 1}, {number = 2}}}, {name = "B", order = 2}}, {identity = {Book = "name"}})
            ctx:save()
            return report.entities.Book.created, report.entities.Page.created, report.description
            """)
        #expect(first == [2, 2, "Book: 2 created\nPage: 2 created"])
        let second = try fixture.run("""
            local report = ctx:import("Book", '[{"name": "A", "order": 5}]', {identity = {Book = "name"}, prune = true})
            ctx:save()
            return report.entities.Book.updated, report.entities.Book.deleted
            """)
        #expect(second == [1, 1])
        #expect(try fixture.savedBookNames() == ["A"])
    }

    @Test func aFailedImportLeavesTheContextAsItWas() throws {
        let fixture = try Fixture()
        do {
            try fixture.run(#"ctx:create("Book", {name = "kept"}) ctx:import("Book", {{name = "A"}, {name = "B", order = "many"}})"#)
            Issue.record("no error")
        } catch {
            #expect(error.code == "import")
            #expect(error.message.contains("order"), "\(error.message)")
        }
        #expect(try fixture.run("return ctx:count('Book')") == [1], "the created book stays, the import's are gone")
    }

    @Test func hooksDecideForTheImport() throws {
        let fixture = try Fixture()
        let results = try fixture.run("""
            local heard = {}
            strata.hooks.invalid_reason("Book", function(book) if #book.pages == 0 then return "no pages" end end)
            strata.hooks.should_update("Book", function(book, json) return json.order ~= book.order end)
            strata.hooks.after_import("Page", function(page, json, state) heard[#heard + 1] = json.number .. " " .. state end)
            local s = ctx:import_session({identity = {Book = "name"}})
            local report = s:import("Book", {{name = "A", order = 1, pages = {{number = 1}}}, {name = "empty"}})
            ctx:save()
            local again = s:import("Book", {{name = "A", order = 1, pages = {{number = 9}}}})
            return report.invalid[1], table.concat(heard, ","), again.entities.Book.unchanged, #ctx:first("Book").pages, s:remove_deprecated({"Book"})
            """)
        #expect(results == [#"Book "empty": no pages"#, "1 created", 1, 1, 0])
    }

    @Test func pruneInvalidListsWhatItDeletes() throws {
        let fixture = try Fixture()
        try fixture.run("ctx:create('Book', {name = 'ok'}) ctx:save()")
        // A row another tool wrote, without the required name.
        try fixture.store.withConnection { try fixture.store.database.execute("INSERT INTO ZBOOK (Z_PK, Z_ENT, Z_OPT) VALUES (99, 2, 1)") }
        let results = try fixture.run("local gone = ctx:prune_invalid({'Book'}) ctx:save() return #gone, gone[1].entity, gone[1].reason")
        #expect(results == [1, "Book", "name is required"])
    }
}
