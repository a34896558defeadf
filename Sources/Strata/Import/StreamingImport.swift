import Foundation

/// Imports files of records into a store as a stream, in batches, all in one transaction:
/// what `strata import` does, for a Swift program.
///
/// Records are read on a thread of their own a few thousand ahead of the import, looked up and
/// saved ``batchSize`` at a time, and the context is emptied after each batch, so memory stays
/// bounded whatever the file's size. Every batch is written inside one transaction of the
/// store's connection: an error (a record that does not parse or fit, a refusal, an error
/// thrown by ``progress``) rolls the whole import back and leaves the store as it was.
///
/// ```swift
/// let store = try PersistentStore.open(at: "Library.sqlite", model: model)
/// defer { store.close() }
/// var books = StreamingImport(entity: "Book")
/// books.batchSize = 5_000
/// books.progress = { progress in print("\(progress.recordsImported) records") }
/// let report = try books.run([.file(URL(fileURLWithPath: "books.ndjson"))], into: store)
/// print(report)   // Book: 1200 created, 30 updated
/// ```
///
/// Each record finds its object by its entity's identity (see ``ImportIdentity``) and creates
/// one when none matches, as ``ImportSession`` does. Records that make invalid objects are
/// deleted and listed in the report's ``ImportReport/invalid``, and the others are saved.
/// Links that name no object and keys that no property reads refuse the import
/// (``StreamingImportError/refused(_:unresolvedLinks:unknownKeys:)``) unless
/// ``allowsUnresolvedLinks`` or ``allowsUnknownKeys`` accepts them.
public struct StreamingImport {
    /// How the records of an input are written.
    public enum Format: String, Sendable, CaseIterable {
        /// An array of records, one record, or a whole store's records as an object of arrays
        /// by entity (`{"books": […], "authors": […]}`, the first key deciding).
        case json
        /// One record per line (`.ndjson`, `.jsonl`).
        case ndjson
        /// A header row of keys, then one record per row (RFC 4180), as ``CSVRecords`` reads it.
        case csv

        /// CSV for a `.csv` name; `nil` for others, whose JSON or NDJSON the contents tell.
        public init?(extensionOf name: String) {
            guard URL(fileURLWithPath: name).pathExtension.lowercased() == "csv" else { return nil }
            self = .csv
        }
    }

    /// Where an import's records come from: a file or an open handle, and the name errors
    /// and progress give it.
    public struct Source: Sendable {
        enum Input: Sendable {
            case file(URL)
            case handle(FileHandle)
        }

        let input: Input
        /// The name of the input in errors and progress: the file's path as given, or the
        /// name given with a handle.
        public let name: String

        /// The file at `url`, read as the records are imported.
        public static func file(_ url: URL) -> Source {
            Source(input: .file(url), name: url.relativePath)
        }

        /// `handle` from its current offset to its end (a pipe, say); the handle is not closed.
        public static func fileHandle(_ handle: FileHandle, name: String) -> Source {
            Source(input: .handle(handle), name: name)
        }

        /// The process's standard input, named `standard input`.
        public static var standardInput: Source {
            .fileHandle(.standardInput, name: "standard input")
        }

        /// The size of a file in bytes, for progress; `nil` for a handle or an empty file.
        var size: Int? {
            guard case .file(let url) = input else { return nil }
            let size = try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int
            return size.flatMap { $0 > 0 ? $0 : nil }
        }

        /// Whether an empty input is a list of no records: an NDJSON file by its name. Other
        /// inputs must hold at least a JSON value (`[]` for no records).
        var emptyMeansNoRecords: Bool {
            guard case .file(let url) = input else { return false }
            return ["ndjson", "jsonl"].contains(url.pathExtension.lowercased())
        }
    }

    /// Which objects the records did not hold are deleted after the import.
    public enum Pruning: Sendable {
        /// None.
        case none
        /// Those of every entity the import touched, nested records' entities included.
        case all
        /// Those of the imported entity that satisfy the predicate: a page of a paginated payload.
        case entity(where: ObjectPredicate)
    }

