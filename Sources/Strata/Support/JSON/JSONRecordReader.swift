import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One record read by ``JSONRecordReader``: a JSON value, usually an object, and the entity
/// it was listed under.
package struct JSONRecord: Sendable {
    /// The key of the wrapper object's array that held the record (`"books"` in
    /// `{"books": [...]}`); `nil` for the records of a top-level array, of NDJSON, and for a
    /// single top-level record.
    package var entity: String?
    /// The record as written, with line and column locations in the whole input.
    package var value: JSONValue

    /// A record of `entity` (`nil` for none) whose contents are `value`.
    package init(entity: String?, value: JSONValue) {
        self.entity = entity
        self.value = value
    }
}

/// Reads the records of a JSON import one at a time, so that a file much larger than memory
/// imports in little memory.
///
/// ```swift
/// var reader = try JSONRecordReader(path: "library.json", isEntityKey: ["books", "authors"].contains)
/// while let record = try reader.next() {
///     // record.entity is "books" for each element of the "books" array
///     print(record.entity ?? "-", record.value.location!, record.value["title"]?.stringValue ?? "")
/// }
/// ```
///
/// It understands these layouts:
///
/// - A top-level array: each element is a record. `[{"title": "LOTR"}, {"title": "Dune"}]`
/// - An object of records by entity, a *wrapper*: each element of each array is a record of
///   that key's entity. `{"books": [{"title": "LOTR"}], "authors": [{"name": "Tolkien"}]}`
/// - Any other single value, usually an object: one record. `{"title": "LOTR"}`
/// - NDJSON: each value is a record, on a line of its own; blank lines are skipped and lines
///   may end in CRLF. A value may run over several lines, as `jq` prints them.
///
/// Records are yielded as written: whether each is an object, and of what, is the caller's
/// to check, with the value's location at hand for the message.
///
/// ## Wrapper or record
///
/// Only the caller knows whether `{"books": [...]}` lists books or is one record with a
/// `books` attribute, so it says so with `isEntityKey`. A top-level object is a wrapper when
/// its *first* key is one that `isEntityKey` accepts and that key's value is an array; every
/// later key must then name an entity and hold an array too, or reading fails at that key.
/// The first key decides because the reader yields the first array's records before it has
/// seen the other keys: waiting for them would mean holding the whole input. An empty object
/// is one record.
///
/// ## JSON or NDJSON
///
/// With ``Format/automatic`` the input is NDJSON when a second value starts on a later line
/// than the first one ends, and one JSON document otherwise; a top-level array or a wrapper
/// always makes a JSON document, whose end must be the input's. Empty input has no records
/// (it is an empty NDJSON file). ``Format/json`` and ``Format/ndjson`` settle the question.
///
/// ## Memory
///
/// The reader reads 64 KiB at a time and drops the bytes it has parsed before it reads more,
/// so besides the record being built it holds one chunk of input (and the few bytes of a
/// number cut in two by a chunk's end) plus, for a file, the buffer `read(2)` fills: never the
/// whole input, however large. The records it has yielded are the caller's to keep or drop.
///
/// ## Errors
///
/// Syntax errors, a truncated input, invalid UTF-8 in a string and nesting deeper than
/// ``JSONReader/maximumDepth`` (counting the top-level array or wrapper) are
/// ``JSONSyntaxError``s located by line and column in the whole input, exactly as
/// ``JSONReader`` reports them. Records before the error have been yielded by then; after an
/// error, ``next()`` returns `nil`.
package struct JSONRecordReader {
    /// How the records are laid out in the input.
    package enum Format: Sendable {
        /// JSON or NDJSON, told apart by the input: NDJSON when a second value starts on a
        /// later line than the first one ends.
        case automatic
        /// One JSON value: an array of records, a wrapper object, or a single record. Anything
        /// but whitespace after it is an error.
        case json
        /// One value per line, each a record as it stands: an array on a line is one record,
        /// and no object is a wrapper.
        case ndjson
    }

    /// How many bytes the reader reads at a time.
    static let chunkSize = 64 * 1024

    private let input: Input
    private let format: Format
    private let isEntityKey: (String) -> Bool
    /// The parser of ``JSONReader``, fed the input a chunk at a time.
    private var parser: JSONReader
    private var state = State.start
    /// The wrapper object's first key, which made it a wrapper: errors about later keys name it.
    private var wrapperFirstKey = ""

    /// A reader of the file at `path`, which is read as the records are; throws the file
    /// system's error when the file cannot be opened.
    ///
    /// - Parameters:
    ///   - format: How the records are laid out; see ``Format``.
    ///   - isEntityKey: Whether a key of a top-level object names an entity, making the object
    ///     a wrapper of records by entity (see "Wrapper or record" above). The default never
    ///     does: a top-level object is one record.
    package init(
        path: String, format: Format = .automatic, isEntityKey: @escaping (String) -> Bool = { _ in false }
    ) throws {
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        self.init(input: Input(fileHandle: handle), format: format, isEntityKey: isEntityKey)
    }

    /// A reader of `fileHandle` (``FileHandle/standardInput``, say) from its current offset to
    /// its end; the handle is not closed. The parameters are those of ``init(path:format:isEntityKey:)``.
    package init(
        fileHandle: FileHandle, format: Format = .automatic, isEntityKey: @escaping (String) -> Bool = { _ in false }
    ) {
        self.init(input: Input(fileHandle: fileHandle), format: format, isEntityKey: isEntityKey)
    }

    /// A reader of `data`, which it parses a chunk at a time like a file rather than copying
    /// it whole. The parameters are those of ``init(path:format:isEntityKey:)``.
    package init(
        data: Data, format: Format = .automatic, isEntityKey: @escaping (String) -> Bool = { _ in false }
    ) {
        self.init(input: Input(data: data), format: format, isEntityKey: isEntityKey)
    }

    /// A reader of `input`; tests pass inputs of tiny chunks.
    init(input: Input, format: Format, isEntityKey: @escaping (String) -> Bool) {
        self.input = input
        self.format = format
        self.isEntityKey = isEntityKey
        self.parser = JSONReader(readingMore: { bytes in input.appendChunk(to: &bytes) })
    }

    /// Whether the input held no JSON value at all, only whitespace or nothing: known once
    /// ``next()`` has returned `nil` for it. An empty input is an empty NDJSON file to the
    /// reader, but a caller expecting a JSON document can refuse it (`[]` is not empty).
    package private(set) var isEmptyInput = false

    /// How many bytes of the input have been read so far: with the input's size, how far a
    /// reader of a file has come.
    package var bytesRead: Int { input.bytesRead }

    /// The most bytes of input the parser's window has held at once: one chunk, plus the few
    /// bytes of a number cut in two by a chunk's end. Tests check the memory bound with it.
    var peakBufferedByteCount: Int { parser.peakWindowCount }

    // MARK: - Reading records

    /// The next record, or `nil` after the last one.
    ///
    /// Throws a ``JSONSyntaxError`` where the input stops being JSON records, or where reading
    /// the file failed (`cannot read the input: ...`); after an error it returns `nil`.
    package mutating func next() throws(JSONSyntaxError) -> JSONRecord? {
        let record: JSONRecord?
        do {
            record = try readRecord()
        } catch {
            state = .finished
            // A failed read looks like the end of the input to the parser, whose complaint
            // about it would hide the real cause.
            throw readFailure() ?? error
        }
        if record == nil, let failure = readFailure() { throw failure }
        return record
    }

    /// Where the reader is between two records.
    private enum State {
        /// Nothing read yet: the first value tells how the input is laid out.
        case start
        /// In an array of records, before its first element or after an element: the
        /// top-level array (`entity` is `nil`) or one entity's array in a wrapper.
        case array(entity: String?, isFirst: Bool)
        /// In a wrapper object, after an entity's array.
        case wrapper
        /// Between NDJSON values; `isFirst` until one has been read.
        case lines(isFirst: Bool)
        /// After the input's one JSON value, where only whitespace may follow.
        case documentEnd
        /// After the last record, or after an error.
        case finished
    }

    private mutating func readRecord() throws(JSONSyntaxError) -> JSONRecord? {
        while true {
            switch state {
            case .start:
                parser.skipByteOrderMark()
                parser.skipWhitespace()
                if let record = try readFirstValue() { return record }

            case .array(let entity, let isFirst):
                // The separator after a record is read with the next one, so that a record is
                // yielded as soon as it ends, even from a pipe that has not sent more yet.
                let hasElement = try isFirst
                    ? !parser.closeContainerIfEmpty(UInt8(ascii: "]"))
                    : parser.continueContainer(closedBy: UInt8(ascii: "]"))
                guard hasElement else {
                    state = entity == nil ? .documentEnd : .wrapper
                    continue
                }
                state = .array(entity: entity, isFirst: false)
                return JSONRecord(entity: entity, value: try parser.parseValue())

            case .wrapper:
                guard try parser.continueContainer(closedBy: UInt8(ascii: "}")) else {
                    state = .documentEnd
                    continue
                }
                try openEntityArray()

            case .lines(let isFirst):
                let previousLine = parser.currentLocation.line
                parser.skipWhitespace()
                guard parser.peek() != nil else {
                    state = .finished
                    return nil
                }
                if !isFirst, parser.currentLocation.line == previousLine {
                    throw parser.error(
                        "unexpected \(parser.describeCurrent()) after the end of the JSON value "
                            + "(each NDJSON value starts on a line of its own)")
                }
                state = .lines(isFirst: false)
                return JSONRecord(entity: nil, value: try parser.parseValue())

            case .documentEnd:
                parser.skipWhitespace()
                if parser.peek() != nil {
                    throw parser.error("unexpected \(parser.describeCurrent()) after the end of the JSON value")
                }
                state = .finished

            case .finished:
                return nil
            }
        }
    }

    // MARK: - Layouts

    /// Reads the start of the input, which tells how the records are laid out: returns the
    /// first record when it is a single value, or `nil` when the records are in an array that
    /// has just been opened.
    private mutating func readFirstValue() throws(JSONSyntaxError) -> JSONRecord? {
        if format == .ndjson {
            state = .lines(isFirst: true)
            return nil
        }
        // After a single value, a second one on a later line makes the input NDJSON, unless the
        // caller said it is one JSON document.
        let afterSingleValue: State = format == .json ? .documentEnd : .lines(isFirst: false)
        switch parser.peek() {
        case nil where format == .automatic:
            state = .finished
            isEmptyInput = true
            return nil

        case UInt8(ascii: "["):
            try parser.openContainer()
            state = .array(entity: nil, isFirst: true)
            return nil

        case UInt8(ascii: "{"):
            let location = parser.currentLocation
            try parser.openContainer()
            if parser.closeContainerIfEmpty(UInt8(ascii: "}")) {
                state = afterSingleValue
                return JSONRecord(entity: nil, value: JSONValue(.object([]), location: location))
            }
            let (key, keyLocation) = try parser.parseKey()
            if isEntityKey(key), parser.peek() == UInt8(ascii: "[") {
                wrapperFirstKey = key
                try parser.openContainer()
                state = .array(entity: key, isFirst: true)
                return nil
            }
            // One record after all: the rest of the object is read as JSONReader reads objects.
            let members = try parser.parseMembers(firstKey: key, keyLocation: keyLocation)
            state = afterSingleValue
            return JSONRecord(entity: nil, value: JSONValue(.object(members), location: location))

        default:
            // A scalar, or no value at all, which the parser reports.
            let value = try parser.parseValue()
            state = afterSingleValue
            return JSONRecord(entity: nil, value: value)
        }
    }

    /// Reads a wrapper's key after its first one, and opens that entity's array.
    private mutating func openEntityArray() throws(JSONSyntaxError) {
        let (key, keyLocation) = try parser.parseKey()
        guard isEntityKey(key) else {
            throw JSONSyntaxError(
                message: "'\(key)' names no entity, but the object lists records by entity "
                    + "(its first key, '\(wrapperFirstKey)', names one and holds an array)",
                location: keyLocation)
        }
        guard parser.peek() == UInt8(ascii: "[") else {
            throw parser.error("unexpected \(parser.describeCurrent()), expected '[' opening the array of '\(key)' records")
        }
        try parser.openContainer()
        state = .array(entity: key, isFirst: true)
    }

    /// The input's read error, if reading failed, located where the parser stopped; reported
    /// once.
    private func readFailure() -> JSONSyntaxError? {
        input.takeFailure().map {
            JSONSyntaxError(message: "cannot read the input: \($0)", location: parser.currentLocation)
        }
    }
}

