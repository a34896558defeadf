import Foundation

/// Answers a MATCHES that ICU could not finish within ``CoreDataStringMatching/Budget/regexSteps``,
/// when the pattern describes a regular language.
///
/// ICU backtracks: `(a?){26}a{26}` costs it 2^26 steps, so it gives no answer within the budget
/// where Core Data (ICU on Apple platforms, without a budget) answers. Whether a value belongs to a
/// regular language does not depend on the engine, so this matcher runs the pattern's Thompson
/// automaton instead: one set of states per position of the value, never backtracking, in time
/// proportional to the states times the value's length.
///
/// What it guarantees:
/// - It reads the text ICU compiled (``CoreDataStringMatching/regularExpression(_:options:place:)``
///   wraps the pattern in `^(?:…)\z`) and answers what ICU's search would: whether a match
///   exists, which for that wrapper is whether the whole value matches.
/// - It answers only for a subset of ICU's syntax, read as ICU reads it: literals and escapes of
///   characters, `.`, classes of literals, ranges and `\d \D \w \W \s \S`, those escapes alone,
///   groups (plain, `(?:`, named), `|`, greedy and lazy quantifiers, `^ $ \A \z \Z \b \B`. The
///   subset is a conservative choice: for anything else, and anything whose reading is not
///   certain (backreferences, lookaround, atomic groups, possessive quantifiers, inline flags,
///   properties, nested classes and set operations, `\Q…\E`, unknown escapes, a lazy unbounded
///   loop around something that can match nothing, which ICU repeats forever), the initializer
///   returns nil and the caller keeps its budget error: no answer is better than a wrong one.
/// - Every test of one character against a class, an escape such as `\d`, or (under `[c]`) a
///   literal is asked of ICU itself with the same options, once per character of the value, so
///   Unicode properties and versions and case closure are ICU's. Only case-sensitive literals
///   and `.` are decided here.
/// - Under `[c]` it compares characters one by one, where ICU compares runs of literals by full
///   case folding (`ss` matches `ß`): a value or a pattern literal with a character whose full
///   folding has more than one character gets no answer.
/// - Its cost is bounded: at most ``stateLimit`` states after expanding counted repetitions, and
///   per value ``stepLimit`` state visits and ``oracleLimit`` questions to ICU; past a limit,
///   no answer.
struct RegularLanguageMatcher {
    /// Automaton states: `(a?){1000}a{1000}` takes 3,000; a value of 5,000 characters then costs
    /// at most 15 million steps.
    static let stateLimit = 200_000
    /// State visits for one value, about a second in a release build: as long as ICU's budget.
    static let stepLimit = 60_000_000
    /// Characters asked of ICU for one value, about a microsecond each.
    static let oracleLimit = 200_000
    /// Groups nested deeper than this are refused, so that parsing and compiling (recursive)
    /// never exhaust a secondary thread's stack.
    static let nestingLimit = 200

    fileprivate let program: [Instruction]
    fileprivate let tests: [CharacterTest]
    fileprivate let entry: Int32
    /// The pattern begins with `^`, as the wrapper makes it: a match can start only at 0.
    fileprivate let anchoredAtStart: Bool
    /// For `\b` and `\B`: the tests of ICU's word characters, and of the characters its word
    /// boundaries look through.
    fileprivate let wordTests: (word: Int, ignored: Int)?
    private let caseInsensitive: Bool

    /// The automaton of `icuPattern`, the exact text given to ICU; nil when the pattern is outside
    /// the subset or its automaton would exceed ``stateLimit``.
    init?(icuPattern: String, caseInsensitive: Bool) {
        var parser = Parser(scalars: Array(icuPattern.unicodeScalars), caseInsensitive: caseInsensitive)
        var compiler = Compiler()
        guard let tree = try? parser.parse(),
              let entry = try? compiler.compile(tree, next: compiler.emit(Instruction(op: .match)))
        else { return nil }
        let boundaries = Assertion.wordBoundary.rawValue...Assertion.notWordBoundary.rawValue
        if compiler.program.contains(where: { $0.op == .assert && boundaries.contains($0.x) }) {
            wordTests = (
                Int(compiler.number(of: .icu("\\w", caseInsensitive: false))),
                Int(compiler.number(of: .icu("[\\p{Grapheme_Extend}\\p{Cf}]", caseInsensitive: false))))
        } else {
            wordTests = nil
        }
        (program, tests, self.entry, self.caseInsensitive) = (compiler.program, compiler.tests, entry, caseInsensitive)
        if case .sequence(let items) = tree, case .assertion(.start)? = items.first { anchoredAtStart = true } else { anchoredAtStart = false }
    }