    /// How far an import has come, as ``progress`` hears it after each saved batch.
    public struct Progress: Sendable {
        /// The name of the input being read (``Source/name``).
        public var source: String
        /// The input's size in bytes, when it is a file of known size.
        public var sourceSize: Int?
        /// How many bytes of the input the records imported so far came from.
        public var bytesRead: Int
        /// How many records of all the inputs have been imported so far.
        public var recordsImported: Int
    }

    /// The entity of the records of a top-level array, NDJSON, CSV or a single record; a
    /// wrapper object's keys name their own.
    public var entity: String
    /// How the inputs are written; `nil` tells each by its name (CSV for `.csv`) and contents
    /// (JSON or NDJSON).
    public var format: Format?
    /// Identity overrides by entity name; others follow ``ImportIdentity/conventional(for:in:)``.
    public var identities: [String: ImportIdentity]
    /// Records per batch: looked up together and saved together. At least 1.
    public var batchSize: Int
    /// Which objects the records did not hold are deleted once every record is in.
    public var pruning = Pruning.none
    /// Whether links that name no object are left unset rather than refusing the import.
    public var allowsUnresolvedLinks = false
    /// Whether keys that no property reads are ignored rather than refusing the import.
    public var allowsUnknownKeys = false
    /// Whether the import is rolled back once done, after making its report.
    public var isDryRun = false
    /// Called after each saved batch, on the caller's thread. An error it throws (a user's
    /// interrupt, say) stops the import and rolls it back, and ``run(_:into:)`` throws it.
    public var progress: ((Progress) throws -> Void)?

    /// An import of `entity`'s records; the other settings are properties.
    public init(entity: String, format: Format? = nil, identities: [String: ImportIdentity] = [:], batchSize: Int = 1000) {
        self.entity = entity
        self.format = format
        self.identities = identities
        self.batchSize = batchSize
    }

    /// Imports the records of `sources`, one after another, into `store` in one transaction.
    ///
    /// - Parameters:
    ///   - sources: The inputs, read in order; a record of a later one may link to an object
    ///     of an earlier one, and the other way round.
    ///   - store: A store open for writing. The import uses a context of its own and the
    ///     store's connection for its whole length.
    /// - Returns: What the import did, by entity, with the invalid records it deleted, and the
    ///   links and keys it accepted.
    /// - Throws: ``StoreError/unknownEntity(path:name:known:)`` when the model lacks ``entity``;
    ///   ``StreamingImportError`` for an input that does not parse, is empty, or holds records
    ///   that do not fit, and for a refused import; the store's errors; the file system's when
    ///   a file cannot be opened; whatever ``progress`` throws. The store is then as it was.
    public func run(_ sources: [Source], into store: PersistentStore) throws -> ImportReport {
        precondition(batchSize >= 1, "a batch holds at least one record")
        guard store.model.entity(named: entity) != nil else {
            throw StoreError.unknownEntity(path: store.path, name: entity, known: store.model.entities.map(\.name).sorted())
        }
        let context = ObjectContext(store: store, name: "import")
        var result = ImportReport()
        do {
            try context.performAndWait {
                try store.withConnection {
                    try store.database.inOuterTransaction {
                        result = try importAll(sources, store: store, context: context)
                        if isDryRun { throw RollBack() }
                    }
                }
            }
        } catch is RollBack {
            return result
        }
        return result
    }

    /// Thrown inside the transaction to roll a dry run back.
    private struct RollBack: Error {}

