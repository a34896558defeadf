import Foundation
import Testing
@testable import Strata

/// MATCHES past ICU's budget: a regular pattern is answered by the linear-time matcher, with
/// ICU's answer; any other pattern still fails with the budget error.
@Suite struct RegularLanguageMatcherTests {
    static func optionalAs(_ count: Int) -> String {
        String(repeating: "a?", count: count) + String(repeating: "a", count: count)
    }

    static func matches(_ value: String, _ pattern: String, _ options: CoreDataStringMatching.Options = []) throws -> Bool {
        try CoreDataStringMatching.matches(value, pattern: pattern, options: options, place: "Book.title")
    }

    @Test func aCountedOptionalPatternICUCannotFinishIsAnsweredAsCoreDataAnswersIt() throws {
        let as26 = String(repeating: "a", count: 26)
        #expect(try Self.matches(as26, "(a?){26}a{26}"))
        #expect(try Self.matches(String(as26.dropFirst()), "(a?){26}a{26}") == false)
        #expect(try Self.matches(as26.uppercased(), "(a?){26}a{26}", .caseInsensitive))
        #expect(try Self.matches(as26, "(A?){26}A{26}", .caseInsensitive))
    }

    /// The pattern matches 1,000 to 2,000 a's: each bound and the value just past it.
    @Test func aThousandOptionalAsAgainstLongValuesAnswerWithoutError() throws {
        let pattern = Self.optionalAs(1_000)
        #expect(try Self.matches(String(repeating: "a", count: 2_001), pattern) == false)
        #expect(try Self.matches(String(repeating: "a", count: 2_000), pattern))
        #expect(try Self.matches(String(repeating: "a", count: 1_000), pattern))
        #expect(try Self.matches(String(repeating: "a", count: 999), pattern) == false)
    }

    @Test func aPatternOutsideTheRegularSubsetStillFailsWithTheBudgetError() {
        let as30 = String(repeating: "a", count: 30)
        for pattern in ["(a*)*\\1b", "(?=a)(a?){26}a{26}", "(a?){26}a{26}b*+", "(\\p{L}?){26}\\p{L}{26}"] {
            let error = StringMatchError(operatorName: "MATCHES", pattern: pattern, reason: .budgetExceeded(steps: 5_000_000), place: "Book.title")
            #expect(throws: error, "\(pattern)") { try Self.matches(String(as30.prefix(26)), pattern) }
        }
    }

    @Test func featuresThatChangeTheLanguageOrAreNotSureAreRefused() {
        let refused = [
            "(a)\\1", "(?<n>a)\\k<n>", "(?=a)a", "(?!b)a", "(?<=a)b", "(?<!a)b", "(?>a*)a", "a*+", "a++", "a?+", "a{2}+",
            "(?i)a", "(?x)a", "(?s).", "(?m)^a", "(?i:a)", "(?#note)a", "\\p{L}", "\\P{L}", "[\\p{L}]", "[[:alpha:]]", "[a-z&&[^aeiou]]",
            "[[a-z]--[aeiou]]", "[a[b]]", "\\Qa*\\E", "\\N{LATIN SMALL LETTER A}", "\\X", "\\R", "\\G", "\\h", "\\v", "\\H", "\\V",
            "\\ud83d\\ude00", "\\j", "\\E", "\\cA", "a**", "a{2}{3}", "^*", "\\b+", "[\\b]", "\\0777", "[\\d-z]", "a{1,2", "(a", "a)",
            "[a-z-q]", "\\é", "(a?)*?", "(?:)+?", "(a|)+?b", "(\\b)*?", "(a*){2,}?",
        ]
        for pattern in refused {
            #expect(RegularLanguageMatcher(icuPattern: "^(?:" + pattern + ")\\z", caseInsensitive: false) == nil, "\(pattern)")
        }
        // Where ICU compares strings by full case folding, per-character answers would differ.
        #expect(RegularLanguageMatcher(icuPattern: "ß", caseInsensitive: true) == nil)
        #expect(RegularLanguageMatcher(icuPattern: "ss", caseInsensitive: true)?.matches("ß") == nil)
        #expect(RegularLanguageMatcher(icuPattern: "ss", caseInsensitive: false)?.matches("ß") == false)
    }

    @Test func aCountThroughTheStoreCountsTheTitleICUCouldNotDecide() throws {
        let fixture = try LibraryFixture()
        let as26 = String(repeating: "a", count: 26)
        try fixture.context.performAndWait {
            for (index, title) in [as26, String(as26.dropFirst()), "Dune"].enumerated() {
                _ = try fixture.book(title, isbn: "978000000000\(index)")
            }
            try fixture.context.save()
        }
        let count = try fixture.context.performAndWait {
            try fixture.context.count("Book", where: ObjectPredicate(format: "title MATCHES '(a?){26}a{26}'"))
        }
        #expect(count == 1)
        let negated = try fixture.context.performAndWait {
            try fixture.context.count("Book", where: ObjectPredicate(format: "NOT title MATCHES '(a?){26}a{26}'"))
        }
        #expect(negated == 2)
    }

    // MARK: - The same answers as ICU

    /// Random patterns of the supported constructs over a small alphabet.
    struct PatternMaker {
        var random: SplitMix
        var groups = 0

