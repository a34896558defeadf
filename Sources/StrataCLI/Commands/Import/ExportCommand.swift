import ArgumentParser
import Foundation
import Strata

/// `strata export`: the objects of a store as JSON, NDJSON or CSV records that `strata import`
/// reads back.
struct ExportCommand: AsyncParsableCommand, ReadsModelOrStore {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export objects as JSON, NDJSON or CSV records that strata import reads back.",
        discussion: """
            Each record holds an object's attributes under the keys an import reads (the first \
            mappedKeyName or hyper/sync.remoteKey, a dotted key making nested objects, else the \
            attribute's name; id for an identity attribute named remoteID): dates in ISO 8601 \
            UTC, binary data in base64, decimals as exact numbers, nil as null. Properties whose \
            userInfo sets hyper.nonExportable are left out.

            A transformable attribute's value (an NSKeyedArchiver archive, as Core Data's default \
            and secure transformers keep it) is written as the value it holds: strings, numbers \
            and booleans as themselves, arrays and dictionaries as JSON, and tagged objects for \
            the rest: {"$date": ISO 8601}, {"$data": base64}, {"$url": ...}, {"$uuid": ...}, \
            {"$set": [...]}, {"$orderedSet": [...]}, {"$null": true} for a whole NSNull (null \
            inside a container), {"$dictionary": {...}} for a dictionary with keys beginning \
            with $, {"$real": "nan"}. Objects of other classes are kept as {"$class": NAME, \
            "$archive": base64 of their own archive}, and values that are no archive (an app's \
            own transformer) as {"$bytes": base64}, each attribute holding such values named \
            in a warning; strata import writes them all back. A CSV cell holds the value's JSON.

            Relationships are the identity values of their destinations, under <name>_id \
            for a to-one and <name>_ids for a to-many (name in snake_case; in order for an \
            ordered one); with \
            --nested, the destinations' records, nested. Destinations without an identity \
            attribute, or without an identity value, are nested in either form (of an entity \
            with sub-entities, which a nested record cannot name: references to their own \
            records). An object is written in full once, where it is first met; met again, as \
            a record of its identity value alone. An object without identity value that \
            several objects may link to carries a document-local "@id": "Entity/<primary \
            key>" among its values, and every other link to it is the reference {"@id": \
            "Entity/<primary key>"}, which strata import resolves wherever the record is.

            With one ENTITY, JSON output is an array of its records and NDJSON one record per \
            line: strata import ENTITY FILE reads either back. With no ENTITY (every entity \
            that is not abstract) or several, JSON output is an object of arrays by entity \
            ({"authors": [...], "books": [...]}), in the order an import needs (link targets \
            first, each pair of inverse relationships written from one side), which strata \
            import reads back whatever ENTITY it names. Into an empty store of the same model, \
            the import makes the same objects. An ENTITY with sub-entities stands for them too \
            (unless --exclude-subentities), each in an array of its own (a record cannot name \
            its entity), so its JSON output is an object of arrays.

            NDJSON and CSV (with a header; identity values of a to-many separated by spaces; \
            nested records left out, with a warning naming the relationships) hold exactly one \
            entity; sub-entities with no objects to export do not count. The store is opened read-only; \
            records are printed as they are made, so an error part-way may leave part of the \
            output.
            """)

    @OptionGroup var options: StoreOptions

    @Argument(help: ArgumentHelp("The entities to export; none exports every entity that is not abstract.", valueName: "entity"), completion: EntityCompletion.kind)
    var entities: [String] = []

    @Option(
        name: .customLong("where"), parsing: .unconditional,
        help: ArgumentHelp("Only objects that satisfy this predicate, in Core Data's format; every exported entity must have its keys.", valueName: "predicate"),
        transform: PredicateArgument.predicate)
    var filter: ObjectPredicate?

    @OptionGroup var output: FormatOptions<ExportFormat>

    var format: ExportFormat { output.format }

    @Flag(help: "Write related objects as nested records instead of their identity values.")
    var nested = false

    @Flag(help: "Leave out the objects of the entities' sub-entities.")
    var excludeSubentities = false

    enum ExportFormat: String, CaseIterable, ExpressibleByArgument, FormatChoice {
        case json
        case ndjson
        case csv

        static let defaultFormat = ExportFormat.json
        static let formatHelp = "How to write the records: JSON (an array, or an object of arrays by entity), NDJSON (one record per line) or CSV with a header."
    }

    func validate() throws {
        if nested, format == .csv { throw ValidationError("--nested cannot be used with --format csv") }
    }

    /// Whether `entity` itself (not its sub-entities) has objects that satisfy `filter`.
    private func holdsObjects(_ entity: String, where filter: ObjectPredicate?, in context: ObjectContext) throws -> Bool {
        var request = FetchRequest(entityName: entity, predicate: filter)
        request.includesSubentities = false
        request.fetchLimit = 1
        return try context.count(for: request) > 0
    }

    func run() async throws {
        let (store, _) = try options.openStoreForReading()
        defer { store.close() }
        let model = store.model
        for name in entities where model.entity(named: name) == nil {
            throw StoreError.unknownEntity(path: store.path, name: name, known: model.entities.map(\.name).sorted())
        }
        let context = ObjectContext(store: store, name: "export")
        var output = Output()
        try context.performAndWait {
            let exporter = try Exporter(
                context: context, entities: entities.isEmpty ? nil : entities, includingSubentities: !excludeSubentities, nested: nested)
            var names = exporter.entityNames
            if format != .json, entities.count == 1, names.count > 1,
                try names.filter({ $0 != entities[0] }).allSatisfy({ try !holdsObjects($0, where: filter, in: context) })
            {
                // Sub-entities without objects to export add nothing the one entity's records lack.
                names = [entities[0]]
            }
            if format != .json, entities.count == 1, names.count > 1 {
                throw CLIError.refused(.entityWithSubentities(format: format.rawValue, entity: entities[0], subentities: names.filter { $0 != entities[0] }))
            }
            if format != .json, names.count != 1 {
                throw CLIError.refused(.severalEntities(format: format.rawValue, entities: names))
            }
            switch format {
            case .json where entities.count == 1 && names == entities:
                var count = 0
                try exporter.forEachRecord(of: names[0], where: filter) { record in
                    output.write(count == 0 ? "[\n  " : ",\n  ")
                    output.write(record, level: 2)
                    count += 1
                }
                output.write(count == 0 ? "[]\n" : "\n]\n")
            case .json:
                output.write("{")
                for (index, name) in names.enumerated() {
                    output.write((index == 0 ? "\n  " : ",\n  ") + JSONWriter.string(from: .string(exporter.key(for: name))) + ": [")
                    var count = 0
                    try exporter.forEachRecord(of: name, where: filter) { record in
                        output.write(count == 0 ? "\n    " : ",\n    ")
                        output.write(record, level: 4)
                        count += 1
                    }
                    output.write(count == 0 ? "]" : "\n  ]")
                }
                output.write(names.isEmpty ? "}\n" : "\n}\n")
            case .ndjson:
                try exporter.forEachRecord(of: names[0], where: filter) { record in
                    output.write(record, level: nil)
                    output.write("\n")
                }
            case .csv:
                exporter.writesNestedRecords = false
                for relationship in try exporter.relationshipsLeftOutOfFlatRecords(of: names[0]) {
                    let destination = model.relationship(named: relationship, in: model.entity(named: names[0])!)?.destinationEntityName ?? "?"
                    StrataCLI.printError(
                        "strata: warning: the CSV leaves out \(names[0]).\(relationship): \(destination) has no identity attribute, so its objects are nested records or @id references, which only --format json holds")
                }
                let keys = try exporter.fieldKeys(of: names[0])
                let paths = keys.map { $0.split(separator: ".").map(String.init) }
                output.flush()
                let transformableKeys = try exporter.transformableFieldKeys(of: names[0])
                var writer = RowWriter(columns: keys, format: .csv)
                var row: [JSONValue] = []
                try exporter.forEachRecord(of: names[0], where: filter) { record in
                    row.removeAll(keepingCapacity: true)
                    let members = record.objectMembers ?? []
                    for (index, path) in paths.enumerated() {
                        // A flat record holds its fields in the keys' order: look a field up only when it does not.
                        if path.count == 1, index < members.count, members[index].key == path[0] {
                            row.append(members[index].value)
                        } else {
                            row.append(path.reduce(Optional(record)) { $0?[$1] } ?? .null)
                        }
                    }
                    // A transformable value's JSON, whole: CSV would write a list's items bare.
                    for (index, key) in keys.enumerated() where transformableKeys.contains(key) && !row[index].isNull {
                        row[index] = .string(JSONWriter.string(from: row[index], pretty: false))
                    }
                    writer.write(row)
                }
                writer.finish()
            }
            output.flush()
            for warning in exporter.warnings { StrataCLI.printError("strata: warning: \(warning)") }
        }
        output.flush()
    }

    /// Standard output, written in chunks.
    private struct Output {
        private var pending = ""

        mutating func write(_ text: String) {
            pending += text
            if pending.utf8.count >= 1 << 16 { flush() }
        }

        /// A record, pretty-printed from `level` spaces, or on one line without a level.
        mutating func write(_ record: JSONValue, level: Int?) {
            JSONWriter.append(record, to: &pending, pretty: level != nil, level: level ?? 0)
            if pending.utf8.count >= 1 << 16 { flush() }
        }

        mutating func flush() {
            guard !pending.isEmpty else { return }
            FileHandle.standardOutput.write(Data(pending.utf8))
            pending = ""
        }
    }
}
