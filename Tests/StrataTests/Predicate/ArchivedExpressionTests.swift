import Foundation
import Testing
@testable import Strata

/// Expressions archived in mapping models (`valueexpressiondata`), read back.
@Suite struct ArchivedExpressionTests {
    /// An archive that cannot be read is reported with its cause in the cause's own words, once.
    /// A regression: when the archive's failure came to keep its cause as a value, this message
    /// printed the failure's now optional message ("Optional(…)", or "nil").
    @Test func anUnreadableArchiveNamesItsCause() throws {
        let data = Data("not a property list".utf8)
        var cause = ""
        do { _ = try KeyedArchive(data: data) } catch { cause = error.description }
        #expect(!cause.isEmpty)
        #expect(throws: PredicateSyntaxError(message: "an archived expression that cannot be read: " + cause, predicate: "", offset: 0)) {
            try ObjectPredicate.Expression.unarchived(from: data)
        }
    }
}
