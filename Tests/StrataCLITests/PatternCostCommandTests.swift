import Foundation
import Strata
import Testing
import StrataTestSupport

/// MATCHES and LIKE through `count`, `fetch` and `delete` where an answer is costly or cannot be
/// had: the command fails with a message naming the pattern, and a delete deletes nothing. They
/// once answered "no match" there (a search ICU ended without finishing, a pattern that did not
/// compile), which `NOT` turned into deleting the objects it should have kept.
@Suite final class PatternCostCommandTests {
    /// Removed when the suite's instance goes away, after its test.
    private let temporary: TemporaryFolder
    var folder: URL { temporary.url }
    let store: String
    static let twentySixAs = String(repeating: "a", count: 26)
    static let longText = String(repeating: "a", count: 5_000)

    /// Books titled a×26, "(" (no valid regular expression), Dune, and a×5000.
    init() throws {
        temporary = try TemporaryFolder("strata-patterns")
        store = temporary.path("Library.sqlite")
        let model = StrataRunner.repositoryRoot.appendingPathComponent(ModelCommandTests.example)
        let created = try StrataRunner.run(["create", "--store", store, "--model", model.path])
        #expect(created.status == 0, "\(created.standardError)")
        let opened = try PersistentStore.open(at: store, model: ModelLoader.load(model).currentVersion.model)
        defer { opened.close() }
        let context = ObjectContext(store: opened)
        try context.performAndWait {
            for (index, title) in [Self.twentySixAs, "(", "Dune", Self.longText].enumerated() {
                let book = try context.insert("Book")
                try book.setValue(title, forKey: "title")
                try book.setValue("978000000000\(index)", forKey: "isbn")
            }
            try context.save()
        }
    }