// MARK: - Input

extension JSONRecordReader {
    /// The bytes to read, a chunk at a time: from a file descriptor, or from data in memory.
    final class Input {
        private enum Source {
            case file(FileHandle)
            case data(Data)
        }

        private let source: Source
        /// How many bytes to read at a time.
        private let chunkSize: Int
        /// Where the next chunk of data in memory starts.
        private var position: Data.Index
        /// Where a file's chunk is read to, allocated once.
        private var scratch: [UInt8] = []
        /// Why reading failed (the system's words), until reported.
        private var failure: String?
        /// The bytes handed out so far.
        private(set) var bytesRead = 0

        /// The bytes of `fileHandle` from its current offset on.
        init(fileHandle: FileHandle, chunkSize: Int = JSONRecordReader.chunkSize) {
            source = .file(fileHandle)
            self.chunkSize = chunkSize
            position = 0
        }

        /// The bytes of `data`.
        init(data: Data, chunkSize: Int = JSONRecordReader.chunkSize) {
            source = .data(data)
            self.chunkSize = chunkSize
            position = data.startIndex
        }

        /// Appends up to one chunk to `bytes`; nothing at the end of the input, or once
        /// reading has failed.
        func appendChunk(to bytes: inout [UInt8]) {
            switch source {
            case .data(let data):
                let end = data.index(position, offsetBy: chunkSize, limitedBy: data.endIndex) ?? data.endIndex
                bytes.append(contentsOf: data[position..<end])
                bytesRead += end - position
                position = end
            case .file(let handle):
                guard failure == nil else { return }
                appendChunk(of: handle.fileDescriptor, to: &bytes)
            }
        }

        /// Why reading failed, if it did; a failure is reported once.
        func takeFailure() -> String? {
            defer { failure = nil }
            return failure
        }

        /// Reads with `read(2)`: unlike `FileHandle`'s reads, it neither allocates a `Data` per
        /// chunk nor waits for a pipe to fill a whole chunk.
        private func appendChunk(of descriptor: Int32, to bytes: inout [UInt8]) {
            if scratch.isEmpty { scratch = [UInt8](repeating: 0, count: chunkSize) }
            var (count, error): (Int, Int32)
            repeat {
                (count, error) = scratch.withUnsafeMutableBytes { buffer in
                    let count = read(descriptor, buffer.baseAddress, buffer.count)
                    return (count, count < 0 ? errno : 0)
                }
            } while count < 0 && error == EINTR
            guard count >= 0 else {
                failure = String(cString: strerror(error))
                return
            }
            bytes.append(contentsOf: scratch[..<count])
            bytesRead += count
        }
    }
}
