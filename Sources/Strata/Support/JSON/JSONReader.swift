import Foundation

/// An error in JSON syntax, with the place it was found.
public struct JSONSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, in words: `expected ',' or '}' after an object member`.
    public var message: String
    /// Where in the text: line and column, counted from 1.
    public var location: SourceLocation

    public var description: String { "\(location): \(message)" }
}

/// Parses JSON text (RFC 8259) into ``JSONValue``s that remember their line and column.
///
/// ```swift
/// let value = try JSONReader.parse(Data(#"{"name": "LOTR"}"#.utf8))
/// value["name"]?.stringValue   // "LOTR"
/// ```
///
/// Nesting deeper than ``maximumDepth`` is an error rather than a stack overflow.
///
/// The same parser also reads input too large for memory: ``JSONRecordReader`` feeds it a
/// window of bytes that it refills a chunk at a time, and drives the outer array or object
/// itself with the members below that are not private.
public struct JSONReader {
    /// How deeply arrays and objects may nest.
    package static let maximumDepth = 512

    /// The bytes being read: the whole input, or a window on a stream (see `readMore`).
    private var bytes: [UInt8]
    private var offset = 0
    private var line = 1
    private var column = 1
    private var depth = 0

    /// Appends the stream's next bytes to the window, or nothing at the end of the input; `nil`
    /// when `bytes` holds the whole input, and once the stream has ended.
    private var readMore: ((inout [UInt8]) -> Void)?
    /// Where the number being read starts: its bytes must stay in the window until it ends,
    /// since its text is taken from there.
    private var numberStart: Int?
    /// The most bytes the window has held, so that tests can check that streaming stays
    /// within its bound.
    private(set) var peakWindowCount = 0
    /// The member count of the last object read at each depth: the records of an array are
    /// nearly always alike, so the next object's members get their room at once.
    private var memberCounts: [Int] = []

    /// Parses one JSON document; anything but whitespace after it is an error.
    public static func parse(_ data: Data) throws(JSONSyntaxError) -> JSONValue {
        var reader = JSONReader(bytes: [UInt8](data))
        reader.skipByteOrderMark()
        reader.skipWhitespace()
        let value = try reader.parseValue()
        reader.skipWhitespace()
        if reader.offset < reader.bytes.count {
            throw reader.error("unexpected \(reader.describeCurrent()) after the end of the JSON value")
        }
        return value
    }

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// A reader of a stream that `readMore` appends to the window a chunk at a time, appending
    /// nothing once the input has ended.
    init(readingMore readMore: @escaping (inout [UInt8]) -> Void) {
        self.bytes = []
        self.readMore = readMore
    }

    // MARK: - Values

    /// The value starting at the current byte (not whitespace).
    mutating func parseValue() throws(JSONSyntaxError) -> JSONValue {
        let location = currentLocation
        guard let byte = peek() else { throw error("unexpected end of input, expected a value") }
        switch byte {
        case UInt8(ascii: "{"): return JSONValue(.object(try parseObject()), location: location)
        case UInt8(ascii: "["): return JSONValue(.array(try parseArray()), location: location)
        case UInt8(ascii: "\""): return JSONValue(.string(try parseString()), location: location)
        case UInt8(ascii: "t"): try expectWord("true"); return JSONValue(.bool(true), location: location)
        case UInt8(ascii: "f"): try expectWord("false"); return JSONValue(.bool(false), location: location)
        case UInt8(ascii: "n"): try expectWord("null"); return JSONValue(.null, location: location)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return JSONValue(.number(try parseNumber()), location: location)
        default:
            throw error("unexpected \(describeCurrent()), expected a value")
        }
    }

    private mutating func parseObject() throws(JSONSyntaxError) -> [JSONMember] {
        try openContainer()
        if closeContainerIfEmpty(UInt8(ascii: "}")) { return [] }
        let (key, keyLocation) = try parseKey()
        return try parseMembers(firstKey: key, keyLocation: keyLocation)
    }

    /// The members of an object whose `{` and first key have been read, through its `}`.
    ///
    /// Separate from `parseObject()` for ``JSONRecordReader``, which reads a top-level
    /// object's first key before it knows whether the object is one record.
    mutating func parseMembers(firstKey: String, keyLocation: SourceLocation) throws(JSONSyntaxError) -> [JSONMember] {
        var members: [JSONMember] = []
        let level = depth
        if level < memberCounts.count { members.reserveCapacity(memberCounts[level]) }
        var (key, keyLocation) = (firstKey, keyLocation)
        while true {
            members.append(JSONMember(key, try parseValue(), keyLocation: keyLocation))
            guard try continueContainer(closedBy: UInt8(ascii: "}")) else { break }
            (key, keyLocation) = try parseKey()
        }
        if level >= memberCounts.count { memberCounts += Array(repeating: 0, count: level + 1 - memberCounts.count) }
        memberCounts[level] = members.count
        return members
    }

