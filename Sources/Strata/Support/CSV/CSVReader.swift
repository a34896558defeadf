import Foundation

/// Reads CSV one row at a time, as RFC 4180 writes it and as `strata export --format csv` and
/// `sqlite3 -csv` write it: fields separated by commas, rows ended by CRLF or LF; a field with
/// a comma, a quote or a line break is quoted, with its quotes doubled.
///
/// ```swift
/// var reader = try CSVReader(path: "books.csv")
/// let header = try reader.nextRow()!.map(\.text)
/// while let row = try reader.nextRow() {
///     print(row[0].text, row[0].location)   // Dune line 2, column 1
/// }
/// ```
///
/// A quoted field keeps what it holds exactly, line breaks included, and says it was quoted:
/// `sqlite3` writes nil as an empty field and the empty string as `""`, which
/// ``Field/isQuoted`` tells apart. A quote inside an unquoted field is kept as a character.
/// A byte order mark at the start is skipped. An empty line yields a row of one empty field.
///
/// Like ``JSONRecordReader`` (whose input it reads through), it holds one 64 KiB chunk of the
/// input and the row being built, never the whole input. Errors (a quoted field that never
/// ends, a character after a closing quote, text that is not UTF-8) are ``CSVSyntaxError``s
/// located by line and column.
package struct CSVReader {
    /// One field of a row.
    package struct Field: Sendable, Equatable {
        /// The field's text, without its quotes and with doubled quotes made single.
        package var text: String
        /// Whether the field was quoted: `""` is the empty string, an empty field nil.
        var isQuoted: Bool
        /// Where the field starts (its opening quote, if quoted); columns count Unicode scalars.
        package var location: SourceLocation

        package init(text: String, isQuoted: Bool, location: SourceLocation) {
            self.text = text
            self.isQuoted = isQuoted
            self.location = location
        }
    }

    private let input: JSONRecordReader.Input
    private var buffer: [UInt8] = []
    private var position = 0
    private var line = 1
    private var column = 1
    private var isFinished = false
    private var isStart = true

    /// A reader of the file at `path`; throws the file system's error when it cannot be opened.
    package init(path: String) throws {
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        input = JSONRecordReader.Input(fileHandle: handle)
    }

    /// A reader of `fileHandle` from its current offset to its end; the handle is not closed.
    package init(fileHandle: FileHandle) {
        input = JSONRecordReader.Input(fileHandle: fileHandle)
    }

    /// A reader of `data`, read a chunk at a time as a file is.
    package init(data: Data) {
        input = JSONRecordReader.Input(data: data)
    }

    /// How many bytes of the input have been read so far.
    package var bytesRead: Int { input.bytesRead }

    /// The next row, or `nil` at the end of the input.
    ///
    /// - Throws: ``CSVSyntaxError`` where the input stops being CSV, or reading it failed.
    package mutating func nextRow() throws(CSVSyntaxError) -> [Field]? {
        if isStart {
            isStart = false
            if peek() == 0xEF, peek(1) == 0xBB, peek(2) == 0xBF { position += 3 }
        }
        guard !isFinished, peek() != nil else {
            isFinished = true
            if let failure = input.takeFailure() { throw CSVSyntaxError(message: "cannot read the input: \(failure)", location: here) }
            return nil
        }
        var fields: [Field] = []
        while true {
            fields.append(try field())
            switch peek() {
            case UInt8(ascii: ","):
                advance()
            case 13:
                advance()
                if peek() == 10 { advance() }
                newLine()
                return fields
            case 10:
                advance()
                newLine()
                return fields
            case nil:
                if let failure = input.takeFailure() { throw CSVSyntaxError(message: "cannot read the input: \(failure)", location: here) }
                return fields
            case let byte?:
                // Only a quoted field stops anywhere else: at its closing quote.
                throw CSVSyntaxError(
                    message: "unexpected \(Self.describe(byte)) after the closing quote of a field (a quote inside a quoted field is written \"\")",
                    location: here)
            }
        }
    }

    private var here: SourceLocation { SourceLocation(line: line, column: column) }

    private mutating func field() throws(CSVSyntaxError) -> Field {
        let start = here
        var bytes: [UInt8] = []
        guard peek() == UInt8(ascii: "\"") else {
            while let byte = peek(), byte != UInt8(ascii: ","), byte != 10, byte != 13 {
                bytes.append(byte)
                advance()
            }
            return Field(text: try text(bytes, at: start), isQuoted: false, location: start)
        }
        advance()
        while true {
            guard let byte = peek() else {
                throw CSVSyntaxError(message: "a quoted field that starts here never ends (no closing quote before the end of the input)", location: start)
            }
            advance()
            if byte == UInt8(ascii: "\"") {
                guard peek() == UInt8(ascii: "\"") else { break }
                advance()
            } else if byte == 10 {
                newLine()
            } else if byte == 13, peek() != 10 {
                newLine()
            }
            bytes.append(byte)
        }
        return Field(text: try text(bytes, at: start), isQuoted: true, location: start)
    }

    private func text(_ bytes: [UInt8], at location: SourceLocation) throws(CSVSyntaxError) -> String {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw CSVSyntaxError(message: "the field is not UTF-8 text", location: location)
        }
        return text
    }

    // MARK: - Bytes

    private mutating func peek(_ ahead: Int = 0) -> UInt8? {
        while position + ahead >= buffer.count {
            // The bytes already read go before more are read: memory stays at about one chunk.
            if position > 0 {
                buffer.removeFirst(position)
                position = 0
            }
            let before = buffer.count
            input.appendChunk(to: &buffer)
            if buffer.count == before { return nil }
        }
        return buffer[position + ahead]
    }

    private mutating func advance() {
        // Columns count scalars: a UTF-8 continuation byte adds none.
        if buffer[position] & 0xC0 != 0x80 { column += 1 }
        position += 1
    }

    private mutating func newLine() {
        line += 1
        column = 1
    }

    private static func describe(_ byte: UInt8) -> String {
        byte >= 0x20 && byte < 0x7F ? "'\(Character(Unicode.Scalar(byte)))'" : String(format: "byte 0x%02X", byte)
    }
}

/// Why a CSV input could not be read: what was wrong, and where.
public struct CSVSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, in words: `a quoted field is not closed`.
    public var message: String
    /// Where in the file: line and column, counted from 1.
    public var location: SourceLocation

    /// An error saying `message` at `location`.
    public init(message: String, location: SourceLocation) {
        self.message = message
        self.location = location
    }

    /// `line 3, column 7: …`.
    public var description: String { "\(location): \(message)" }
}
