import Foundation

/// Why a string operator of a predicate (`MATCHES`, `LIKE`) gave no answer: its pattern does
/// not compile, is longer than Strata takes, or answering would cost more than the budget of
/// ``CoreDataStringMatching``. A fetch, count or delete that meets one fails with it, whether
/// the predicate runs in SQL or in memory, and changes nothing: an answer that is not ICU's
/// (or LIKE's) whole answer is never given as "no match".
public struct StringMatchError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong.
    public enum Reason: Sendable, Equatable {
        /// ICU refuses the regular expression.
        case invalidPattern
        /// The pattern has more characters (UTF-16 code units) than `limit`.
        case patternTooLong(limit: Int)
        /// Matching one value took more than `steps` steps of the matcher (ICU's backtracking
        /// state saves for MATCHES, pattern positions tried for LIKE).
        case budgetExceeded(steps: Int)
        /// ICU stopped with an error of its own (its backtrack stack overflowed, say).
        case matcherFailed
    }

    /// The operator, as a predicate writes it: `MATCHES` or `LIKE`.
    public var operatorName: String
    /// The pattern, whole.
    public var pattern: String
    /// Why the operator gave no answer.
    public var reason: Reason
    /// What the value was: `Book.title`, when the predicate compared an attribute.
    public var place: String?

    /// An error about `operatorName` with `pattern`; `place` names the value compared, when known.
    init(operatorName: String, pattern: String, reason: Reason, place: String? = nil) {
        self.operatorName = operatorName
        self.pattern = pattern
        self.reason = reason
        self.place = place
    }

    /// `MATCHES 'a?a?a?a?…' (2000 characters) took more than 5000000 steps on Book.title`.
    public var description: String {
        let head = "\(operatorName) \(Self.shortened(pattern))"
        let on = place.map { " on \($0)" } ?? ""
        switch reason {
        case .invalidPattern: return "\(head) is not a valid ICU regular expression"
        case .patternTooLong(let limit): return "\(head) is longer than the \(limit) characters a pattern may have"
        case .budgetExceeded(let steps):
            return "\(head) took more than \(steps) steps\(on): simplify the pattern (nested or many optional parts backtrack exponentially)"
        case .matcherFailed: return "\(head) could not be matched\(on): ICU's matcher failed (its backtrack stack overflowed)"
        }
    }

    /// The pattern quoted, cut after 40 characters with its length given.
    static func shortened(_ pattern: String) -> String {
        pattern.count <= 40 ? "'\(pattern)'" : "'\(pattern.prefix(40))…' (\(pattern.count) characters)"
    }
}
