import ArgumentParser
import Foundation
import Strata

/// One `strata import`: reads the files' records as a stream and imports them in batches,
/// all in one transaction of the store's connection.
struct ImportRun {
    let store: PersistentStore
    let entity: String
    let files: [String]
    /// How the files are written: by their extension when `nil`.
    var format: ImportFormat? = nil
    let identities: [String: ImportIdentity]
    let batchSize: Int
    let prune: Pruning

    /// Which objects the records did not hold are deleted after the import.
    enum Pruning {
        case none
        /// Those of every entity the import touched.
        case all
        /// Those of the imported entity that satisfy the predicate: a page of a paginated payload.
        case entity(where: ObjectPredicate)
    }
    let dryRun: Bool
    /// Whether links naming no object, and keys no property reads, are accepted rather than
    /// refusing the import.
    var allowsUnresolved = false
    var allowsUnknownKeys = false

    private struct RollBack: Error {}

    /// The import was rolled back for links that named no object or keys that no property
    /// reads, which `report` lists; the store is as it was.
    struct Refusal: Error {
        let report: ImportReport
        let unresolved: Bool
        let unknownKeys: Bool
    }

    func execute() throws -> ImportReport {
        let context = ObjectContext(store: store, name: "import")
        var result = ImportReport()
        do {
            try context.performAndWait {
                try store.withConnection {
                    try store.database.inOuterTransaction {
                        let session = ImportSession(context: context, identities: identities)
                        // The whole run is one transaction: rows written as they come roll back with it.
                        session.writesRowsDirectly = true
                        var progress = ImportProgress()
                        for file in files {
                            try importFile(file, session: session, progress: &progress)
                        }
                        try session.resolvePendingLinks()
                        // Before pruning, which would take the store's objects for ones the records left out.
                        if session.report.readsNoKey { throw CLIError(Self.noKeyFits(session.report), status: .dataError) }
                        let unresolved = !allowsUnresolved && !session.report.unresolvedLinks.isEmpty
                        let unknownKeys = !allowsUnknownKeys && !session.report.ignoredKeys.isEmpty
                        if unresolved || unknownKeys { throw Refusal(report: session.report, unresolved: unresolved, unknownKeys: unknownKeys) }
                        switch prune {
                        case .none: break
                        case .all: try session.removeDeprecated(session.importedEntityNames)
                        case .entity(let predicate): try session.removeDeprecated([entity], where: predicate)
                        }
                        try session.saveAndReset()
                        progress.finish()
                        result = session.report
                        if dryRun { throw RollBack() }
                    }
                }
            }
        } catch is RollBack {
            return result
        }
        return result
    }

    /// `Book reads none of the records' keys (born, name); nothing was imported: are they records
    /// of another entity?`, one entity after another for a wrapper object's.
    static func noKeyFits(_ report: ImportReport) -> String {
        let byEntity = Dictionary(grouping: report.ignoredKeys.sorted()) { String($0.prefix { $0 != "." }) }
        let entities = byEntity.keys.sorted().map { entity in
            "\(entity) reads none of the records' keys (\(byEntity[entity]!.map { String($0.dropFirst(entity.count + 1)) }.joined(separator: ", ")))"
        }
        return entities.joined(separator: "; ") + "; nothing was imported: are they records of another entity?"
    }

    /// Whether an empty `file` is a list of no records: an NDJSON file by its name. Other
    /// files, and standard input, must hold at least a JSON value (`[]` for no records).
    static func emptyMeansNoRecords(_ file: String) -> Bool {
        ["ndjson", "jsonl"].contains(URL(fileURLWithPath: file).pathExtension.lowercased())
    }

