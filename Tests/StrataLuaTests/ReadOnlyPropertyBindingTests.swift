import Foundation
import Strata
import Testing
@testable import StrataLua

/// What scripts read but cannot set: fetched properties (`author.ownBooks` reads as a to-many
/// does) and derived attributes, as in Core Data.
@Suite struct ReadOnlyPropertyBindingTests {
    static let model = """
        {"entities": [
          {"name": "Author", "attributes": [{"name": "name", "type": "string"}],
           "relationships": [{"name": "books", "destination": "Book", "inverse": "author", "toMany": true}],
           "fetchedProperties": [
             {"name": "ownBooks", "fetchRequest": {"name": "fetchedPropertyFetchRequest", "entity": "Book", "predicate": "author == $FETCH_SOURCE"}},
             {"name": "namesakes", "fetchRequest": {"name": "fetchedPropertyFetchRequest", "entity": "Book", "predicate": "name == $FETCH_SOURCE.nme"}}]},
          {"name": "Book", "attributes": [{"name": "name", "type": "string"},
             {"name": "shouted", "type": "string", "derived": true, "derivationExpression": "uppercase:(name)"}],
           "relationships": [{"name": "author", "destination": "Author", "inverse": "books"}]}
        ]}
        """

    static let seed = """
        local leguin = ctx:create("Author", {name = "Le Guin"})
        for _, name in ipairs({"Earthsea", "Tombs"}) do ctx:create("Book", {name = name, author = leguin}) end
        ctx:create("Book", {name = "Dune"})
        ctx:save()
        """

    @Test func aFetchedPropertyReadsAsAListOfObjects() throws {
        let fixture = try ContextBindingTests.Fixture(model: Self.model)
        try fixture.run(Self.seed)
        let results = try fixture.run("""
            local leguin = ctx:first("Author", "name == 'Le Guin'")
            local names = {}
            for book in leguin.ownBooks:each() do names[#names + 1] = book.name end
            table.sort(names)
            ctx:create("Book", {name = "Shore", author = leguin})
            ctx:save()
            local before = #leguin.ownBooks
            ctx:refresh(leguin)
            return #names, names[1], names[2], before, #leguin.ownBooks, leguin.ownBooks[1] ~= nil
            """)
        // Kept as first read until the object is refreshed, as Core Data keeps it.
        #expect(results == [2, "Earthsea", "Tombs", 2, 3, true])
    }

    @Test func assigningOrChangingAFetchedPropertyIsAClearError() throws {
        let fixture = try ContextBindingTests.Fixture(model: Self.model)
        try fixture.run(Self.seed)
        for chunk in [
            "ctx:first('Author').ownBooks = {}",
            "local a = ctx:first('Author'); a.ownBooks:add(ctx:first('Book'))",
        ] {
            let error = #expect(throws: LuaError.self) { try fixture.run(chunk) }
            #expect(error?.message.contains("Author.ownBooks (fetched property, fetching Book) is read-only") == true, "\(chunk): \(error?.message ?? "")")
        }
        let error = #expect(throws: LuaError.self) { try fixture.run("return #ctx:first('Author').namesakes") }
        // The store's unknown-property error, with the store's path and the close name.
        #expect(error?.message.contains("$FETCH_SOURCE.nme cannot be read on the object: ") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("entity 'Author' has no property 'nme'; did you mean 'name'?") == true, "\(error?.message ?? "")")
        #expect(try fixture.savedBookNames() == ["Dune", "Earthsea", "Tombs"])
    }

    @Test func aDerivedAttributeIsReadButNotSet() throws {
        let fixture = try ContextBindingTests.Fixture(model: Self.model)
        try fixture.run(Self.seed)
        #expect(try fixture.run("return ctx:first('Book', 'name == %@', 'Dune').shouted") == ["DUNE"])
        let error = #expect(throws: LuaError.self) { try fixture.run("local b = ctx:first('Book'); b.shouted = 'x'; ctx:save()") }
        #expect(error?.message.contains("Book.shouted is derived (uppercase:(name))") == true, "\(error?.message ?? "")")
        #expect(error?.code == "context")
    }
}