    /// A member's key and where it starts, with the `:` after it and the whitespace around.
    mutating func parseKey() throws(JSONSyntaxError) -> (String, SourceLocation) {
        skipWhitespace()
        guard peek() == UInt8(ascii: "\"") else {
            throw error("unexpected \(describeCurrent()), expected a string key")
        }
        let keyLocation = currentLocation
        let key = try parseString()
        skipWhitespace()
        guard peek() == UInt8(ascii: ":") else { throw error("unexpected \(describeCurrent()), expected ':'") }
        advance()
        skipWhitespace()
        return (key, keyLocation)
    }

    private mutating func parseArray() throws(JSONSyntaxError) -> [JSONValue] {
        try openContainer()
        var values: [JSONValue] = []
        if closeContainerIfEmpty(UInt8(ascii: "]")) { return values }
        repeat {
            values.append(try parseValue())
        } while try continueContainer(closedBy: UInt8(ascii: "]"))
        return values
    }

    // MARK: - Containers

    /// Steps over the `[` or `{` at the current byte, one level deeper.
    mutating func openContainer() throws(JSONSyntaxError) {
        depth += 1
        if depth > Self.maximumDepth {
            throw error("arrays and objects nest deeper than \(Self.maximumDepth) levels")
        }
        advance()
    }

    /// Whether the container just opened closes at once with `closing` (`]` or `}`), which is
    /// then read; the whitespace before it is read either way.
    mutating func closeContainerIfEmpty(_ closing: UInt8) -> Bool {
        skipWhitespace()
        guard peek() == closing else { return false }
        advance()
        depth -= 1
        return true
    }

    /// After an element or member: `true` past a `,` and the whitespace after it, `false` past
    /// the `closing` bracket that ends the container.
    mutating func continueContainer(closedBy closing: UInt8) throws(JSONSyntaxError) -> Bool {
        skipWhitespace()
        switch peek() {
        case UInt8(ascii: ","):
            advance()
            skipWhitespace()
            return true
        case closing:
            advance()
            depth -= 1
            return false
        default:
            throw error("unexpected \(describeCurrent()), expected ',' or '\(Character(Unicode.Scalar(closing)))'")
        }
    }

    // MARK: - Scalars

    private mutating func parseString() throws(JSONSyntaxError) -> String {
        advance()  // opening quote
        if let string = takePlainString() { return string }
        // Escapes, or a string cut by the window's end: byte by byte from where it starts.
        var utf8: [UInt8] = []
        while true {
            guard let byte = peek() else { throw error("unterminated string") }
            switch byte {
            case UInt8(ascii: "\""):
                advance()
                guard let string = String(validating: utf8, as: UTF8.self) else {
                    throw error("string is not valid UTF-8")
                }
                return string
            case UInt8(ascii: "\\"):
                let escapeLocation = currentLocation
                advance()
                do {
                    try parseEscape(into: &utf8)
                } catch {
                    throw JSONSyntaxError(message: error.message, location: escapeLocation)
                }
            case 0..<0x20:
                throw error("control character U+\(String(format: "%04X", byte)) in a string must be escaped")
            default:
                utf8.append(byte)
                advance()
            }
        }
    }

