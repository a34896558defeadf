import Foundation

/// The string comparisons behind Core Data's predicate operators, shared by the SQL functions
/// registered on every connection and (later) the in-memory predicate evaluator, so that a
/// predicate means the same in SQL and in memory.
enum CoreDataStringMatching {
    /// `NSComparisonPredicate.Options` bits: `[c]` is 1, `[d]` is 2.
    struct Options: OptionSet, Sendable {
        let rawValue: Int64
        static let caseInsensitive = Options(rawValue: 1)
        static let diacriticInsensitive = Options(rawValue: 2)
    }

    /// The order of `NSCollateNoCase`, which case-insensitive sorts use in SQL and in memory.
    static func caseInsensitiveOrder(_ a: String, _ b: String) -> ComparisonResult {
        a.compare(b, options: .caseInsensitive)
    }

    /// `value` folded as `options` ask: lower case for `[c]`, accents removed for `[d]`.
    static func fold(_ value: String, _ options: Options) -> String {
        var folding: String.CompareOptions = []
        if options.contains(.caseInsensitive) { folding.insert(.caseInsensitive) }
        if options.contains(.diacriticInsensitive) { folding.insert(.diacriticInsensitive) }
        return folding.isEmpty ? value : value.folding(options: folding, locale: nil)
    }

    /// How much one match may cost: a pattern that would take more fails with a
    /// ``StringMatchError`` rather than hold a fetch, count or delete for minutes.
    enum Budget {
        /// The longest MATCHES or LIKE pattern, in UTF-16 code units: far beyond any pattern
        /// written by hand, and short enough that compiling and matching it stays quick.
        static let patternLength = 10_000
        /// ICU's backtracking state saves for one MATCHES of one value. ICU reports its work
        /// every 10,000 of them (a "tick" of `uregex_setMatchCallback`), so this is 500 ticks,
        /// about a second here. It must stay well below where the toolchain's ICU (76.1) gives
        /// up silently: measured, `(a?){26}a{26}`-like searches end after about 4,900 ticks
        /// with no match and no error, where ICU 72 goes on and matches.
        ///
        /// Past it, a pattern that describes a regular language is answered anyway, by
        /// ``RegularLanguageMatcher`` in time linear in the value; only the others fail.
        static let regexSteps = 5_000_000
        /// Positions of the pattern tried against the value, for one LIKE: linear patterns use
        /// a few per character; only many `*` against a long value come near it.
        static let likeSteps = 50_000_000
    }

    /// Core Data's LIKE: `*` matches any run of characters, `?` one character, `\` escapes;
    /// the whole value must match.
    ///
    /// - Throws: ``StringMatchError`` for a pattern longer than ``Budget/patternLength`` or a
    ///   match that takes more than ``Budget/likeSteps`` steps.
    static func like(_ value: String, pattern: String, options: Options, place: String? = nil) throws(StringMatchError) -> Bool {
        guard pattern.utf16.count <= Budget.patternLength else {
            throw StringMatchError(operatorName: "LIKE", pattern: pattern, reason: .patternTooLong(limit: Budget.patternLength), place: place)
        }
        let text = Array(fold(value, options)), tokens = Array(fold(pattern, options))
        // Iterative wildcard matching with one backtrack point: linear in practice, quadratic at
        // worst (many `*` against a long value), hence the budget.
        var t = 0, p = 0, starToken = -1, starText = 0, steps = 0
        func literal(at index: Int) -> (Character, Int)? {
            guard index < tokens.count else { return nil }
            if tokens[index] == "\\", index + 1 < tokens.count { return (tokens[index + 1], 2) }
            return (tokens[index], 1)
        }
        while t < text.count {
            steps += 1
            if steps > Budget.likeSteps {
                throw StringMatchError(operatorName: "LIKE", pattern: pattern, reason: .budgetExceeded(steps: Budget.likeSteps), place: place)
            }
            if p < tokens.count, tokens[p] == "*" {
                starToken = p
                starText = t
                p += 1
            } else if p < tokens.count, tokens[p] == "?" {
                t += 1
                p += 1
            } else if let (character, width) = literal(at: p), character == text[t] {
                t += 1
                p += width
            } else if starToken >= 0 {
                starText += 1
                t = starText
                p = starToken + 1
            } else {
                return false
            }
        }
        while p < tokens.count, tokens[p] == "*" { p += 1 }
        return p == tokens.count
    }