        static let literals = ["a", "b", "A", "1", " ", "-", "_", "é", "]", "#", "\\.", "\\-", "\\]", "\\x61", "\\x{42}", "\\u0041",
                               "\\U00000062", "\\n", "\\r", "\\t", "\\0141", "\\e", "\\f", "\\a", "\\*", "\\\\", "\\ ", "\\x{301}", "K",
                               "\\r\\n", "\\x{DF}", "\\x{1F600}", "😀", "\\07", "\\x{2028}"]
        static let escapes = ["\\d", "\\D", "\\w", "\\W", "\\s", "\\S", "."]
        static let assertions = ["^", "$", "\\A", "\\z", "\\Z", "\\b", "\\B"]
        static let classElements = ["a", "b", "A", "1", "_", ".", "$", "^x", "a-c", "A-Z", "0-9", "\\x61-\\x62", "\\]", "\\-", "\\n", "\\d",
                                    "\\w", "\\s", "\\W", "é", "&", " ", "\\\\", "(", "\\u00e0-\\u00ff", "\\u00c0-\\u00ff", "ß", "k",
                                    "\\x{212a}", "😀", "\\x{1F600}-\\x{1F64F}", "\\u2028", "\\x{85}"]

        mutating func pattern(depth: Int = 0) -> String {
            (0...random.next(depth == 0 ? 2 : 1)).map { _ in sequence(depth: depth) }.joined(separator: "|")
        }

        mutating func sequence(depth: Int) -> String {
            (0..<random.next(4)).map { _ in item(depth: depth) }.joined()
        }

        mutating func item(depth: Int) -> String {
            switch random.next(12) {
            case 0: return random.pick(Self.assertions)
            case 1...2 where depth < 3: return group(depth: depth) + quantifier()
            case 3: return characterClass() + quantifier()
            case 4: return random.pick(Self.escapes) + quantifier()
            default: return random.pick(Self.literals) + quantifier()
            }
        }

        mutating func group(depth: Int) -> String {
            let inner = pattern(depth: depth + 1)
            switch random.next(3) {
            case 0: return "(" + inner + ")"
            case 1: return "(?:" + inner + ")"
            default:
                groups += 1
                return "(?<g\(groups)>" + inner + ")"
            }
        }

        mutating func characterClass() -> String {
            var elements = (0...random.next(3)).map { _ in random.pick(Self.classElements) }
            if random.chance(1, in: 8) { elements.insert("]", at: 0) }
            if random.chance(1, in: 8) { elements.append("-") }
            return "[" + (random.chance(1, in: 3) ? "^" : "") + elements.joined() + "]"
        }

        mutating func quantifier() -> String {
            let low = random.next(3), high = low + random.next(3)
            let base = random.pick(["", "", "", "*", "+", "?", "{\(low)}", "{\(low),}", "{\(low),\(high)}"])
            return base.isEmpty ? base : base + (random.chance(1, in: 3) ? "?" : "")
        }
    }

    static let valueAlphabet = ["a", "a", "b", "b", "A", "B", "1", " ", "\n", "\r", "\r\n", "\t", "_", "-", "]", ".", "é", "e\u{301}", "\u{301}",
                                "\u{200B}", "ſ", "\u{212A}", "k", "#", "*", "\\", "à", "ß", "ẞ", "ﬁ", "SS", "ss",
                                "\u{85}", "\u{2028}", "\u{B}", "😀"]

    /// ICU's answer, or nil where it takes more than `ticks` (of 10,000 steps): nested loops
    /// backtrack exponentially even on a few characters.
    static func icu(_ expression: NSRegularExpression, _ value: String, ticks: Int = 20) -> Bool? {
        let answer = CoreDataStringMatching.icuAnswer(expression, value, ticks: ticks)
        #expect(answer != .failed, "ICU failed on \(expression.pattern.debugDescription) against \(value.debugDescription)")
        switch answer {
        case .matched: return true
        case .noMatch, .failed: return false
        case .outOfBudget: return nil
        }
    }

    @Test(arguments: [false, true])
    func randomPatternsGetICUsAnswerForEveryValue(caseInsensitive: Bool) throws {
        var maker = PatternMaker(random: SplitMix(state: caseInsensitive ? 0xC0FFEE : 0x5EED))
        var compared = 0, refused = 0, invalid = 0, unanswered = 0
        let options: CoreDataStringMatching.Options = caseInsensitive ? .caseInsensitive : []
        for _ in 0..<2_500 {
            maker.groups = 0
            let pattern = maker.pattern()
            // A class that happens to hold `&&` is no pattern.
            guard let expression = try? CoreDataStringMatching.regularExpression(pattern, options: options) else {
                invalid += 1
                continue
            }
            guard let matcher = RegularLanguageMatcher(icuPattern: expression.pattern, caseInsensitive: caseInsensitive) else {
                // Refused as generated here: an unbounded lazy loop (refused when its body can
                // match nothing), and ß as a literal under [c].
                let lazy = ["*?", "+?", ",}?"].contains { pattern.contains($0) }
                #expect(lazy || (caseInsensitive && pattern.contains("\\x{DF}")), "refused \(pattern.debugDescription)")
                refused += 1
                continue
            }
            for _ in 0..<10 {
                let value = (0..<maker.random.next(9)).map { _ in maker.random.pick(Self.valueAlphabet) }.joined()
                for candidate in [value, CoreDataStringMatching.fold(value, options)] {
                    guard let icu = Self.icu(expression, candidate) else {
                        unanswered += 1
                        continue
                    }
                    guard let answer = matcher.matches(candidate) else {
                        // Under [c], ß, ẞ and ﬁ, which ICU folds to two letters, leave no answer.
                        #expect(caseInsensitive && candidate.unicodeScalars.contains { "ßẞﬁ".unicodeScalars.contains($0) }, "no answer for \(pattern.debugDescription) against \(candidate.debugDescription)")
                        continue
                    }
                    #expect(answer == icu, "\(pattern.debugDescription) against \(candidate.debugDescription)\(caseInsensitive ? " [c]" : ""): ICU \(icu)")
                    compared += 1
                }
            }
        }
        #expect(invalid < 50)
        #expect(unanswered < 50)
        #expect(refused < 400)
        #expect(compared > 35_000)
    }
}
