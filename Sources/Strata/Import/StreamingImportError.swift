/// Why a ``StreamingImport`` was rolled back: the store is as it was before it.
///
/// ```swift
/// do {
///     report = try StreamingImport(entity: "Book").run([.standardInput], into: store)
/// } catch StreamingImportError.refused(let report, _, _) {
///     report.unresolvedLinks.forEach { print("unresolved", $0) }
/// }
/// ```
public enum StreamingImportError: Error, Sendable, CustomStringConvertible {
    /// A record of the input `source` that does not parse (a ``JSONSyntaxError`` or
    /// ``CSVSyntaxError``, located by line and column) or does not fit the model (an
    /// ``ImportError`` naming the record, key and value).
    case badInput(source: String, cause: any Error & Sendable)
    /// The input `source` holds nothing: for a `.csv` not even the header row, for JSON not
    /// even `[]`. Only an empty NDJSON file (`.ndjson`, `.jsonl`) is a list of no records.
    case emptyInput(source: String, format: StreamingImport.Format?, isFile: Bool)
    /// Records had keys, and not one fits a property of their entity: records fed to the
    /// wrong entity. The report's ``ImportReport/ignoredKeys`` lists the keys.
    case noKeyFits(ImportReport)
    /// Links that name no object (`unresolvedLinks`), or keys that no property reads
    /// (`unknownKeys`), which the import was not allowed to accept; the report lists them.
    case refused(ImportReport, unresolvedLinks: Bool, unknownKeys: Bool)

    public var description: String {
        switch self {
        case .badInput(let source, let cause):
            return "\(source): \(cause)"
        case .emptyInput(let source, .csv, _):
            return "\(source): the CSV input is empty; expected a header row naming the keys"
        case .emptyInput(let source, _, false):
            return "\(source): the input is empty; expected JSON records ([] for none)"
        case .emptyInput(let source, _, true):
            return "\(source): the file is empty; expected JSON records ([] for none; an empty .ndjson or .jsonl file imports nothing)"
        case .noKeyFits(let report):
            // `Book reads none of the records' keys (born, name)`, one entity after another
            // for a wrapper object's.
            let byEntity = Dictionary(grouping: report.ignoredKeys.sorted()) { String($0.prefix { $0 != "." }) }
            let entities = byEntity.keys.sorted().map { entity in
                "\(entity) reads none of the records' keys (\(byEntity[entity]!.map { String($0.dropFirst(entity.count + 1)) }.joined(separator: ", ")))"
            }
            return entities.joined(separator: "; ") + "; nothing was imported: are they records of another entity?"
        case .refused(let report, let unresolved, let unknownKeys):
            var reasons: [String] = []
            if unresolved { reasons.append("\(report.unresolvedLinks.count) link(s) named no object") }
            if unknownKeys { reasons.append("\(report.ignoredKeys.count) key(s) no property reads") }
            return reasons.joined(separator: "; ") + "; nothing was imported, the store is as it was"
        }
    }
}