    /// The import itself, inside the transaction, on the context's queue.
    private func importAll(_ sources: [Source], store: PersistentStore, context: ObjectContext) throws -> ImportReport {
        let session = ImportSession(context: context, identities: identities)
        // The whole run is one transaction: rows written as they come roll back with it.
        session.writesRowsDirectly = true
        var imported = 0
        for source in sources {
            try importSource(source, model: store.model, session: session, imported: &imported)
        }
        try session.resolvePendingLinks()
        // Before pruning, which would take the store's objects for ones the records left out.
        if session.report.readsNoKey { throw StreamingImportError.noKeyFits(session.report) }
        let unresolved = !allowsUnresolvedLinks && !session.report.unresolvedLinks.isEmpty
        let unknownKeys = !allowsUnknownKeys && !session.report.ignoredKeys.isEmpty
        if unresolved || unknownKeys {
            throw StreamingImportError.refused(session.report, unresolvedLinks: unresolved, unknownKeys: unknownKeys)
        }
        switch pruning {
        case .none: break
        case .all: try session.removeDeprecated(session.importedEntityNames)
        case .entity(let predicate): try session.removeDeprecated([entity], where: predicate)
        }
        try session.saveAndReset()
        return session.report
    }

    private func importSource(_ source: Source, model: ObjectModel, session: ImportSession, imported: inout Int) throws {
        let format = format ?? Format(extensionOf: source.name)
        let records = try readAhead(source, format: format, model: model)
        defer { records.cancel() }
        let size = source.size
        var batch: [JSONValue] = []
        var batchEntity = entity
        var count = 0
        // A whole-store file's records come in runs under one wrapper key (`"persons": [...]`):
        // the key is matched against the entities' names once per run, not once per record.
        var lastKey: (key: String, entity: String)?
        func flush() throws {
            guard !batch.isEmpty else { return }
            do {
                try session.import(records: batch, into: batchEntity, firstIndex: count - batch.count)
            } catch let error as ImportError {
                throw StreamingImportError.badInput(source: source.name, cause: error)
            }
            try session.saveAndReset()
            imported += batch.count
            batch = []
            try progress?(Progress(source: source.name, sourceSize: size, bytesRead: records.bytesRead, recordsImported: imported))
        }
        do {
            while let record = try records.next() {
                let recordEntity: String
                if let key = record.entity {
                    if lastKey?.key != key { lastKey = (key, session.entityName(forKey: key) ?? entity) }
                    recordEntity = lastKey!.entity
                } else {
                    recordEntity = entity
                }
                if recordEntity != batchEntity || batch.count >= batchSize {
                    try flush()
                    batchEntity = recordEntity
                }
                batch.append(record.value)
                count += 1
            }
        } catch let error as JSONSyntaxError {
            throw StreamingImportError.badInput(source: source.name, cause: error)
        } catch let error as CSVSyntaxError {
            throw StreamingImportError.badInput(source: source.name, cause: error)
        } catch let error as ImportError {
            throw StreamingImportError.badInput(source: source.name, cause: error)
        }
        // An empty file is more often a failed download or a wrong name than a list of no
        // records, and with pruning it would delete what the records should have kept.
        if records.isEmptyInput, format == .csv || !source.emptyMeansNoRecords {
            throw StreamingImportError.emptyInput(source: source.name, format: format, isFile: source.isFile)
        }
        try flush()
    }

    /// A reader of `source`'s records, started on its own thread.
    private func readAhead(_ source: Source, format: Format?, model: ObjectModel) throws -> RecordReadAhead {
        // Asked on the reading thread: the model, not the session, answers.
        let isEntityKey = { (key: String) in model.entityName(forImportKey: key) != nil }
        switch format {
        case .csv:
            let reader: CSVReader
            switch source.input {
            case .file(let url): reader = try CSVReader(path: url.path)
            case .handle(let handle): reader = CSVReader(fileHandle: handle)
            }
            return RecordReadAhead(CSVRecordSource(reader, entity: entity, model: model))
        case .json, .ndjson, nil:
            let layout: JSONRecordReader.Format = format == .json ? .json : format == .ndjson ? .ndjson : .automatic
            switch source.input {
            case .file(let url): return RecordReadAhead(try JSONRecordReader(path: url.path, format: layout, isEntityKey: isEntityKey))
            case .handle(let handle): return RecordReadAhead(JSONRecordReader(fileHandle: handle, format: layout, isEntityKey: isEntityKey))
            }
        }
    }
}

extension StreamingImport.Source {
    /// Whether the source is a file rather than a handle.
    var isFile: Bool {
        if case .file = input { return true }
        return false
    }
}
