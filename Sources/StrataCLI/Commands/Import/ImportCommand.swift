import ArgumentParser
import Foundation
import Strata

/// `strata import`: JSON, NDJSON or CSV records into a store, found or created by identity.
struct ImportCommand: AsyncParsableCommand, ReadsModelOrStore {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import JSON, NDJSON or CSV records into a store, updating the objects they identify.",
        discussion: """
            FILE holds an array of records, one record, NDJSON (one record per line), or an \
            object whose keys name entities ({"books": [...], "authors": [...]}); each record \
            of a top-level array, NDJSON or a single record is an object of ENTITY. Without \
            FILE, or with -, records are read from standard input. Files are read as a stream.

            A .csv file (or --format csv) holds a header row naming the keys, then a record \
            per row, as strata export --format csv and sqlite3 -csv -header write them (RFC \
            4180 quoting, CRLF or LF): an empty field is null, a quoted empty field (\"\") the \
            empty string; values convert by the attribute's type as JSON strings do (ISO 8601 \
            dates, base64 binary data, true/false); <name>_id holds a to-one's identity value, \
            <name>_ids a to-many's separated by spaces, a dotted key a nested value, and a \
            Transformable attribute's field its JSON. Errors name the line and column.

            Each record finds its object by the entity's identity (see the README: \
            relatedByAttribute, hyper/sync.isPrimaryKey, a one-attribute uniqueness constraint, \
            remoteID fed by id, <entity>ID, id; or --identity) and creates one when none \
            matches. A missing key leaves a property as it is; null clears it. Nested objects \
            import into the relationship's destination; identity values (and *_id / *_ids keys) \
            link existing objects.

            The whole import is one transaction: an error leaves the store as it was, and \
            --dry-run rolls back after printing the report. Records are saved in batches \
            within that transaction, so memory stays bounded whatever the file's size. On a \
            terminal, standard error shows how far the import has come (records, the share of \
            the file, the rate, the time left); Ctrl-C stops it after the batch it is writing \
            and rolls everything back, saying so (exit status 130).

            A missing store is an error unless --create is given (with --model), so that a \
            mistyped --store is not taken for a new store.

            Records none of whose keys fits a property of their entity (records fed to the wrong \
            entity) are refused before anything is saved, naming the entity and the keys \
            (exit status 3).

            Links that name no object (identity values, *_id keys, @id references) and keys \
            that no property reads (a misspelt key) refuse the import: it is rolled back, \
            nothing is saved, and each one is listed on standard error with the record that \
            holds it (exit status 3). --allow-unresolved saves the import with those links \
            left unset, --allow-unknown-keys with those keys ignored; what they accept is \
            still listed on standard error.

            Records that make invalid objects (the model's validation, or strata.invalidIf) \
            are deleted by the import, listed on standard error, and the other records ARE \
            saved: the import completes with problems, exit status 4, or 0 with \
            --allow-invalid. Exit status 3 (or 1, 2, 130) always means the store was left as \
            it was.

            """)

    @OptionGroup var options: StoreOptions

    @Argument(help: "The entity of the records (a wrapper object's keys name their own).", completion: EntityCompletion.kind)
    var entity: String

    @Argument(help: "JSON, NDJSON or CSV files; - or none reads standard input.", completion: .file())
    var files: [String] = []

    @Option(help: ArgumentHelp("How the input is written: json, ndjson or csv; by default CSV for a .csv file, else JSON or NDJSON as the contents show.", valueName: "format"))
    var format: StreamingImport.Format?

    @Flag(help: "After the import, delete the objects of every imported entity (nested ones too) that the records did not hold.")
    var prune = false

    @Option(
        name: .customLong("prune-where"), parsing: .unconditional,
        help: ArgumentHelp("Prune only ENTITY's objects that satisfy this predicate (a page of a paginated payload).", valueName: "predicate"),
        transform: PredicateArgument.predicate)
    var pruneWhere: ObjectPredicate?

    @Option(help: ArgumentHelp("Find the objects of ENTITY by this attribute instead of the model's conventions.", valueName: "attribute"))
    var identity: String?

    @Flag(help: "Import, print the report, and roll everything back.")
    var dryRun = false

    @Flag(help: "Exit with status 0 when records made invalid objects, which the import deleted (status 4 without it).")
    var allowInvalid = false

    @Flag(help: "Save the import when records name objects that do not exist, leaving those links unset (without it, the import is rolled back: status 3).")
    var allowUnresolved = false

    @Flag(name: .customLong("allow-unknown-keys"), help: "Save the import when records hold keys that no property reads, ignoring them (without it, the import is rolled back: status 3).")
    var allowUnknownKeys = false

    @Flag(help: "Create the store when it is missing, for --model; without it, a missing store is an error, so that a mistyped --store is not taken for a new store.")
    var create = false

    @Option(name: .customLong("batch-size"), help: ArgumentHelp("Records per batch: looked up together and saved together.", valueName: "n"))
    var batchSize = 1000

    @Option(help: ArgumentHelp("How to print the report: text or json.", valueName: "format"))
    var report: ReportFormat = .text

    enum ReportFormat: String, ExpressibleByArgument {
        case text
        case json
    }

    func validate() throws {
        if batchSize < 1 { throw ValidationError("--batch-size must be at least 1") }
        if create, options.readOnly { throw ValidationError("--read-only opens an existing store; it cannot be used with --create") }
        if create, options.modelPath == nil {
            throw ValidationError("--create needs --model (or STRATA_MODEL): the model to make the store for")
        }
    }

    func run() async throws {
        let inputs = files.isEmpty ? ["-"] : files
        for file in inputs { try Self.checkReadable(file) }
        CommandInterruption.start()
        let path = try options.requireStorePath()
        let isNewStore = !FileManager.default.fileExists(atPath: path)
        if isNewStore, !create { throw CLIError.noSuchStore(path: path, remedy: .createWithModel) }
        let store = try options.openStoreForWriting(creatingIfMissing: create)
        defer { store.close() }
        var records = StreamingImport(entity: entity, format: format, identities: identity.map { [entity: .attribute($0)] } ?? [:], batchSize: batchSize)
        records.pruning = pruneWhere.map { .entity(where: $0) } ?? (prune ? .all : .none)
        records.isDryRun = dryRun
        records.allowsUnresolvedLinks = allowUnresolved
        records.allowsUnknownKeys = allowUnknownKeys
        var progress = ImportProgress()
        records.progress = { batch in
            try CommandInterruption.check()
            progress.show(batch)
        }
        let result: ImportReport
        var failure: (any Error)?
        do {
            result = try records.run(inputs.map { $0 == "-" ? .standardInput : .file(URL(fileURLWithPath: $0)) }, into: store)
        } catch {
            failure = error
            result = ImportReport()
        }
        if let failure {
            // A failed import leaves no store where there was none: the one made for it goes.
            if isNewStore {
                store.close()
                PersistentStore.removeFiles(ofStoreAt: path)
            }
            throw Self.commandError(for: failure)
        }
        progress.finish()
        switch report {
        case .text:
            print(result.description.isEmpty ? "nothing imported" : result.description)
            if dryRun { print("dry run: rolled back") }
            // Warnings go where errors go: a pipe of the report keeps only the counts.
            let warnings = Self.warnings(of: result)
            if !warnings.isEmpty { StrataCLI.printError(warnings.joined(separator: "\n")) }
        case .json:
            print(JSONWriter.string(from: result.json(dryRun: dryRun)))
        }
        if let problems = problems(of: result) { throw problems }
    }

    /// Fails, before the store is opened, for a file that is not there or not a file, naming it.
    static func checkReadable(_ file: String) throws {
        guard file != "-" else { return }
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: file, isDirectory: &isFolder) else {
            throw CLIError.unreadableFile(path: file, role: .records, problem: .missing)
        }
        if isFolder.boolValue { throw CLIError.unreadableFile(path: file, role: .records, problem: .folder) }
    }

    /// The error a failed import ends the command with: a refusal lists what it refused on
    /// standard error first; the input's problems are data errors (exit status 3).
    static func commandError(for error: any Error) -> any Error {
        guard case StreamingImportError.refused(let report, let unresolved, let unknownKeys) = error else { return error }
        StrataCLI.printError(warnings(of: report).joined(separator: "\n"))
        return CLIError.importRefused(report, unresolvedLinks: unresolved, unknownKeys: unknownKeys)
    }

    /// What makes the import complete with problems (exit status 4), unless allowed; nil when
    /// none. Only invalid records (deleted, the rest being saved) remain: unresolved links and
    /// unknown keys refuse the import.
    private func problems(of result: ImportReport) -> CLIError? {
        guard !result.invalid.isEmpty, !allowInvalid else { return nil }
        return .importCompletedWithProblems(invalid: result.invalid.count, dryRun: dryRun)
    }
}

extension ImportCommand {
    /// One line per problem of `report`, each naming its record: what standard error lists.
    static func warnings(of report: ImportReport) -> [String] {
        report.invalid.map { "invalid \($0)" } + report.unresolvedLinks.map { "unresolved \($0)" }
            + report.ignoredKeys.sorted().map { key in
                "ignored key \(key): no property reads it" + (report.ignoredKeyRecords[key].map { " (first in \($0))" } ?? "")
            }
    }
}

extension ImportReport {
    /// The report as `--report json` prints it.
    func json(dryRun: Bool) -> JSONValue {
        .object([
            "entities": .object(counts.keys.sorted().map { entity in
                JSONMember(entity, .object(ImportState.allCases.map { JSONMember($0.rawValue, .number(count(entity, $0))) }))
            }),
            "invalid": .array(invalid.map { .object(["entity": .string($0.entity), "object": .string($0.object), "reason": .string($0.reason)]) }),
            "unresolvedLinks": .array(unresolvedLinks.map(JSONValue.string)),
            "ignoredKeys": .array(ignoredKeys.sorted().map(JSONValue.string)),
            "dryRun": .bool(dryRun),
        ])
    }
}