    /// Whether ICU's search for the pattern in `value` would find a match; nil when this matcher
    /// cannot say (under `[c]`, a character whose case folding expands; a limit reached).
    func matches(_ value: String) -> Bool? {
        let text = value.unicodeScalars.map(\.value)
        var alphabet: [UInt32: Int32] = [:]
        var codes = [Int32]()
        codes.reserveCapacity(text.count)
        for scalar in text {
            if alphabet[scalar] == nil {
                if caseInsensitive, Self.foldingExpands(scalar) { return nil }
                alphabet[scalar] = Int32(alphabet.count)
            }
            codes.append(alphabet[scalar]!)
        }
        var symbols = [UInt32](repeating: 0, count: alphabet.count)
        for (scalar, code) in alphabet { symbols[Int(code)] = scalar }
        guard let oracle = Oracle(tests: tests, symbols: symbols) else { return nil }
        var run = Run(matcher: self, text: text, codes: codes, oracle: oracle)
        return run.search()
    }

    /// Whether the full case folding of `scalar` has more than one scalar (`ß`, `ﬁ`, `İ`…), where
    /// ICU's comparison of strings and this matcher's of characters part. Read from the full case
    /// mappings, either way and after one round trip: measured, the same 104 characters whose
    /// folding by Foundation expands.
    static func foldingExpands(_ scalar: UInt32) -> Bool {
        guard scalar >= 0x80, let character = Unicode.Scalar(scalar) else { return false }
        func single(_ mapping: String) -> Unicode.Scalar? {
            let scalars = mapping.unicodeScalars
            return scalars.count == 1 ? scalars.first : nil
        }
        let properties = character.properties
        guard let lower = single(properties.lowercaseMapping), let upper = single(properties.uppercaseMapping),
              single(properties.titlecaseMapping) != nil else { return true }
        return single(lower.properties.uppercaseMapping) == nil || single(upper.properties.lowercaseMapping) == nil
    }

    /// ICU's line terminators, which `.` does not match and `$` may stand before.
    static func isLineTerminator(_ scalar: UInt32) -> Bool {
        (0x0A...0x0D).contains(scalar) || scalar == 0x85 || scalar == 0x2028 || scalar == 0x2029
    }
}

// MARK: - The automaton

/// One test of a character. Tests are shared by all the instructions that make the same test.
private enum CharacterTest: Hashable {
    case scalar(UInt32)
    /// `.` without the dot-all flag.
    case anyButLineTerminator
    /// Asked of ICU: `text` is a pattern matching one character.
    case icu(String, caseInsensitive: Bool)
}

private enum Assertion: Int32 {
    /// `^` and `\A` without the multi-line flag.
    case start
    /// `\z`.
    case endOfInput
    /// `$` and `\Z` without the multi-line flag: at the end, or before a line terminator that ends
    /// the value (a final CR LF counts as one).
    case endOrFinalLineTerminator
    case wordBoundary
    case notWordBoundary
}

private struct Instruction {
    enum Op: UInt8 { case test, split, assert, match }
    var op: Op
    /// The test (`test`), the first branch (`split`) or the assertion (`assert`).
    var x: Int32 = 0
    /// The next instruction (`test`, `assert`) or the second branch (`split`).
    var y: Int32 = 0
}

private indirect enum Node {
    case test(CharacterTest)
    case assertion(Assertion)
    case sequence([Node])
    case alternation([Node])
    case repetition(Node, min: Int, max: Int?)

    /// Whether the node matches the empty string (assertions being empty).
    var matchesEmpty: Bool {
        switch self {
        case .test: return false
        case .assertion: return true
        case .sequence(let items): return items.allSatisfy(\.matchesEmpty)
        case .alternation(let branches): return branches.contains(where: \.matchesEmpty)
        case .repetition(let body, let min, _): return min == 0 || body.matchesEmpty
        }
    }
}

private struct Unsupported: Error {}

private struct Compiler {
    var program: [Instruction] = []
    var tests: [CharacterTest] = []
    var testNumbers: [CharacterTest: Int32] = [:]
    /// Calls of `compile`: repetitions of repetitions of empty groups emit nothing and must
    /// still end.
    var calls = 0

