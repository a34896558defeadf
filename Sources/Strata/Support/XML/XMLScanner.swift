import Foundation

/// A cursor over the UTF-8 bytes of an XML document for ``XMLTreeReader``: it knows the line and
/// column of the byte it is at, and as it moves it checks that what it passes is UTF-8 and made
/// of characters XML allows, so that the reader's grammar deals in bytes and never meets a
/// character it must check again.
///
/// Lines and columns count as XML 1.0 sees the text after its line ends are normalized
/// (section 2.11): CR LF and a lone CR end a line as LF does, and a column counts Unicode
/// scalars from 1. A byte order mark before the first character is skipped and not counted.
struct XMLScanner {
    private let bytes: [UInt8]
    /// Where the cursor is in `bytes`.
    private(set) var offset: Int
    /// The line and column of the byte at the cursor (of the end, once there).
    private(set) var location = SourceLocation(line: 1, column: 1)

    init(_ data: Data) {
        bytes = [UInt8](data)
        offset = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
    }

    /// The byte at the cursor, `nil` at the end.
    var current: UInt8? { offset < bytes.count ? bytes[offset] : nil }

    /// The byte `distance` bytes after the cursor, `nil` past the end.
    func peek(_ distance: Int) -> UInt8? {
        offset + distance < bytes.count ? bytes[offset + distance] : nil
    }

    /// Whether the bytes at the cursor are `text` (ASCII).
    func isAt(_ text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard offset + count <= bytes.count else { return false }
        return text.withUTF8Buffer { expected in
            for index in 0..<count where bytes[offset + index] != expected[index] { return false }
            return true
        }
    }

    /// An error at the cursor, or at `location`.
    func error(_ message: String, at location: SourceLocation? = nil) -> XMLSyntaxError {
        XMLSyntaxError(message: message, location: location ?? self.location)
    }

    // MARK: - Moving

    /// Moves past `count` bytes the caller has seen to be ASCII other than a line end.
    mutating func skip(_ count: Int) {
        offset += count
        location.column += count
    }

    /// Moves past the character at the cursor and returns its scalar value, LF for a line end
    /// (CR LF, CR or LF); fails at a byte that is not UTF-8 and at a character XML does not
    /// allow (Char in section 2.2). The cursor must not be at the end.
    mutating func step() throws(XMLSyntaxError) -> UInt32 {
        let byte = bytes[offset]
        switch byte {
        case 0x20..<0x80, 0x09:
            offset += 1
            location.column += 1
            return UInt32(byte)
        case 0x0A, 0x0D:
            offset += byte == 0x0D && peek(1) == 0x0A ? 2 : 1
            location = SourceLocation(line: location.line + 1, column: 1)
            return 0x0A
        case ..<0x20:
            throw error("a character that XML does not allow")
        default:
            let (scalar, length) = try decodeMultibyte(lead: byte)
            guard scalar != 0xFFFE && scalar != 0xFFFF else { throw error("a character that XML does not allow") }
            offset += length
            location.column += 1
            return scalar
        }
    }

