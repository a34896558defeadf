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

    /// Core Data's LIKE: `*` matches any run of characters, `?` one character, `\` escapes;
    /// the whole value must match.
    static func like(_ value: String, pattern: String, options: Options) -> Bool {
        let text = Array(fold(value, options)), tokens = Array(fold(pattern, options))
        // Iterative wildcard matching with one backtrack point, linear in practice.
        var t = 0, p = 0, starToken = -1, starText = 0
        func literal(at index: Int) -> (Character, Int)? {
            guard index < tokens.count else { return nil }
            if tokens[index] == "\\", index + 1 < tokens.count { return (tokens[index + 1], 2) }
            return (tokens[index], 1)
        }
        while t < text.count {
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

    /// Core Data's MATCHES: the ICU regular expression, compiled by ``regularExpression(_:options:)``,
    /// must match the whole value.
    static func matches(_ value: String, regularExpression: NSRegularExpression) -> Bool {
        regularExpression.firstMatch(in: value, range: NSRange(value.startIndex..., in: value)) != nil
    }

    /// Compiles a MATCHES pattern for `options` (`[d]` is applied by folding the value instead),
    /// anchored at both ends so that only a match of the whole value counts (with alternation,
    /// the first alternative to match need not cover the whole value).
    static func regularExpression(_ pattern: String, options: Options) -> NSRegularExpression? {
        // Validation matches a model's few patterns against every object: compile each once.
        let key = "\(options.rawValue):\(pattern)"
        if let known = compiledExpressions.withLock({ $0[key] }) { return known }
        guard let expression = try? NSRegularExpression(
            pattern: "^(?:" + fold(pattern, options.subtracting(.caseInsensitive)) + ")\\z",
            options: options.contains(.caseInsensitive) ? [.caseInsensitive] : [])
        else { return nil }
        compiledExpressions.withLock { cache in
            if cache.count >= 256 { cache.removeAll() }
            cache[key] = expression
        }
        return expression
    }

    private static let compiledExpressions = Locked<[String: NSRegularExpression]>([:])
}