    mutating func number(of test: CharacterTest) -> Int32 {
        if testNumbers[test] == nil {
            testNumbers[test] = Int32(tests.count)
            tests.append(test)
        }
        return testNumbers[test]!
    }

    mutating func emit(_ instruction: Instruction) -> Int32 {
        program.append(instruction)
        return Int32(program.count - 1)
    }

    /// Compiles `node` to run before `next`, and returns its first instruction. Built back to
    /// front, so that every instruction knows its successor when it is emitted.
    mutating func compile(_ node: Node, next: Int32) throws(Unsupported) -> Int32 {
        calls += 1
        guard program.count <= RegularLanguageMatcher.stateLimit, calls <= 4 * RegularLanguageMatcher.stateLimit else { throw Unsupported() }
        switch node {
        case .test(let test):
            return emit(Instruction(op: .test, x: number(of: test), y: next))
        case .assertion(let assertion):
            return emit(Instruction(op: .assert, x: assertion.rawValue, y: next))
        case .sequence(let items):
            var entry = next
            for item in items.reversed() { entry = try compile(item, next: entry) }
            return entry
        case .alternation(let branches):
            var entry = try compile(branches[branches.count - 1], next: next)
            for branch in branches.dropLast().reversed() {
                let first = try compile(branch, next: next)
                entry = emit(Instruction(op: .split, x: first, y: entry))
            }
            return entry
        case .repetition(let body, let min, let max):
            var entry = next
            if let max {
                // Optional copies, each one's skip going straight to the end.
                for _ in 0..<(max - min) {
                    let copy = try compile(body, next: entry)
                    entry = emit(Instruction(op: .split, x: copy, y: next))
                }
            } else {
                let loop = emit(Instruction(op: .split))
                program[Int(loop)].x = try compile(body, next: loop)
                program[Int(loop)].y = next
                entry = loop
            }
            for _ in 0..<min { entry = try compile(body, next: entry) }
            return entry
        }
    }
}

// MARK: - Reading ICU's syntax

private struct Parser {
    let scalars: [Unicode.Scalar]
    let caseInsensitive: Bool
    var index = 0, depth = 0

    var peek: Unicode.Scalar? { peek(0) }

    func peek(_ offset: Int) -> Unicode.Scalar? { index + offset < scalars.count ? scalars[index + offset] : nil }

    mutating func take() throws(Unsupported) -> Unicode.Scalar {
        guard index < scalars.count else { throw Unsupported() }
        defer { index += 1 }
        return scalars[index]
    }

    mutating func parse() throws(Unsupported) -> Node {
        let tree = try alternation()
        // A `)` with no `(`: ICU refuses it, and there is nothing to guess.
        guard index == scalars.count else { throw Unsupported() }
        return tree
    }

    mutating func alternation() throws(Unsupported) -> Node {
        var branches = [try sequence()]
        while peek == "|" {
            index += 1
            branches.append(try sequence())
        }
        return branches.count == 1 ? branches[0] : .alternation(branches)
    }

    mutating func sequence() throws(Unsupported) -> Node {
        var items: [Node] = []
        while let next = peek, next != "|", next != ")" { items.append(try quantified(atom())) }
        return .sequence(items)
    }

    mutating func atom() throws(Unsupported) -> Node {
        let scalar = try take()
        switch scalar {
        case "(":
            if peek == "?" {
                // Only `(?:` and the named group `(?<name>`: every other `(?` changes the language
                // or the flags.
                if peek(1) == ":" {
                    index += 2
                } else if peek(1) == "<", let first = peek(2), Self.isASCIILetter(first) {
                    index += 3
                    while let next = peek, Self.isASCIILetter(next) || ("0"..."9").contains(next) { index += 1 }
                    guard peek == ">" else { throw Unsupported() }
                    index += 1
                } else {
                    throw Unsupported()
                }
            }
            depth += 1
            guard depth <= RegularLanguageMatcher.nestingLimit else { throw Unsupported() }
            let inner = try alternation()
            guard try take() == ")" else { throw Unsupported() }
            depth -= 1
            return inner
        case "[": return try characterClass()
        case ".": return .test(.anyButLineTerminator)
        case "^": return .assertion(.start)
        case "$": return .assertion(.endOrFinalLineTerminator)
        case "\\": return try escape()
        case "*", "+", "?", "{", "}": throw Unsupported()
        default: return try literal(scalar.value)
        }
    }

