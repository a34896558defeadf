import Foundation
import Strata
import Testing
@testable import StrataLua

/// A script cannot link an object where its relationship's destination does not allow it:
/// the assignment fails with the context's error, and nothing is saved.
@Suite struct LinkCheckBindingTests {
    @Test(arguments: [
        "local b = ctx:create('Book', {name = 'Dune'}); b.author = page",
        "ctx:create('Book', {name = 'Dune', author = page})",
        "local b = ctx:create('Book', {name = 'Dune'}); b.pages:add(author)",
        "local b = ctx:create('Book', {name = 'Dune'}); b.pages = {page, author}",
    ])
    func linkingAnObjectOfAnotherEntityFailsAndSavesNothing(assignment: String) throws {
        let fixture = try ContextBindingTests.Fixture()
        #expect {
            try fixture.run("""
                author = ctx:create('Author', {name = 'Herbert'})
                page = ctx:create('Page', {number = 1})
                \(assignment)
                ctx:save()
                """)
        } throws: { error in
            let message = (error as? LuaError)?.message ?? ""
            return message.contains("takes a ") && message.contains("not a ")
        }
        #expect(try fixture.savedBookNames().isEmpty)
    }
}
