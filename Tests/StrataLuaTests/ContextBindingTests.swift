import Foundation
import Strata
import Testing
@testable import StrataLua
import StrataTestSupport

/// The context API as scripts see it, on a small library store.
@Suite struct ContextBindingTests {
    static let model = """
        {"entities": [
          {"name": "Author", "attributes": [{"name": "name", "type": "string"}],
           "relationships": [{"name": "books", "destination": "Book", "inverse": "author", "toMany": true}]},
          {"name": "Book", "attributes": [{"name": "name", "type": "string", "optional": false}, {"name": "order", "type": "integer32"},
             {"name": "rating", "type": "double"}, {"name": "published", "type": "date"}],
           "relationships": [{"name": "author", "destination": "Author", "inverse": "books"},
             {"name": "pages", "destination": "Page", "inverse": "book", "toMany": true, "ordered": true, "deleteRule": "cascade"}]},
          {"name": "Page", "attributes": [{"name": "number", "type": "integer32"}],
           "relationships": [{"name": "book", "destination": "Book", "inverse": "pages"}]}
        ]}
        """

    /// The library model, as the Lua suites that make a stack of their own read it.
    static func libraryModel() throws -> ObjectModel {
        try JSONModelReader.read(Data(model.utf8), path: "library.json")
    }

    /// A store, a context on it and a state with Strata installed, in a temporary folder
    /// removed when the fixture goes away.
    final class Fixture {
        /// Held as a property, so that the folder goes even when `init` throws half-way.
        private let temporary: TemporaryFolder
        var folder: URL { temporary.url }
        let store: PersistentStore
        let context: ObjectContext
        let lua: LuaState

        /// A store named `name` of the JSON model `model` (the library by default).
        init(model: String = ContextBindingTests.model, name: String = "Library") throws {
            temporary = try TemporaryFolder("strata-lua")
            let model = try JSONModelReader.read(Data(model.utf8), path: name.lowercased() + ".json")
            store = try PersistentStore.create(at: temporary.path(name + ".sqlite"), model: model)
            context = ObjectContext(store: store, name: "lua")
            lua = try LuaState()
            lua.installStrata(context: context)
        }

        deinit {
            store.close()
        }

        @discardableResult
        func run(_ chunk: String) throws(LuaError) -> [LuaValue] {
            try lua.run(chunk, name: "=test")
        }

        /// The names of the saved books, read through a context of their own.
        func savedBookNames() throws -> [String] {
            let reader = ObjectContext(store: store)
            return try reader.performAndWait {
                try reader.fetch(FetchRequest(entityName: "Book", sortDescriptors: [ObjectSortDescriptor("name")])).map { $0["name"] as? String ?? "?" }
            }
        }
    }

    static let seed = """
        local leguin = ctx:create("Author", {name = "Le Guin"})
        for i, name in ipairs({"Earthsea", "Tombs", "Shore"}) do
          local book = ctx:create("Book", {name = name, order = i, rating = 3 + i / 2, author = leguin})
          for n = 1, i do book.pages:add(ctx:create("Page", {number = n})) end
        end
        ctx:create("Book", {name = "Dune", order = 9, published = "1965-08-01"})
        ctx:save()
        """