    static func isASCIILetter(_ scalar: Unicode.Scalar) -> Bool { ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) }

    mutating func literal(_ value: UInt32) throws(Unsupported) -> Node {
        guard caseInsensitive else { return .test(.scalar(value)) }
        // ICU compares a run of literals by full case folding: only where that is the simple
        // folding, one character at a time, does asking ICU about each character agree with it.
        guard !RegularLanguageMatcher.foldingExpands(value) else { throw Unsupported() }
        return .test(.icu("\\x{" + String(value, radix: 16) + "}", caseInsensitive: true))
    }

    mutating func quantified(_ atom: Node) throws(Unsupported) -> Node {
        guard let next = peek, "*+?{".unicodeScalars.contains(next) else { return atom }
        // ICU lets `^*` through; what it means there is not worth guessing.
        if case .assertion = atom { throw Unsupported() }
        index += 1
        var min = 0, max: Int?
        switch next {
        case "*": break
        case "+": min = 1
        case "?": max = 1
        default:
            min = try number()
            max = min
            if peek == "," {
                index += 1
                max = peek == "}" ? nil : try number()
            }
            guard try take() == "}" else { throw Unsupported() }
            if let max, max < min { throw Unsupported() }
        }
        // Lazy quantifiers match the same language, except that ICU's unbounded lazy loops
        // (`*?`, `+?`) do not stop when the body matched nothing: with a body that can match
        // nothing, a failing search repeats it forever and ICU has no answer to agree with.
        // Possessive ones (`+`) match another language; a quantifier after a quantifier is an
        // error or a question.
        if peek == "?" {
            index += 1
            if max == nil, atom.matchesEmpty { throw Unsupported() }
        }
        if let after = peek, "*+?{".unicodeScalars.contains(after) { throw Unsupported() }
        return .repetition(atom, min: min, max: max)
    }

    mutating func number() throws(Unsupported) -> Int {
        var value = 0, digits = 0
        while let next = peek, ("0"..."9").contains(next) {
            value = value * 10 + Int(next.value - 48)
            digits += 1
            index += 1
            guard value <= RegularLanguageMatcher.stateLimit else { throw Unsupported() }
        }
        guard digits > 0 else { throw Unsupported() }
        return value
    }

    /// After a `\` outside a class.
    mutating func escape() throws(Unsupported) -> Node {
        let scalar = try take()
        switch scalar {
        case "A": return .assertion(.start)
        case "z": return .assertion(.endOfInput)
        case "Z": return .assertion(.endOrFinalLineTerminator)
        case "b": return .assertion(.wordBoundary)
        case "B": return .assertion(.notWordBoundary)
        case "d", "D", "w", "W", "s", "S": return .test(.icu("\\" + String(scalar), caseInsensitive: caseInsensitive))
        default:
            index -= 1
            return try literal(escapedCharacter())
        }
    }

    /// The character of an escape that stands for one (at the character after the `\`), as ICU's
    /// `u_unescapeAt` and its octal rule read it.
    mutating func escapedCharacter() throws(Unsupported) -> UInt32 {
        let scalar = try take()
        let named: [Unicode.Scalar: UInt32] = ["t": 0x09, "n": 0x0A, "r": 0x0D, "f": 0x0C, "e": 0x1B, "a": 0x07]
        if let value = named[scalar] { return value }
        switch scalar {
        case "u": return try hexadecimal(minimum: 4, maximum: 4)
        case "U": return try hexadecimal(minimum: 8, maximum: 8)
        case "x":
            guard peek == "{" else { return try hexadecimal(minimum: 1, maximum: 2) }
            index += 1
            let value = try hexadecimal(minimum: 1, maximum: 8)
            guard try take() == "}" else { throw Unsupported() }
            return value
        case "0":
            var value: UInt32 = 0, digits = 0
            while digits < 3, let next = peek, ("0"..."7").contains(next) {
                // ICU stops before a third digit that would pass 0377; rather than rely on it, no answer.
                guard value * 8 + (next.value - 48) <= 0o377 else { throw Unsupported() }
                value = value * 8 + (next.value - 48)
                digits += 1
                index += 1
            }
            guard digits > 0 else { throw Unsupported() }
            return value
        default:
            // A quoted punctuation character is itself; a quoted letter, digit or other character
            // is a feature left to ICU (or, for unknown letters, a literal only by ICU's leniency).
            guard scalar.isASCII, (0x20...0x7E).contains(scalar.value), !scalar.properties.isAlphabetic, !("0"..."9").contains(scalar)
            else { throw Unsupported() }
            return scalar.value
        }
    }

    mutating func hexadecimal(minimum: Int, maximum: Int) throws(Unsupported) -> UInt32 {
        var value: UInt32 = 0, digits = 0
        while digits < maximum, let next = peek, next.isASCII, let digit = UInt32(String(next), radix: 16) {
            value = value * 16 + digit
            digits += 1
            index += 1
        }
        // Surrogates are combined in pairs by ICU's unescaping: left to it.
        guard digits >= minimum, value <= 0x10FFFF, !(0xD800...0xDFFF).contains(value) else { throw Unsupported() }
        return value
    }

    /// After a `[`: literals, ranges and `\d`-style escapes, perhaps negated, which ICU then
    /// decides. ICU reads nested classes, POSIX names, `&&` and `--` as set operations: refused,
    /// as are the uses of `-` whose reading is not plain.
    mutating func characterClass() throws(Unsupported) -> Node {
        let start = index - 1
        if peek == "^" { index += 1 }
        if peek == ":" { throw Unsupported() }
        var first = true
        // Whether the last element was a single literal, which may begin a range.
        var literal = false
        while true {
            let scalar = try take()
            defer { first = false }
            switch scalar {
            case "]" where !first:
                let text = String(String.UnicodeScalarView(scalars[start..<index]))
                return .test(.icu(text, caseInsensitive: caseInsensitive))
            case "[":
                throw Unsupported()
            case "&" where peek == "&" || (index >= 2 && scalars[index - 2] == "&"):
                throw Unsupported()
            case "-" where first:
                guard peek != "-" else { throw Unsupported() }
                literal = true
            case "-" where peek == "]":
                literal = false
            case "-":
                guard literal, let next = peek, next != "-", next != "[" else { throw Unsupported() }
                index += 1
                if next == "\\", try classEscape() == nil { throw Unsupported() }
                literal = false
            case "\\":
                literal = try classEscape() != nil
            default:
                literal = true
            }
        }
    }

    /// After a `\` in a class: the character it stands for, or nil for `\d`-style escapes.
    mutating func classEscape() throws(Unsupported) -> UInt32? {
        guard let scalar = peek, "dDwWsS".unicodeScalars.contains(scalar) else { return try escapedCharacter() }
        index += 1
        return nil
    }
}

