import Foundation
import Strata

/// One `strata import`: reads the files' records as a stream and imports them in batches,
/// all in one transaction of the store's connection.
struct ImportRun {
    let store: PersistentStore
    let entity: String
    let files: [String]
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

    private struct RollBack: Error {}

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
                        var progress = Progress()
                        for file in files {
                            try importFile(file, session: session, progress: &progress)
                        }
                        try session.resolvePendingLinks()
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

    private func importFile(_ file: String, session: ImportSession, progress: inout Progress) throws {
        // Asked on the reading thread: the model, not the session, answers.
        let model = store.model
        let isEntityKey = { (key: String) in model.entityName(forImportKey: key) != nil }
        let records = RecordReadAhead(
            file == "-"
                ? JSONRecordReader(fileHandle: .standardInput, isEntityKey: isEntityKey)
                : try JSONRecordReader(path: file, isEntityKey: isEntityKey))
        defer { records.cancel() }
        var batch: [JSONValue] = []
        var batchEntity = entity
        var count = 0
        func flush() throws {
            guard !batch.isEmpty else { return }
            do {
                try session.import(records: batch, into: batchEntity, firstIndex: count - batch.count)
            } catch let error as ImportError {
                throw CLIError("\(file == "-" ? "standard input" : file): \(error.message)", status: .dataError)
            }
            try session.saveAndReset()
            progress.advance(by: batch.count)
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
        }
        // An empty file is more often a failed download or a wrong name than a list of no
        // records, and with --prune-where it would delete what the records should have kept.
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

/// A count of imported records on standard error, on a terminal only.
private struct Progress {
    private let isShown = isatty(2) == 1
    private var count = 0
    private var lastShown = Date.distantPast

    mutating func advance(by records: Int) {
        count += records
        guard isShown, Date().timeIntervalSince(lastShown) > 0.2 else { return }
        lastShown = Date()
        FileHandle.standardError.write(Data("\rimported \(count) records".utf8))
    }

    func finish() {
        if isShown, count > 0 { FileHandle.standardError.write(Data("\rimported \(count) records\n".utf8)) }
    }
}
