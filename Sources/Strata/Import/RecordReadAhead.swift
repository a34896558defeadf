import Foundation

/// Reads records on a thread of its own, a few chunks ahead of the import that takes them, so
/// that parsing the JSON and writing the store use two cores rather than taking turns on one.
/// Records, the end of the input and a syntax error reach ``next()`` in the order the reader
/// met them.
final class RecordReadAhead: @unchecked Sendable {
    /// How many records one hand-over carries.
    static let chunkSize = 1000
    /// How many chunks the reader may get ahead: a bound on the memory records wait in.
    static let depth = 2

    // Guarded by `condition`.
    private let condition = NSCondition()
    private var chunks: [(records: [JSONRecord], bytesRead: Int)] = []
    private var end: Result<Bool, Error>?
    private var isCancelled = false

    // The taker's own.
    private var current: [JSONRecord] = []
    private var position = 0
    /// How many bytes of the input the records taken so far came from (to the end of their chunk).
    private(set) var bytesRead = 0

    /// Starts reading `reader` at once, on a thread that runs until the input ends or
    /// ``cancel()`` is called: call it when the import stops early.
    init(_ reader: some RecordSource) {
        let box = ReaderBox(reader)
        Thread.detachNewThread { [self] in self.read(box) }
    }

    /// The next record, or `nil` at the end of the input. Throws the reader's error once the
    /// records before it are taken.
    func next() throws -> JSONRecord? {
        if position < current.count {
            defer { position += 1 }
            return current[position]
        }
        condition.lock()
        while chunks.isEmpty, end == nil { condition.wait() }
        if chunks.isEmpty {
            let end = end
            condition.unlock()
            _ = try end?.get()
            return nil
        }
        (current, bytesRead) = chunks.removeFirst()
        condition.broadcast()
        condition.unlock()
        position = 1
        return current[0]
    }

    /// Whether the input held nothing but whitespace; known once ``next()`` returned `nil`.
    var isEmptyInput: Bool {
        condition.lock()
        defer { condition.unlock() }
        return (try? end?.get()) ?? false
    }

    /// Stops the reader at its next chunk: for an import that ends before the input does.
    func cancel() {
        condition.lock()
        isCancelled = true
        condition.broadcast()
        condition.unlock()
    }

    private func read(_ box: ReaderBox) {
        var chunk: [JSONRecord] = []
        chunk.reserveCapacity(Self.chunkSize)
        let outcome: Result<Bool, Error>
        do {
            while let record = try box.reader.next() {
                chunk.append(record)
                if chunk.count == Self.chunkSize {
                    guard hand(chunk, bytesRead: box.reader.bytesRead) else { return }
                    chunk.removeAll(keepingCapacity: true)
                }
            }
            outcome = .success(box.reader.isEmptyInput)
        } catch {
            outcome = .failure(error)
        }
        if !chunk.isEmpty, !hand(chunk, bytesRead: box.reader.bytesRead) { return }
        condition.lock()
        end = outcome
        condition.broadcast()
        condition.unlock()
    }

    /// Hands a chunk over, waiting while the taker is `depth` chunks behind; `false` once cancelled.
    private func hand(_ chunk: [JSONRecord], bytesRead: Int) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while chunks.count >= Self.depth, !isCancelled { condition.wait() }
        guard !isCancelled else { return false }
        chunks.append((chunk, bytesRead))
        condition.broadcast()
        return true
    }

    /// The reader, moved to the reading thread once and used only there.
    private final class ReaderBox: @unchecked Sendable {
        var reader: any RecordSource
        init(_ reader: any RecordSource) { self.reader = reader }
    }
}

/// Where an import's records come from: JSON (``JSONRecordReader``) or CSV (``CSVRecordSource``).
protocol RecordSource {
    /// The next record, or `nil` at the end of the input.
    mutating func next() throws -> JSONRecord?
    /// How many bytes of the input have been read so far.
    var bytesRead: Int { get }
    /// Whether the input held nothing at all; known once ``next()`` returned `nil`.
    var isEmptyInput: Bool { get }
}

extension JSONRecordReader: RecordSource {}

/// The records of a CSV file with a header row, as ``CSVRecords`` makes them.
struct CSVRecordSource: RecordSource {
    private var reader: CSVReader
    private var records: CSVRecords?
    private let entity: String
    private let model: ObjectModel
    private(set) var isEmptyInput = false

    init(_ reader: CSVReader, entity: String, model: ObjectModel) {
        self.reader = reader
        self.entity = entity
        self.model = model
    }

    var bytesRead: Int { reader.bytesRead }

    mutating func next() throws -> JSONRecord? {
        if records == nil {
            guard let header = try reader.nextRow() else {
                isEmptyInput = true
                return nil
            }
            records = try CSVRecords(header: header, entity: entity, model: model)
        }
        while let row = try reader.nextRow() {
            if let record = try records!.record(row) { return JSONRecord(entity: nil, value: record) }
        }
        return nil
    }
}