// MARK: - Running the automaton

/// The answers of the automaton's character tests for the characters of one value, filled in
/// as the simulation asks.
private struct Oracle {
    let tests: [CharacterTest]
    let symbols: [UInt32]
    /// Per test, per distinct character of the value: -1 not yet known, 0 no, 1 yes.
    var answers: [Int8] = []
    var expressions: [NSRegularExpression?] = []
    var questions = 0
    var gaveUp = false

    /// Nil when the answers would take too much room (thousands of tests, thousands of
    /// distinct characters).
    init?(tests: [CharacterTest], symbols: [UInt32]) {
        let (size, overflow) = tests.count.multipliedReportingOverflow(by: max(symbols.count, 1))
        guard !overflow, size <= 16_000_000 else { return nil }
        self.tests = tests
        self.symbols = symbols
        answers = [Int8](repeating: -1, count: size)
        expressions = [NSRegularExpression?](repeating: nil, count: tests.count)
    }

    mutating func accepts(_ test: Int, _ code: Int) -> Bool {
        let slot = test * symbols.count + code
        if answers[slot] >= 0 { return answers[slot] == 1 }
        let answer = decide(test, symbols[code])
        answers[slot] = answer ? 1 : 0
        return answer
    }

    private mutating func decide(_ test: Int, _ scalar: UInt32) -> Bool {
        switch tests[test] {
        case .scalar(let value): return scalar == value
        case .anyButLineTerminator: return !RegularLanguageMatcher.isLineTerminator(scalar)
        case .icu(let text, let caseInsensitive):
            questions += 1
            if expressions[test] == nil {
                expressions[test] = try? NSRegularExpression(pattern: "^(?:" + text + ")\\z", options: caseInsensitive ? [.caseInsensitive] : [])
            }
            guard questions <= RegularLanguageMatcher.oracleLimit, let character = Unicode.Scalar(scalar), let expression = expressions[test] else {
                gaveUp = true
                return false
            }
            let string = String(character)
            return expression.firstMatch(in: string, range: NSRange(location: 0, length: string.utf16.count)) != nil
        }
    }
}