    /// The rest of a string with no escape whose closing quote is in the window, read in one
    /// step rather than byte by byte; `nil`, having read nothing, for any other string.
    private mutating func takePlainString() -> String? {
        var end = offset
        var scalarCount = 0
        var isASCII = true
        while end < bytes.count {
            let byte = bytes[end]
            if byte == UInt8(ascii: "\"") { break }
            // Escapes and control characters (an error the byte-by-byte path locates) go byte by byte.
            if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
            // A string holds no line break: the column counts its scalars' first bytes.
            if byte & 0xC0 != 0x80 { scalarCount += 1 }
            if byte >= 0x80 { isASCII = false }
            end += 1
        }
        guard end < bytes.count else { return nil }
        let string: String
        if isASCII {
            // ASCII is valid UTF-8: decoding from contiguous bytes needs no validation.
            string = bytes.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[offset..<end]), as: UTF8.self) }
        } else {
            // Invalid UTF-8 goes byte by byte, which reports it where it always has.
            guard let valid = String(validating: bytes[offset..<end], as: UTF8.self) else { return nil }
            string = valid
        }
        offset = end + 1
        column += scalarCount + 1
        return string
    }

    private mutating func parseEscape(into utf8: inout [UInt8]) throws(JSONSyntaxError) {
        guard let byte = peek() else { throw error("unterminated string") }
        advance()
        let simple: [UInt8: UInt8] = [
            UInt8(ascii: "\""): 0x22, UInt8(ascii: "\\"): 0x5C, UInt8(ascii: "/"): 0x2F,
            UInt8(ascii: "b"): 0x08, UInt8(ascii: "f"): 0x0C, UInt8(ascii: "n"): 0x0A,
            UInt8(ascii: "r"): 0x0D, UInt8(ascii: "t"): 0x09,
        ]
        if let replacement = simple[byte] {
            utf8.append(replacement)
            return
        }
        guard byte == UInt8(ascii: "u") else {
            throw error("invalid escape '\\\(Character(Unicode.Scalar(byte)))' in a string")
        }
        var scalarValue = UInt32(try parseHexQuad())
        if (0xD800...0xDBFF).contains(scalarValue) {
            guard peek() == UInt8(ascii: "\\"), peek(at: 1) == UInt8(ascii: "u") else {
                throw error("a high surrogate escape must be followed by a low surrogate escape")
            }
            advance(); advance()
            let low = UInt32(try parseHexQuad())
            guard (0xDC00...0xDFFF).contains(low) else { throw error("invalid low surrogate escape") }
            scalarValue = 0x10000 + ((scalarValue - 0xD800) << 10) + (low - 0xDC00)
        }
        guard let scalar = Unicode.Scalar(scalarValue) else { throw error("escape names no Unicode scalar") }
        utf8.append(contentsOf: Array(String(Character(scalar)).utf8))
    }

    private mutating func parseHexQuad() throws(JSONSyntaxError) -> UInt16 {
        var value: UInt16 = 0
        for _ in 0..<4 {
            guard let byte = peek(), let digit = hexDigitValue(byte) else {
                throw error("expected four hexadecimal digits after '\\u'")
            }
            value = value << 4 | UInt16(digit)
            advance()
        }
        return value
    }

    private mutating func parseNumber() throws(JSONSyntaxError) -> String {
        numberStart = offset
        defer { numberStart = nil }
        if peek() == UInt8(ascii: "-") { advance() }
        guard let first = peek(), isDigit(first) else { throw error("expected a digit in the number") }
        advance()
        if first != UInt8(ascii: "0") { skipDigits() }
        if peek() == UInt8(ascii: ".") {
            advance()
            guard let digit = peek(), isDigit(digit) else { throw error("expected a digit after the decimal point") }
            skipDigits()
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            advance()
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { advance() }
            guard let digit = peek(), isDigit(digit) else { throw error("expected a digit in the exponent") }
            skipDigits()
        }
        // From `numberStart`, not a saved offset: refilling the window may have moved it.
        return String(decoding: bytes[(numberStart ?? offset)..<offset], as: UTF8.self)
    }

    private mutating func expectWord(_ word: String) throws(JSONSyntaxError) {
        let start = currentLocation
        for expected in word.utf8 {
            guard peek() == expected else {
                throw JSONSyntaxError(message: "invalid literal, expected '\(word)'", location: start)
            }
            advance()
        }
    }

    // MARK: - Bytes and positions

    /// Where the current byte is in the whole input.
    var currentLocation: SourceLocation { SourceLocation(line: line, column: column) }

    /// The byte `distance` bytes on, `nil` past the end of the input.
    mutating func peek(at distance: Int = 0) -> UInt8? {
        if offset + distance < bytes.count { return bytes[offset + distance] }
        return refillWindow(toPeekAt: distance)
    }

    /// The byte `distance` bytes on when it is past the end of the window: refills the window
    /// from the stream, if there is one.
    private mutating func refillWindow(toPeekAt distance: Int) -> UInt8? {
        guard let readMore else { return nil }
        // The bytes already read go first (but a number in progress stays whole), so that the
        // window never holds much more than one chunk, however long the input.
        let consumed = min(offset, numberStart ?? offset)
        bytes.removeSubrange(..<consumed)
        offset -= consumed
        numberStart = numberStart.map { $0 - consumed }
        while offset + distance >= bytes.count {
            let countBefore = bytes.count
            readMore(&bytes)
            if bytes.count == countBefore {
                // Never ask again: a terminal's standard input would wait for another end.
                self.readMore = nil
                return nil
            }
            peakWindowCount = max(peakWindowCount, bytes.count)
        }
        return bytes[offset + distance]
    }

    private mutating func advance() {
        let byte = bytes[offset]
        offset += 1
        if byte == UInt8(ascii: "\n") {
            line += 1
            column = 1
        } else if byte & 0xC0 != 0x80 {
            column += 1
        }
    }

    mutating func skipWhitespace() {
        while let byte = peek(), byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { advance() }
    }

    private mutating func skipDigits() {
        while let byte = peek(), isDigit(byte) { advance() }
    }

    /// Steps over a UTF-8 byte order mark at the start of the input, which takes no column.
    mutating func skipByteOrderMark() {
        if peek() == 0xEF, peek(at: 1) == 0xBB, peek(at: 2) == 0xBF { offset += 3 }
    }

    private func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

    private func hexDigitValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// The current byte for an error message: `'x'`, `byte 0xFF` or `end of input`.
    mutating func describeCurrent() -> String {
        guard let byte = peek() else { return "end of input" }
        if byte < 0x80, byte >= 0x20 { return "'\(Character(Unicode.Scalar(byte)))'" }
        return String(format: "byte 0x%02X", byte)
    }

    /// An error at the current byte.
    func error(_ message: String) -> JSONSyntaxError {
        JSONSyntaxError(message: message, location: currentLocation)
    }
}