    @Test func batchRequestsWriteInSQLAndTheContextSeesWhatTheyDid() throws {
        let fixture = try Fixture()
        try fixture.run(Self.seed)
        let results = try fixture.run("""
            local dune = ctx:first("Book", "name == 'Dune'")
            local inserted = ctx:batch_insert("Book", {{name = "Emma", order = 20}, {name = "Ulysses", order = 21, rating = 5}})
            local updated = ctx:batch_update("Book", {rating = 1.5}, "order >= %@", 9)
            local deleted = ctx:batch_delete("Book", {where = "name == %@", args = {"Shore"}})
            return inserted, updated, deleted, dune.rating, ctx:count("Book"), ctx:count("Page"), ctx:has_changes()
            """)
        // Shore takes its three pages with it (Cascade).
        #expect(results == [2, 3, 4, 1.5, 5, 3, false])
        #expect(try fixture.savedBookNames() == ["Dune", "Earthsea", "Emma", "Tombs", "Ulysses"])
        #expect {
            try fixture.run("ctx:batch_insert('Book', {{order = 1}})")
        } throws: { error in
            (error as? LuaError)?.message.hasSuffix("Book object 1: name: is required") == true && (error as? LuaError)?.code == "batch"
        }
        #expect(try fixture.savedBookNames().count == 5)
    }

    @Test func scriptsCreateFetchAndSave() throws {
        let fixture = try Fixture()
        try fixture.run(Self.seed)
        #expect(try fixture.savedBookNames() == ["Dune", "Earthsea", "Shore", "Tombs"])
        let results = try fixture.run("""
            local books = ctx:fetch("Book", "order > %@ AND name BEGINSWITH[c] %@", 1, "t")
            local sorted = ctx:fetch("Book", {where = "rating >= %@", args = {4}, sort = {"-order"}, limit = 2})
            local names = {}
            for _, b in ipairs(sorted) do names[#names + 1] = b.name end
            return #books, books[1].name, table.concat(names, ","), ctx:count("Book"), ctx:any("Book", "order > 100"),
              ctx:first("Book", {sort = {"name"}}).name, ctx:first("Book", "name == 'nope'")
            """)
        #expect(results == [1, "Tombs", "Shore,Tombs", 4, false, "Dune", .nil])
        let dune = try fixture.run("local d = ctx:first('Book', 'name == %@', 'Dune') return d.published, d.rating, d.author, d:entity(), tostring(d)")
        #expect(dune[0] == "1965-08-01T00:00:00Z")
        #expect(dune[1] == .nil && dune[2] == .nil && dune[3] == "Book")
        if case .string(let text) = dune[4] { #expect(text.hasPrefix("<Book p4 {") && text.contains(#"name="Dune""#)) } else { Issue.record("\(dune[4])") }
    }

    @Test func relationshipsReadAndChangeFromBothSides() throws {
        let fixture = try Fixture()
        try fixture.run(Self.seed)
        let results = try fixture.run("""
            local shore = ctx:first("Book", "name == 'Shore'")
            local numbers = {}
            for page in shore.pages:each() do numbers[#numbers + 1] = page.number end
            local last = shore.pages[3]
            shore.pages:remove(last)
            local author = shore.author
            return #shore.pages, table.concat(numbers, ","), last.book, author.name, #author.books, shore.pages[1] == shore.pages[1]
            """)
        #expect(results == [2, "1,2,3", .nil, "Le Guin", 3, true])
        try fixture.run("local d = ctx:first('Book', 'name == %@', 'Dune') d.author = ctx:first('Author') ctx:save()")
        #expect(try fixture.run("return #ctx:first('Author').books") == [4])
    }

    @Test func mistakesNameTheEntityPropertyAndValue() throws {
        let fixture = try Fixture()
        try fixture.run(Self.seed)
        let cases: [(String, String, String)] = [
            ("return ctx:first('Book').titel", "property", "test:1: Book has no property 'titel'"),
            ("ctx:first('Book').order = 'many'", "value", #"test:1: Book.order is Integer 32: a string that is not a number ("many")"#),
            ("ctx:first('Book').author = 5", "value", "test:1: Book.author takes an object, not 5"),
            ("ctx:fetch('Bok')", "entity", "test:1: the model has no entity 'Bok' (did you mean 'Book'?)"),
            ("ctx:fetch('Book', 'name ==')", "predicate", "test:1: "),
            ("ctx:create('Book', {order = 1}) ctx:save()", "validation", "test:1: "),
        ]
        for (chunk, code, message) in cases {
            do {
                try fixture.run(chunk)
                Issue.record("no error for \(chunk)")
            } catch {
                #expect(error.code == code, "\(chunk): \(error)")
                #expect(error.message.hasPrefix(message), "\(chunk): \(error.message)")
            }
            try fixture.run("ctx:rollback()")
        }
    }

    @Test func aTransactionSavesTogetherOrNotAtAllAndAnInnerFailureUndoesOnlyItself() throws {
        let fixture = try Fixture()
        try fixture.run("ctx:transaction(function() ctx:create('Book', {name = 'A'}) ctx:save() ctx:create('Book', {name = 'B'}) end)")
        #expect(try fixture.savedBookNames() == ["A", "B"])
        #expect(throws: LuaError.self) {
            try fixture.run("ctx:transaction(function() ctx:create('Book', {name = 'C'}) error('stop') end)")
        }
        #expect(try fixture.savedBookNames() == ["A", "B"])
        #expect(try fixture.run("return ctx:has_changes()") == [false])
        try fixture.run("""
            ctx:transaction(function()
              ctx:first('Book', "name == 'A'").order = 1
              local ok = pcall(ctx.transaction, ctx, function()
                ctx:create('Book', {name = 'D'})
                ctx:first('Book', "name == 'A'").order = 2
                error('inner')
              end)
              assert(not ok)
              ctx:create('Book', {name = 'E'})
            end)
            """)
        #expect(try fixture.savedBookNames() == ["A", "B", "E"])
        #expect(try fixture.run("return ctx:first('Book', \"name == 'A'\").order") == [1])
    }

    @Test func eachGoesThroughEveryObjectInBatchesAndStopsOnBreak() throws {
        let fixture = try Fixture()
        try fixture.run("for i = 1, 1200 do ctx:create('Book', {name = string.format('b%04d', i), order = i}) end ctx:save()")
        let results = try fixture.run("""
            local seen, sum = 0, 0
            for book in ctx:each('Book', {sort = {'order'}}) do seen = seen + 1 sum = sum + book.order book.rating = book.order / 2 end
            ctx:save()
            local first
            for book in ctx:each('Book', 'order > %@', 1000) do first = book.order break end
            return seen, sum, first, ctx:first('Book', 'order == 1200').rating
            """)
        #expect(results == [1200, 720_600, 1001, 600.0])
    }

    @Test func queriesGroupAndJsonAndTheModelAreThere() throws {
        let fixture = try Fixture()
        try fixture.run(Self.seed)
        let results = try fixture.run("""
            local rows = ctx:query('Book', {select = {'author.name as author', 'count(*) as n', 'avg(order) as mean'}, group_by = {'author.name'}, sort = {'author.name'}})
            local encoded = strata.json.encode({rows[2].author, rows[2].n, {x = 1}}, false)
            local decoded = strata.json.decode('{"a": [1, 2.5, "x", true]}')
            local entities = {}
            for _, e in ipairs(strata.model.entities) do entities[#entities + 1] = e.name end
            local limited = ctx:query('Book', {select = {'name'}, sort = {'name'}, limit = 2})
            return #rows, rows[2].n, rows[2].mean, encoded, decoded.a[2], table.concat(entities, ","), #limited, limited[2].name
            """)
        #expect(results == [2, 3, 2.0, #"["Le Guin",3,{"x":1}]"#, 2.5, "Author,Book,Page", 2, "Earthsea"])
    }

    /// Regression: each level of a nested table read or pushed took Lua stack slots that were
    /// never asked for, so encoding a table 150 deep wrote past the stack and crashed.
    @Test func deeplyNestedTablesAreErrorsAndDeepJSONDecodes() throws {
        let fixture = try Fixture()
        let results = try fixture.run("""
            local function nest(depth) local t = {} local c = t for i = 1, depth do c[1] = {} c = c[1] end return t end
            local ok150, message150 = pcall(strata.json.encode, nest(150))
            local okDeep, messageDeep = pcall(strata.json.encode, nest(100000))
            local fine = strata.json.encode(nest(99))
            local decoded = strata.json.decode(string.rep('[', 500) .. string.rep(']', 500))
            local depth, c = 0, decoded
            while c[1] do depth = depth + 1 c = c[1] end
            local said = function(message) return string.find(tostring(message), 'nested more than 100 deep', 1, true) ~= nil end
            return ok150, said(message150), okDeep, said(messageDeep), #fine, depth
            """)
        #expect(results == [false, true, false, true, 200, 499])
    }

    @Test func fetchOrCreateFindsByValuesAndLogLevelsAreChecked() throws {
        let fixture = try Fixture()
        let results = try fixture.run("""
            local a = ctx:fetch_or_create('Author', {name = 'Le Guin'})
            local b = ctx:fetch_or_create('Author', {name = 'Le Guin'})
            local c = ctx:fetch_or_create('Author', {name = 'Herbert'})
            strata.set_log_level('verbose')
            strata.log.verbose('authors:', ctx:count('Author'))
            local ok, e = pcall(strata.set_log_level, 'loud')
            return a == b, a == c, ctx:count('Author'), ok, e.code
            """)
        #expect(results == [true, false, 2, false, "argument"])
        #expect {
            try fixture.run("ctx:fetch_or_create('Author', {nmae = 'x'})")
        } throws: { error in
            (error as? LuaError)?.message == "test:1: Author has no property 'nmae' (did you mean 'name'?)"
        }
    }

    /// Regression: a save through a parent that the store refused for a uniqueness clash left
    /// the object in the parent, where `ctx:rollback()` could not reach it, and every later
    /// save failed again.
    @Test func aSaveRefusedForAUniquenessClashRollsBackWithoutTraceInTheParent() throws {
        let temporary = try TemporaryFolder("strata-lua")
        let folder = temporary.url
        let model = try JSONModelReader.read(Data("""
            {"entities": [{"name": "Tag", "attributes": [{"name": "name", "type": "string"}], "uniquenessConstraints": [["name"]]}]}
            """.utf8), path: "tags.json")
        let store = try PersistentStore.create(at: folder.appendingPathComponent("Tags.sqlite").path, model: model)
        defer { store.close() }
        let root = ObjectContext(store: store, name: "root")
        let child = ObjectContext(parent: root, name: "child")
        let lua = try LuaState()
        lua.installStrata(context: child)
        let results = try lua.run("""
            ctx:create("Tag", {name = "sf"})
            ctx:save()
            ctx:create("Tag", {name = "sf"})
            local saved, err = pcall(function() ctx:save() end)
            local pending = ctx:has_changes()
            ctx:rollback()
            ctx:create("Tag", {name = "fantasy"})
            ctx:save()
            return saved, pending, ctx:count("Tag")
            """, name: "=test")
        #expect(results == [false, true, 2])
        root.performAndWait { #expect(!root.hasChanges) }
        let reader = ObjectContext(store: store)
        let names = try reader.performAndWait {
            try reader.fetch(FetchRequest(entityName: "Tag", sortDescriptors: [ObjectSortDescriptor("name")])).map { $0["name"] as? String }
        }
        #expect(names == ["fantasy", "sf"])
    }
}
