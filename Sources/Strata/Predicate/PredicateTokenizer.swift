/// A token of a predicate format string, with its character offset.
struct PredicateToken: Equatable {
    enum Kind: Equatable {
        case identifier(String)
        case string(String)
        case number(String)
        case symbol(String)
        /// `%@`, `%K`, `%d`, …: the letters after `%`.
        case argument(String)
        /// `$NAME`.
        case variable(String)
        case end
    }

    var kind: Kind
    var offset: Int

    /// The token as the user wrote it, for messages.
    var text: String {
        switch kind {
        case .identifier(let name): name
        case .string(let value): "\"\(value)\""
        case .number(let literal): literal
        case .symbol(let symbol): symbol
        case .argument(let letters): "%" + letters
        case .variable(let name): "$" + name
        case .end: "the end of the predicate"
        }
    }
}

/// Splits a predicate format string into tokens.
///
/// It reads Unicode scalars, not characters: a quote followed by a combining mark (`"ે…"`) is
/// one character to Swift, yet a quote and the start of a string to the grammar. Offsets are
/// still counted in characters, as messages show them.
struct PredicateTokenizer {
    private let characters: [Unicode.Scalar]
    private let source: String
    /// The character each scalar belongs to, by scalar index (one more entry for the end).
    private let characterOffsets: [Int]
    private var position = 0

    init(_ source: String) {
        self.source = source
        characters = Array(source.unicodeScalars)
        var offsets: [Int] = []
        offsets.reserveCapacity(characters.count + 1)
        for (offset, character) in source.enumerated() {
            offsets.append(contentsOf: repeatElement(offset, count: character.unicodeScalars.count))
        }
        offsets.append(source.count)
        characterOffsets = offsets
    }

    static func tokens(of source: String) throws(PredicateSyntaxError) -> [PredicateToken] {
        var tokenizer = PredicateTokenizer(source)
        var tokens: [PredicateToken] = []
        while true {
            let token = try tokenizer.next()
            tokens.append(token)
            if token.kind == .end { return tokens }
        }
    }

    private static let symbols = [
        "==", "!=", "<>", "<=", "=<", ">=", "=>", "&&", "||", "**", "=", "<", ">", "!", "(", ")", "{", "}", ",", ".", "[", "]", "@", "-",
        "+", "*", "/", ":",
    ]

