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
            --select lists values and aggregates, separated by commas (commas inside \
            parentheses and quotes do not count), each optionally renamed with 'as NAME': \
            'location, avg(age) as mean_age, count(*)'. A value is a key path or an \
            expression of the predicate syntax: 'price * quantity', \
            "FUNCTION(published, 'year')". Aggregates: avg (or average), sum, stddev \
            (population), min, max, median, count, of a value; count(*) counts objects. An \
            unnamed aggregate is called FUNCTION_KEY (avg_age), count(*) is called count, an \
            unnamed date part PART_KEY (year_published).

            Date parts, in --select, --group-by, --where and --having: \
            FUNCTION(date, 'year'), 'month', 'day', 'weekday' (1 = Sunday … 7 = Saturday), \
            'hour', 'minute', 'second', and FUNCTION(date, 'strftime:', '%Y-%m') for a C \
            strftime format. They are taken in UTC, whatever the machine's time zone: a store \
            keeps instants, and an answer must not change with TZ.

              strata query Book --select "FUNCTION(published, 'year') as year, count(*)" --group-by year
              strata query Book --select "FUNCTION(published, 'strftime:', '%Y-%m') as month, avg(rating)" --group-by month

            --group-by takes a key path, an expression, or the name of a selected value \
            (an alias); every selected value that is not aggregated must be grouped. A value \
            beside an aggregate without --group-by is refused (exit status 2), as PostgreSQL \
            refuses it, rather than printed from one arbitrary object. --having compares the \
            selected names after grouping ('count > 1 AND mean_age < 40'), and --sort may name \
            them too. Without --select, every attribute is printed. Reads the store as saved, \
            read-only. --explain prints the SQL, its arguments and \
            SQLite's query plan instead of the rows.
            """)

    @OptionGroup var options: StoreOptions

    @Argument(help: "The entity to query; may be left out with --template.", completion: EntityCompletion.kind)
    var entity: String?

    @Option(help: ArgumentHelp("Values and aggregates to print, comma-separated.", valueName: "list"), transform: { try FetchedProperty.list($0) })
    var select: [FetchedProperty]?

    @Option(name: .customLong("group-by"), help: ArgumentHelp("Group by this key path, expression or selected name; repeatable.", valueName: "key"))
    var groupBy: [String] = []

    @Option(
        parsing: .unconditional, help: ArgumentHelp("Keep only the groups that satisfy this predicate over the selected names.", valueName: "predicate"),
        transform: PredicateArgument.predicate)
    var having: ObjectPredicate?

    @Flag(help: "Print each distinct row once.")
    var distinct = false

    @OptionGroup var request: RequestOptions

    @OptionGroup var explanation: ExplainOptions

    func validate() throws {
        if having != nil, groupBy.isEmpty { throw ValidationError("--having needs --group-by") }
        if let select, groupBy.isEmpty, select.contains(where: { $0.function != nil }), let loose = select.first(where: { $0.function == nil }) {
            throw ValidationError(
                "--select: '\(loose.name)' is beside an aggregate but neither grouped nor aggregated, so no one value of it answers; "
                    + "add --group-by \(loose.name), or aggregate it (min(…), max(…), count(…))")
        }
    }

    func run() async throws {
        let (store, _) = try options.openStoreForReading()
        defer { store.close() }
        var fetch = try request.makeRequest(entity: entity, model: store.model)
        fetch.resultType = .dictionary
        fetch.propertiesToFetch = select
        fetch.propertiesToGroupBy = groupBy
        fetch.returnsDistinctResults = distinct
        fetch.havingPredicate = having
        if explanation.explain { return ExplainOptions.print(try store.explain(fetch)) }
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