    /// The scalar that the multi-byte UTF-8 sequence at the cursor encodes, and its length,
    /// following the table of well-formed sequences in RFC 3629: no overlong forms, no
    /// surrogates, nothing past U+10FFFF.
    private func decodeMultibyte(lead: UInt8) throws(XMLSyntaxError) -> (UInt32, Int) {
        let length: Int
        var lowest: UInt8 = 0x80, highest: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; lowest = 0xA0
        case 0xED: length = 3; highest = 0x9F
        case 0xE1...0xEF: length = 3
        case 0xF0: length = 4; lowest = 0x90
        case 0xF4: length = 4; highest = 0x8F
        case 0xF1...0xF3: length = 4
        default: throw error("the file is not valid UTF-8")
        }
        guard offset + length <= bytes.count else { throw error("the file is not valid UTF-8") }
        var scalar = UInt32(lead) & (0x7F >> length)
        for index in 1..<length {
            let byte = bytes[offset + index]
            let range = index == 1 ? lowest...highest : 0x80...0xBF
            guard range.contains(byte) else { throw error("the file is not valid UTF-8") }
            scalar = scalar << 6 | UInt32(byte & 0x3F)
        }
        return (scalar, length)
    }

    /// Fails as ``step()`` would at the character at the cursor, if there is one, without moving:
    /// so that a character XML does not allow is named as such where the grammar wanted another.
    func checkCharacter() throws(XMLSyntaxError) {
        guard current != nil else { return }
        var copy = self
        _ = try copy.step()
    }

    /// Moves past spaces, tabs and line ends; returns whether there was one.
    @discardableResult
    mutating func skipWhitespace() throws(XMLSyntaxError) -> Bool {
        let start = offset
        while let byte = current, Self.isWhitespace(byte) { _ = try step() }
        return offset != start
    }

    /// Whether `byte` is white space as XML means it (S in section 2.3): space, tab, LF, CR.
    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x0D
    }

    // MARK: - Text

    /// Moves past the characters up to (not including) the first byte that `stops` accepts or
    /// the end, appending them to `text` with line ends as LF and, when `spacing`, with each
    /// literal tab and line end as a space (attribute-value normalization, section 3.3.3).
    /// The stop bytes must be ASCII.
    mutating func copyText(to text: inout [UInt8], spacing: Bool = false, until stops: (UInt8) -> Bool) throws(XMLSyntaxError) {
        while offset < bytes.count {
            let byte = bytes[offset]
            if byte >= 0x20 && byte < 0x80 {
                if stops(byte) { return }
                text.append(byte)
                offset += 1
                location.column += 1
                continue
            }
            let start = offset
            let scalar = try step()
            if scalar == 0x0A || scalar == 0x09 {
                text.append(spacing ? 0x20 : UInt8(scalar))
            } else {
                text.append(contentsOf: bytes[start..<offset])
            }
        }
    }

    /// Moves past characters until the bytes at the cursor are `terminator` or the text ends;
    /// returns whether it found the terminator (the cursor is then at it).
    mutating func skip(until terminator: StaticString) throws(XMLSyntaxError) -> Bool {
        try scan(until: terminator) { _ in }
    }

    /// Moves past characters as ``skip(until:)`` does, appending them to `text`, line ends as LF.
    mutating func copy(until terminator: StaticString, to text: inout [UInt8]) throws(XMLSyntaxError) -> Bool {
        try scan(until: terminator) { text.append(contentsOf: $0) }
    }

    private mutating func scan(until terminator: StaticString, passing: (ArraySlice<UInt8>) -> Void) throws(XMLSyntaxError) -> Bool {
        let first = terminator.utf8Start.pointee
        while offset < bytes.count {
            if bytes[offset] == first && isAt(terminator) { return true }
            let start = offset
            let scalar = try step()
            passing(scalar == 0x0A ? Self.lineFeed : bytes[start..<offset])
        }
        return false
    }

    private static let lineFeed: ArraySlice<UInt8> = [0x0A]

    /// The text of the bytes from `start` to the cursor, which the scanner has checked.
    private func text(from start: Int) -> String {
        String(decoding: bytes[start..<offset], as: UTF8.self)
    }

    // MARK: - Names

    /// Reads the name at the cursor (Name in section 2.3, colons and all: Strata keeps
    /// qualified names as written); fails with "a name is required here" where none starts.
    mutating func readName() throws(XMLSyntaxError) -> String {
        let start = offset
        let startLocation = location
        while let byte = current {
            if byte < 0x80 {
                guard Self.isASCIINameCharacter(byte, first: offset == start) else { break }
                skip(1)
            } else {
                let before = (offset, location)
                let scalar = try step()
                guard Self.isNameCharacter(scalar, first: before.0 == start) else {
                    (offset, location) = before
                    break
                }
            }
        }
        guard offset != start else { throw error("a name is required here", at: startLocation) }
        return text(from: start)
    }

    private static func isASCIINameCharacter(_ byte: UInt8, first: Bool) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "_"), UInt8(ascii: ":"):
            return true
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."):
            return !first
        default:
            return false
        }
    }

    /// NameStartChar and NameChar of XML 1.0 (fifth edition), section 2.3, above ASCII.
    private static func isNameCharacter(_ scalar: UInt32, first: Bool) -> Bool {
        switch scalar {
        case 0xC0...0xD6, 0xD8...0xF6, 0xF8...0x2FF, 0x370...0x37D, 0x37F...0x1FFF, 0x200C...0x200D,
             0x2070...0x218F, 0x2C00...0x2FEF, 0x3001...0xD7FF, 0xF900...0xFDCF, 0xFDF0...0xFFFD,
             0x10000...0xEFFFF:
            return true
        case 0xB7, 0x300...0x36F, 0x203F...0x2040:
            return !first
        default:
            return false
        }
    }

    // MARK: - References

    /// Reads the reference at the cursor (at its `&`) and appends the character it stands for
    /// to `text`: a character reference (`&#65;`, `&#x41;`) or one of the five entities XML
    /// declares (`&lt;` `&gt;` `&amp;` `&apos;` `&quot;`); any other entity is undeclared, since
    /// the reader takes no declarations from a DOCTYPE.
    mutating func readReference(into text: inout [UInt8]) throws(XMLSyntaxError) {
        let start = location
        skip(1)
        if current == UInt8(ascii: "#") {
            skip(1)
            let scalar = try readCharacterNumber(referenceStart: start)
            UTF8.encode(scalar) { text.append($0) }
            return
        }
        guard let byte = current, byte >= 0x80 || Self.isASCIINameCharacter(byte, first: true) else {
            throw error("a '&' that starts no reference (write &amp; for a literal '&')", at: start)
        }
        let name = try readName()
        guard current == UInt8(ascii: ";") else { throw error("an entity reference is missing its ';'") }
        skip(1)
        switch name {
        case "lt": text.append(UInt8(ascii: "<"))
        case "gt": text.append(UInt8(ascii: ">"))
        case "amp": text.append(UInt8(ascii: "&"))
        case "apos": text.append(UInt8(ascii: "'"))
        case "quot": text.append(UInt8(ascii: "\""))
        default: throw error("an undeclared entity &\(name); (write &amp; for a literal '&')", at: start)
        }
    }

    /// Reads the digits and `;` of a character reference, after its `&#`, and returns the
    /// character, which must be one XML allows.
    private mutating func readCharacterNumber(referenceStart: SourceLocation) throws(XMLSyntaxError) -> Unicode.Scalar {
        let hexadecimal = current == UInt8(ascii: "x")
        if hexadecimal { skip(1) }
        var value: UInt32 = 0
        var digits = 0
        while let byte = current, let digit = Self.digitValue(byte, hexadecimal: hexadecimal) {
            // Past U+10FFFF the value is wrong anyway; stop it growing so that it cannot overflow.
            value = min(value * (hexadecimal ? 16 : 10) + digit, 0x110000)
            digits += 1
            skip(1)
        }
        guard digits > 0, current == UInt8(ascii: ";") else {
            throw error("a malformed character reference (write &#38; or &#x26;)", at: referenceStart)
        }
        skip(1)
        let allowed = value == 0x9 || value == 0xA || value == 0xD || (0x20...0xD7FF).contains(value)
            || (0xE000...0xFFFD).contains(value) || (0x10000...0x10FFFF).contains(value)
        guard allowed, let scalar = Unicode.Scalar(value) else {
            throw error("a character that XML does not allow", at: referenceStart)
        }
        return scalar
    }

    private static func digitValue(_ byte: UInt8, hexadecimal: Bool) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f") where hexadecimal: UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F") where hexadecimal: UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }
}