    private mutating func next() throws(PredicateSyntaxError) -> PredicateToken {
        while position < characters.count, characters[position].properties.isWhitespace { position += 1 }
        let start = position
        guard position < characters.count else { return PredicateToken(kind: .end, offset: characterOffsets[start]) }
        let character = characters[position]
        if Self.startsName(character) || character == "#" {
            if character == "#" { position += 1 }
            let nameStart = position
            while position < characters.count, Self.continuesName(characters[position]) { position += 1 }
            guard position > nameStart else { throw error("expected a name after '#'", at: start) }
            // An escaped name keeps its '#', so that the parser never reads it as a keyword.
            return PredicateToken(kind: .identifier(text(start..<position)), offset: characterOffsets[start])
        }
        if character == "0", position + 1 < characters.count, let radix = ["x": 16, "X": 16, "o": 8, "O": 8, "b": 2, "B": 2][characters[position + 1]] {
            // 0x1F, 0o17, 0b101: C's integer literals, as Core Data's parser reads them.
            position += 2
            while position < characters.count, characters[position].properties.isASCIIHexDigit || characters[position] == "_" { position += 1 }
            let literal = text(start..<position)
            guard Int64(literal.dropFirst(2).filter { $0 != "_" }, radix: radix) != nil else {
                throw error("'\(literal)' is not a number in base \(radix)", at: start)
            }
            return PredicateToken(kind: .number(literal), offset: characterOffsets[start])
        }
        if Self.isDigit(character) {
            while position < characters.count, Self.isDigit(characters[position]) || characters[position] == "." || characters[position] == "e"
                || characters[position] == "E" || ((characters[position] == "-" || characters[position] == "+") && "eE".unicodeScalars.contains(characters[position - 1]))
            {
                // A dot ends the number unless a digit follows: `books.@count` is not a number.
                if characters[position] == ".", !(position + 1 < characters.count && Self.isDigit(characters[position + 1])) { break }
                position += 1
            }
            let literal = text(start..<position)
            guard let value = Double(literal) else { throw error("'\(literal)' is not a number", at: start) }
            // Double reads an overflowing literal as infinity, which no predicate text can write
            // back: out of range is the user's mistake, as `1e` is.
            guard value.isFinite else { throw error("'\(literal)' is out of the range of a number", at: start) }
            return PredicateToken(kind: .number(literal), offset: characterOffsets[start])
        }
        if character == "\"" || character == "'" {
            return PredicateToken(kind: .string(try string(quote: character)), offset: characterOffsets[start])
        }
        if character == "%" {
            position += 1
            guard let letters = ["lld", "ld", "lf", "@", "K", "d", "i", "f"].first(where: { matches($0) }) else {
                throw error("unknown argument; known: %@, %K, %d, %i, %ld, %f", at: start)
            }
            position += letters.count
            return PredicateToken(kind: .argument(letters), offset: characterOffsets[start])
        }
        if character == "$" {
            position += 1
            let nameStart = position
            while position < characters.count, Self.continuesName(characters[position]) { position += 1 }
            guard position > nameStart else { throw error("expected a variable name after '$'", at: start) }
            return PredicateToken(kind: .variable(text(nameStart..<position)), offset: characterOffsets[start])
        }
        for symbol in Self.symbols where matches(symbol) {
            position += symbol.unicodeScalars.count
            return PredicateToken(kind: .symbol(symbol), offset: characterOffsets[start])
        }
        throw error("unexpected character '\(character)'", at: start)
    }

    private func matches(_ symbol: String) -> Bool {
        let symbolCharacters = Array(symbol.unicodeScalars)
        guard position + symbolCharacters.count <= characters.count else { return false }
        return Array(characters[position..<(position + symbolCharacters.count)]) == symbolCharacters
    }

    private mutating func string(quote: Unicode.Scalar) throws(PredicateSyntaxError) -> String {
        let start = position
        position += 1
        var value = ""
        while position < characters.count {
            let character = characters[position]
            position += 1
            if character == quote { return value }
            guard character == "\\" else {
                value.unicodeScalars.append(character)
                continue
            }
            guard position < characters.count else { break }
            let escaped = characters[position]
            position += 1
            switch escaped {
            case "n": value.append("\n")
            case "t": value.append("\t")
            case "r": value.append("\r")
            case "0": value.append("\0")
            case "u":
                let hex = text(position..<min(position + 4, characters.count))
                guard hex.count == 4, let code = UInt32(hex, radix: 16), let scalar = Unicode.Scalar(code) else {
                    throw error("expected four hexadecimal digits after '\\u'", at: position - 2)
                }
                value.unicodeScalars.append(scalar)
                position += 4
            default: value.unicodeScalars.append(escaped)
            }
        }
        throw error("unterminated string", at: start)
    }

    private func text(_ range: Range<Int>) -> String {
        var text = ""
        text.unicodeScalars.append(contentsOf: characters[range])
        return text
    }

    /// An error at the scalar at `offset`.
    private func error(_ message: String, at offset: Int) -> PredicateSyntaxError {
        PredicateSyntaxError(message: message, predicate: source, offset: characterOffsets[offset])
    }

    // MARK: - Classes of scalars

    /// Whether a name (a key, after `#` or not) may start with `scalar`.
    static func startsName(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "_" || scalar.properties.isAlphabetic
    }

    /// Letters, digits, `_`, and the marks that combine with them (accents, vowel signs).
    private static func continuesName(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark, .decimalNumber, .letterNumber, .otherNumber: true
        default: startsName(scalar)
        }
    }

    private static func isDigit(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .decimalNumber || scalar.properties.numericType != nil
    }
}