private struct Run {
    let program: [Instruction]
    let entry: Int32
    let anchoredAtStart: Bool
    let text: [UInt32]
    let codes: [Int32]
    var oracle: Oracle
    /// Per scalar test, its scalar; `UInt32.max` for tests the oracle answers.
    let scalarOfTest: [UInt32]
    /// Per position, whether ICU's `\b` holds there (when the pattern has one).
    var boundaries: [Bool] = []
    /// Per instruction, the last position whose state set holds it.
    var marks: [Int32]
    var steps = 0
    var stack: [Int32] = []
    let wordTests: (word: Int, ignored: Int)?

    init(matcher: RegularLanguageMatcher, text: [UInt32], codes: [Int32], oracle: Oracle) {
        (program, entry, anchoredAtStart, wordTests) = (matcher.program, matcher.entry, matcher.anchoredAtStart, matcher.wordTests)
        (self.text, self.codes, self.oracle) = (text, codes, oracle)
        scalarOfTest = matcher.tests.map { test in
            if case .scalar(let value) = test { return value }
            return UInt32.max
        }
        marks = [Int32](repeating: -1, count: program.count)
    }

    /// ICU's `\b` (its `isChunkWordBoundary`, without the Unicode word-break flag): the character
    /// at the position and the last one before it that is not a grapheme extender or a format
    /// character differ in being `\w`; never before such a character itself.
    mutating func wordBoundaries(word: Int, ignored: Int) -> [Bool] {
        var result = [Bool](repeating: false, count: text.count + 1)
        var previousIsWord = false
        for position in 0..<text.count {
            let code = Int(codes[position])
            if oracle.accepts(ignored, code) { continue }
            let isWord = oracle.accepts(word, code)
            result[position] = isWord != previousIsWord
            previousIsWord = isWord
        }
        result[text.count] = previousIsWord
        return result
    }

    func holds(_ assertion: Assertion, at position: Int) -> Bool {
        let count = text.count
        switch assertion {
        case .start: return position == 0
        case .endOfInput: return position == count
        case .endOrFinalLineTerminator:
            if position == count { return true }
            if position == count - 1 {
                let scalar = text[position]
                return RegularLanguageMatcher.isLineTerminator(scalar) && !(scalar == 0x0A && position > 0 && text[position - 1] == 0x0D)
            }
            return position == count - 2 && text[position] == 0x0D && text[position + 1] == 0x0A
        case .wordBoundary: return boundaries[position]
        case .notWordBoundary: return !boundaries[position]
        }
    }

    /// Adds to `list` the tests and the match reachable from `start` without reading a character
    /// at `position`; true if the match is among them.
    mutating func close(from start: Int32, at position: Int, into list: inout [Int32]) -> Bool {
        let generation = Int32(position)
        var matched = false
        stack.append(start)
        while let pc = stack.popLast() {
            if marks[Int(pc)] == generation { continue }
            marks[Int(pc)] = generation
            steps += 1
            let instruction = program[Int(pc)]
            switch instruction.op {
            case .test: list.append(pc)
            case .match: matched = true
            case .split:
                stack.append(instruction.y)
                stack.append(instruction.x)
            case .assert:
                if holds(Assertion(rawValue: instruction.x)!, at: position) { stack.append(instruction.y) }
            }
        }
        return matched
    }

    mutating func search() -> Bool? {
        if let (word, ignored) = wordTests {
            boundaries = wordBoundaries(word: word, ignored: ignored)
            if oracle.gaveUp { return nil }
        }
        var current: [Int32] = [], next: [Int32] = []
        for position in 0...text.count {
            if !anchoredAtStart || position == 0 {
                if close(from: entry, at: position, into: &current) { return true }
            }
            if position == text.count || (anchoredAtStart && current.isEmpty) { break }
            let scalar = text[position], code = Int(codes[position])
            next.removeAll(keepingCapacity: true)
            var matched = false
            for pc in current {
                let instruction = program[Int(pc)]
                let test = Int(instruction.x)
                let expected = scalarOfTest[test]
                let accepted = expected != UInt32.max ? scalar == expected : oracle.accepts(test, code)
                if accepted, close(from: instruction.y, at: position + 1, into: &next) { matched = true }
            }
            if oracle.gaveUp || steps > RegularLanguageMatcher.stepLimit { return nil }
            if matched { return true }
            swap(&current, &next)
        }
        return oracle.gaveUp ? nil : false
    }
}