    /// Fails, before the store is opened, for a file that is not there or not a file, naming it.
    static func checkReadable(_ file: String) throws {
        guard file != "-" else { return }
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: file, isDirectory: &isFolder) else {
            throw CLIError("\(file): no such file")
        }
        if isFolder.boolValue { throw CLIError("\(file): is a folder, not a JSON file") }
    }

    private func importFile(_ file: String, session: ImportSession, progress: inout ImportProgress) throws {
        // Asked on the reading thread: the model, not the session, answers.
        let model = store.model
        let isEntityKey = { (key: String) in model.entityName(forImportKey: key) != nil }
        let format = format ?? ImportFormat(extensionOf: file)
        let records: RecordReadAhead
        switch format {
        case .csv:
            let reader = file == "-" ? CSVReader(fileHandle: .standardInput) : try CSVReader(path: file)
            records = RecordReadAhead(CSVRecordSource(reader, entity: entity, model: model))
        case .json, .ndjson, nil:
            let layout: JSONRecordReader.Format = format == .json ? .json : format == .ndjson ? .ndjson : .automatic
            records = RecordReadAhead(
                file == "-"
                    ? JSONRecordReader(fileHandle: .standardInput, format: layout, isEntityKey: isEntityKey)
                    : try JSONRecordReader(path: file, format: layout, isEntityKey: isEntityKey))
        }
        defer { records.cancel() }
        progress.start(file)
        var batch: [JSONValue] = []
        var batchEntity = entity
        var count = 0
        func flush() throws {
            guard !batch.isEmpty else { return }
            do {
                try session.import(records: batch, into: batchEntity, firstIndex: count - batch.count)
            } catch let error as ImportError {
                throw CLIError("\(file == "-" ? "standard input" : file): \(error)", status: .dataError)
            }
            try session.saveAndReset()
            try CommandInterruption.check()
            progress.advance(by: batch.count, bytesRead: records.bytesRead)
            batch = []
        }
        do {
            while let record = try records.next() {
                let recordEntity = record.entity.flatMap(session.entityName(forKey:)) ?? entity
                if recordEntity != batchEntity || batch.count >= batchSize {
                    try flush()
                    batchEntity = recordEntity
                }
                batch.append(record.value)
                count += 1
            }
        } catch let error as JSONSyntaxError {
            throw CLIError("\(file == "-" ? "standard input" : file): \(error)", status: .dataError)
        } catch let error as CSVSyntaxError {
            throw CLIError("\(file == "-" ? "standard input" : file): \(error)", status: .dataError)
        } catch let error as ImportError {
            throw CLIError("\(file == "-" ? "standard input" : file): \(error)", status: .dataError)
        }
        // An empty file is more often a failed download or a wrong name than a list of no
        // records, and with --prune-where it would delete what the records should have kept.
        if records.isEmptyInput, format == .csv {
            throw CLIError("\(file == "-" ? "standard input" : file): the CSV input is empty; expected a header row naming the keys", status: .dataError)
        }
        if records.isEmptyInput, !Self.emptyMeansNoRecords(file) {
            throw CLIError(
                file == "-"
                    ? "standard input: the input is empty; expected JSON records ([] for none)"
                    : "\(file): the file is empty; expected JSON records ([] for none; an empty .ndjson or .jsonl file imports nothing)",
                status: .dataError)
        }
        try flush()
    }
}

/// How the records of an import's file are written.
enum ImportFormat: String, CaseIterable, ExpressibleByArgument {
    /// An array of records, a wrapper object of arrays by entity, or one record.
    case json
    /// One record per line.
    case ndjson
    /// A header row of keys, then one record per row.
    case csv

    /// CSV for a `.csv` file; `nil` for the others, whose JSON or NDJSON the contents tell.
    init?(extensionOf file: String) {
        guard URL(fileURLWithPath: file).pathExtension.lowercased() == "csv" else { return nil }
        self = .csv
    }
}

/// How an import goes, on standard error when it is a terminal: the records imported, the rate,
/// and for a file of known size how far it has come and about how long is left.
struct ImportProgress {
    private let isShown = isatty(STDERR_FILENO) == 1
    private var count = 0
    private var lastShown = Date.distantPast
    private let started = Date()
    /// The file being read and its size, when known (not for standard input or a pipe).
    private var file: (name: String, size: Int)?

    /// Starts reading `file`: a file of known size shows how far the import has come.
    mutating func start(_ file: String) {
        let size = file == "-" ? nil : (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int)
        self.file = size.flatMap { $0 > 0 ? (file, $0) : nil }
    }

    mutating func advance(by records: Int, bytesRead: Int) {
        count += records
        guard Date().timeIntervalSince(lastShown) > 0.2 else { return }
        lastShown = Date()
        let line = line(bytesRead: bytesRead)
        StatusLine.standardError.show { line }
    }

    func finish() {
        guard isShown, count > 0 else { return }
        let summary = "imported \(count.formatted()) records in \(Self.duration(Date().timeIntervalSince(started)))\n"
        StatusLine.standardError.writing(to: .standardError) { FileHandle.standardError.write(Data(summary.utf8)) }
    }

    /// `imported 120,000 records, 45% of 51 MB, 38,000 records/s, about 12 s left`.
    func line(bytesRead: Int, now: Date = Date()) -> String {
        let elapsed = max(now.timeIntervalSince(started), 0.001)
        var parts = ["imported \(count.formatted()) records"]
        if let file, bytesRead > 0 {
            let fraction = min(1, Double(bytesRead) / Double(file.size))
            parts.append("\(Int(fraction * 100))% of \(ByteCountFormatter.string(fromByteCount: Int64(file.size), countStyle: .file))")
            parts.append("\(Int(Double(count) / elapsed).formatted()) records/s")
            if fraction > 0.01, fraction < 1 { parts.append("about \(Self.duration(elapsed / fraction - elapsed)) left") }
        } else {
            parts.append("\(Int(Double(count) / elapsed).formatted()) records/s")
        }
        return parts.joined(separator: ", ")
    }

    private static func duration(_ seconds: Double) -> String {
        seconds < 60 ? "\(Int(seconds.rounded(.up))) s" : "\(Int(seconds / 60)) min \(Int(seconds.truncatingRemainder(dividingBy: 60))) s"
    }
}