    /// Core Data's MATCHES: the ICU regular expression `pattern`, compiled for `options` by
    /// ``regularExpression(_:options:place:)``, must match the whole value (folded for `[d]`).
    ///
    /// Runs ICU through Foundation with its progress reports on, so that a match that would
    /// backtrack for minutes stops after ``Budget/regexSteps`` steps, and an error of ICU's (which
    /// `firstMatch` reports as no match) is told apart from no match. ICU answers first whenever
    /// it finishes, since its answer is Core Data's by definition; where its budget runs out,
    /// ``RegularLanguageMatcher`` answers instead if the pattern is in its regular subset, as any
    /// correct engine gives the same yes or no there (`(a?){26}a{26}` against 26 a's: yes).
    ///
    /// - Throws: ``StringMatchError`` when the budget runs out on a pattern outside that subset
    ///   (a backreference, a lookahead…), or when ICU fails; never answers `false` for a search
    ///   that no engine finished.
    static func matches(_ value: String, pattern: String, options: Options, place: String? = nil) throws(StringMatchError) -> Bool {
        let regularExpression = try self.regularExpression(pattern, options: options, place: place)
        let value = fold(value, options)
        switch icuAnswer(regularExpression, value, ticks: Budget.regexSteps / 10_000) {
        case .matched: return true
        case .noMatch: return false
        case .failed: throw StringMatchError(operatorName: "MATCHES", pattern: pattern, reason: .matcherFailed, place: place)
        case .outOfBudget:
            // The same compiled text and folded value as ICU's, so that the fallback answers the
            // question ICU was asked.
            if let answer = RegularLanguageMatcher(
                icuPattern: regularExpression.pattern, caseInsensitive: regularExpression.options.contains(.caseInsensitive)
            )?.matches(value) {
                return answer
            }
            throw StringMatchError(operatorName: "MATCHES", pattern: pattern, reason: .budgetExceeded(steps: Budget.regexSteps), place: place)
        }
    }

    /// What ICU says of `expression` matching `value`, given `ticks` progress reports (one per
    /// 10,000 state saves of ICU's matcher) before it is stopped.
    enum ICUAnswer: Equatable { case matched, noMatch, outOfBudget, failed }

    /// Runs ICU through Foundation with its progress reports on; see ``matches(_:pattern:options:place:)``.
    static func icuAnswer(_ expression: NSRegularExpression, _ value: String, ticks: Int) -> ICUAnswer {
        var matched = false, progress = 0, outOfBudget = false, failed = false
        expression.enumerateMatches(
            in: value, options: [.reportProgress, .reportCompletion], range: NSRange(value.startIndex..., in: value)
        ) { match, flags, stop in
            if match != nil {
                matched = true
                stop.pointee = true
            } else if flags.contains(.progress) {
                progress += 1
                if progress >= ticks {
                    outOfBudget = true
                    stop.pointee = true
                }
            } else if flags.contains(.internalError) {
                failed = true
            }
        }
        // ICU answers first whenever it finishes, even where the budget ran out on its last step.
        if matched { return .matched }
        if outOfBudget { return .outOfBudget }
        return failed ? .failed : .noMatch
    }

    /// Compiles a MATCHES pattern for `options` (`[d]` is applied by folding the value instead),
    /// anchored at both ends so that only a match of the whole value counts (with alternation,
    /// the first alternative to match need not cover the whole value).
    ///
    /// - Throws: ``StringMatchError`` for a pattern ICU refuses or one longer than
    ///   ``Budget/patternLength``.
    static func regularExpression(_ pattern: String, options: Options, place: String? = nil) throws(StringMatchError) -> NSRegularExpression {
        guard pattern.utf16.count <= Budget.patternLength else {
            throw StringMatchError(operatorName: "MATCHES", pattern: pattern, reason: .patternTooLong(limit: Budget.patternLength), place: place)
        }
        // Validation matches a model's few patterns against every object: compile each once.
        let key = "\(options.rawValue):\(pattern)"
        if let known = compiledExpressions.withLock({ $0[key] }) { return known }
        guard let expression = try? NSRegularExpression(
            pattern: "^(?:" + fold(pattern, options.subtracting(.caseInsensitive)) + ")\\z",
            options: options.contains(.caseInsensitive) ? [.caseInsensitive] : [])
        else { throw StringMatchError(operatorName: "MATCHES", pattern: pattern, reason: .invalidPattern, place: place) }
        compiledExpressions.withLock { cache in
            if cache.count >= 256 { cache.removeAll() }
            cache[key] = expression
        }
        return expression
    }

    private static let compiledExpressions = Locked<[String: NSRegularExpression]>([:])
}