    private func titles() throws -> [String] {
        let result = try StrataRunner.run(["fetch", "Book", "--store", store, "--format", "ndjson", "--sort", "isbn"])
        #expect(result.status == 0, "\(result.standardError)")
        return result.standardOutput.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["title"] as? String
        }
    }

    private static func optionalAs(_ count: Int) -> String {
        String(repeating: "a?", count: count) + String(repeating: "a", count: count)
    }

    /// The same language, with a lookahead that keeps it from the linear-time matcher, which
    /// answers regular patterns past the budget: only ICU can answer these.
    private static func optionalAsLookingAhead(_ count: Int) -> String {
        optionalAs(count) + "(?!b)"
    }

    @Test func aSearchICUCannotFinishWithinTheBudgetIsAnErrorNotNoMatch() throws {
        let before = try titles()
        #expect(before.count == 4)
        // (a?){26}a{26} matches a×26 (every a? empty), after 2^26 backtracking steps: the
        // toolchain's ICU ended the search there with no match and no error, so count said 0.
        let pattern = Self.optionalAsLookingAhead(26)
        let count = try StrataRunner.run(["count", "Book", "--where", "title MATCHES '\(pattern)'", "--store", store])
        #expect(count.standardOutput != "0\n")
        #expect(count.status == 3, "\(count.standardOutput)")
        #expect(count.standardError.contains("MATCHES 'a?a?a?"), "\(count.standardError)")
        #expect(count.standardError.contains("took more than 5000000 steps on Book.title"), "\(count.standardError)")
        // NOT of that "no" deleted the book whose title matches.
        let deletion = try StrataRunner.run(["delete", "Book", "--where", "NOT title MATCHES '\(pattern)'", "--store", store])
        #expect(deletion.status == 3)
        #expect(deletion.standardError.contains("took more than 5000000 steps"), "\(deletion.standardError)")
        #expect(deletion.standardError.contains("nothing was deleted"), "\(deletion.standardError)")
        #expect(try titles() == before)
    }

    @Test func aRegularSearchICUCannotFinishIsAnsweredAsCoreDataAnswersIt() throws {
        // Past ICU's budget, the linear-time matcher answers: a×26 matches, a×5000 does not.
        let pattern = Self.optionalAs(26)
        let count = try StrataRunner.run(["count", "Book", "--where", "title MATCHES '\(pattern)'", "--store", store])
        #expect(count.standardOutput == "1\n", "\(count.standardError)")
        let deletion = try StrataRunner.run(["delete", "Book", "--where", "NOT title MATCHES '\(pattern)'", "--store", store])
        #expect(deletion.standardOutput == "deleted 3 Book\n", "\(deletion.standardError)")
        #expect(try titles() == [Self.twentySixAs])
    }

    @Test func withinTheBudgetICUsAnswerHoldsInEveryCommand() throws {
        // (a?){20}a{6} matches 6 to 26 a's; on a×5000 it fails after 2^20 backtracking steps,
        // within the budget.
        let pattern = String(repeating: "a?", count: 20) + String(repeating: "a", count: 6)
        let count = try StrataRunner.run(["count", "Book", "--where", "title MATCHES '\(pattern)'", "--store", store])
        #expect(count.standardOutput == "1\n", "\(count.standardError)")
        let negated = try StrataRunner.run(["count", "Book", "--where", "NOT title MATCHES '\(pattern)'", "--store", store])
        #expect(negated.standardOutput == "3\n", "\(negated.standardError)")
        let dryRun = try StrataRunner.run(["delete", "Book", "--where", "NOT title MATCHES '\(pattern)'", "--dry-run", "--store", store])
        #expect(dryRun.standardOutput == "dry run: would delete 3 Book\n", "\(dryRun.standardError)")
        #expect(try titles().count == 4)
        let deletion = try StrataRunner.run(["delete", "Book", "--where", "NOT title MATCHES '\(pattern)'", "--store", store])
        #expect(deletion.standardOutput == "deleted 3 Book\n", "\(deletion.standardError)")
        #expect(try titles() == [Self.twentySixAs])
    }

    @Test func aPatternThatDoesNotCompileIsAnErrorInSQLAndItsNegationDeletesNothing() throws {
        let before = try titles()
        // The pattern is each book's own title: "(" is no regular expression.
        for arguments in [["count", "Book"], ["fetch", "Book"], ["delete", "Book"], ["delete", "Book", "--dry-run"]] {
            let result = try StrataRunner.run(arguments + ["--where", "NOT title MATCHES title", "--store", store])
            #expect(result.status == 3, "\(arguments): \(result.standardOutput)")
            #expect(result.standardError.contains("MATCHES '(' is not a valid ICU regular expression"), "\(arguments): \(result.standardError)")
        }
        #expect(try titles() == before)
    }

    @Test func aCatastrophicPatternEndsWithAClearErrorAndTheStoreUnchanged() throws {
        let before = try titles()
        let pattern = Self.optionalAsLookingAhead(1_000)
        for arguments in [["count", "Book"], ["delete", "Book"]] {
            let result = try StrataRunner.run(arguments + ["--where", "NOT title MATCHES '\(pattern)'", "--store", store])
            #expect(result.status == 3, "\(arguments): \(result.standardOutput)")
            #expect(result.standardError.contains("(3005 characters) took more than 5000000 steps on Book.title"), "\(arguments): \(result.standardError)")
        }
        #expect(try titles() == before)
    }

    @Test func aPatternOfAHundredThousandCharactersIsRefused() throws {
        let before = try titles()
        let pattern = String(repeating: "a", count: 100_000)
        for (operatorName, arguments) in [("MATCHES", ["count", "Book"]), ("LIKE", ["count", "Book"]), ("MATCHES", ["delete", "Book"]), ("LIKE", ["delete", "Book"])] {
            let result = try StrataRunner.run(arguments + ["--where", "NOT title \(operatorName) '\(pattern)'", "--store", store])
            #expect(result.status != 0, "\(operatorName) \(arguments): \(result.standardOutput)")
            #expect(
                result.standardError.contains("\(operatorName) 'aaaaaaaaaa") && result.standardError.contains("is longer than the 10000 characters a pattern may have"),
                "\(operatorName) \(arguments): \(result.standardError.prefix(300))")
        }
        #expect(try titles() == before)
    }
}
