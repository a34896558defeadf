import ArgumentParser
import Foundation
import Strata

/// `strata query`: values and aggregates of an entity's objects, grouped, as a table, JSON,
/// NDJSON or CSV.
struct QueryCommand: AsyncParsableCommand, ReadsModelOrStore {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "Print selected values and aggregates of an entity's objects, optionally grouped.",
        discussion: """
            --select lists key paths and aggregates, each optionally renamed with 'as NAME': \
            'location, avg(age) as mean_age, count(*)'. Aggregates: avg (or average), sum, \
            stddev (population), min, max, median, count; count(*) counts objects. An unnamed \
            aggregate is called FUNCTION_KEY (avg_age), count(*) is called count. --having \
            compares these names after grouping ('count > 1 AND mean_age < 40'), and --sort may \
            name them too. Without --select, every attribute is printed. Reads the store as \
            saved, read-only.
            """)

    @OptionGroup var options: StoreOptions

    @Argument(help: "The entity to query; may be left out with --template.", completion: EntityCompletion.kind)
    var entity: String?

    @Option(help: ArgumentHelp("Key paths and aggregates to print, comma-separated.", valueName: "list"))
    var select: String?

    @Option(name: .customLong("group-by"), help: ArgumentHelp("Group by this key path; repeatable.", valueName: "key"))
    var groupBy: [String] = []

    @Option(parsing: .unconditional, help: ArgumentHelp("Keep only the groups that satisfy this predicate over the selected names.", valueName: "predicate"))
    var having: String?

    @Flag(help: "Print each distinct row once.")
    var distinct = false

    @OptionGroup var request: RequestOptions

    func validate() throws {
        if having != nil, groupBy.isEmpty { throw ValidationError("--having needs --group-by") }
    }

    func run() async throws {
        let (store, _) = try options.openStoreForReading()
        defer { store.close() }
        var fetch = try request.makeRequest(entity: entity, model: store.model)
        fetch.resultType = .dictionary
        do {
            if let select { fetch.propertiesToFetch = try FetchedProperty.list(select) }
        } catch {
            throw CLIError("--select: \(error)", status: .usage)
        }
        fetch.propertiesToGroupBy = groupBy
        fetch.returnsDistinctResults = distinct
        do {
            fetch.havingPredicate = try having.map { try ObjectPredicate(format: $0) }
        } catch {
            throw CLIError("--having: \(error)", status: .usage)
        }
        let fetched = try store.fetchDictionaries(fetch)
        var writer = RowWriter(columns: fetched.first?.names ?? fetch.propertiesToFetch?.map(\.name) ?? [], format: request.format, pages: !request.noPager)
        // The attributes the names read, for the values of Transformable ones.
        let keyPaths = fetch.propertiesToFetch.map { properties in
            Dictionary(properties.compactMap { property in property.function == nil ? property.keyPath.map { (property.name, $0) } : nil }, uniquingKeysWith: { first, _ in first })
        }
        var attributes: [String: AttributeDescription] = [:]
        for name in fetched.first?.names ?? [] {
            attributes[name] = ValueFormatting.attribute(at: keyPaths?[name] ?? name, from: fetch.entityName, model: store.model)
        }
        for row in fetched {
            writer.write(row.names.map { ValueFormatting.row(row[$0], format: request.format, attribute: attributes[$0]) })
        }
        writer.finish()
    }
}
