import ArgumentParser
import Foundation
import Strata

/// `strata fetch`: the objects of an entity with their values, as a table, JSON, NDJSON or CSV.
struct FetchCommand: AsyncParsableCommand, ReadsModelOrStore {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Print the objects of an entity with their attributes.",
        discussion: """
            Each object is printed with its URI (x-coredata://STORE-UUID/ENTITY/pN), its \
            attributes (or those --select names) and its to-one relationships as the \
            destination object's URI; --include adds to-many relationships as lists of URIs, \
            and --select may name fetched properties, shown as the lists of URIs their fetch gives, \
            and key paths through to-many relationships (tags.name), shown as the list of the \
            members' values (a JSON array; in a table and CSV the values separated by spaces). \
            A table, which is for reading, names objects ENTITY/pN in an object column, left \
            out with --select, and shows binary data as its size and doubles to 15 significant \
            digits as sqlite3 does (JSON and CSV keep the exact value). On a terminal a table \
            is cut to its width: the object column stays whole, the longest columns are cut \
            first. A transformable attribute \
            shows the value its keyed archive holds: in JSON in the form strata export writes, \
            in a table on one line (["fantasy", "classic"], <ClassName> for an object Strata \
            keeps as an archive). \
            Objects of sub-entities are included unless the predicate says otherwise. Sort keys read KEY, KEY:desc or KEY:nocase; key paths may go through to-one \
            relationships (author.name). The store is opened read-only. Rows are printed as \
            SQLite reads them, the first at once and in bounded memory whatever the number \
            of objects (a table's columns are sized to its first 1,000 rows), so an error \
            part-way (exit status not 0) leaves the rows printed before it. --explain prints \
            the SQL that reads the rows, its arguments and SQLite's query plan, and reads none.
            """)

    @OptionGroup var options: StoreOptions

    @Argument(help: "The entity whose objects to print; may be left out with --template.", completion: EntityCompletion.kind)
    var entity: String?

    @OptionGroup var request: RequestOptions

    // Only the list's shape is read here: its key paths are checked once the store's model is known.
    @Option(
        help: ArgumentHelp("Print only these properties, comma-separated (attributes, to-one relationships, fetched properties, key paths through relationships).", valueName: "a,b,…"),
        transform: Self.keyList)
    var select: [String]?

    @Option(name: .customLong("include"), help: ArgumentHelp("Add this to-many relationship as a list of object URIs; repeatable.", valueName: "relationship"))
    var includes: [String] = []

    @OptionGroup var explanation: ExplainOptions

    func run() async throws {
        let (store, _) = try options.openStoreForReading()
        defer { store.close() }
        var fetch = try request.makeRequest(entity: entity, model: store.model)
        guard fetch.resultType == .managedObject || fetch.resultType == .managedObjectID else {
            throw CLIError.refused(.templateResultType(template: request.template ?? "", resultType: fetch.resultType.rawValue))
        }
        fetch.resultType = .managedObject
        fetch.relationshipKeyPathsForPrefetching = includes
        if explanation.explain {
            return ExplainOptions.print(try ObjectTable.explain(fetch, store: store, select: select, includes: includes, format: request.format))
        }
        try ObjectTable.write(fetch, store: store, select: select, includes: includes, format: request.format, pages: !request.noPager)
    }

    /// `title, author.name` as its key paths; an empty item is a usage error naming it.
    @Sendable static func keyList(_ text: String) throws -> [String] {
        let keys = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        if let empty = keys.firstIndex(of: "") { throw ValidationError("item \(empty + 1) is empty") }
        return keys
    }
}
