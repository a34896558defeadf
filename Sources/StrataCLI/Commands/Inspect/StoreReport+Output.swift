import Foundation
import Strata

extension StoreReport {
    /// The report as `strata inspect` prints it on a terminal.
    var lines: [String] {
        var table = TextTable(header: ["Z_ENT", "entity", "parent", "table", "rows"])
        for entity in entities {
            table.append([String(entity.number), entity.name, entity.parent ?? "-", entity.table, String(entity.rowCount)])
        }
        let size = "size        \(fileSize) bytes" + (walSize.map { ", -wal \($0) bytes" } ?? ", no -wal file")
        let framework = "framework   \(frameworkVersion.map(String.init) ?? "unknown") (\(storeType ?? "unknown") store)"
        var match = "match       \(comparison?.summary ?? "not compared: an inferred model has no Core Data version hashes")"
        if !missingColumns.isEmpty {
            let plural = missingColumns.count == 1 ? "" : "s"
            match += "; but its tables lack \(missingColumns.count) column\(plural) the model names, which Core Data would refuse"
        }
        var lines: [String] = [
            "store       \(path)", size, "journal     \(journalMode), page size \(pageSize)", "uuid        \(uuid)", framework,
            "model       \(modelSource)", match,
        ]
        for missing in missingColumns {
            lines.append("warning     table \(missing.table) has no column \(missing.column) for \(missing.kind.rawValue) \(missing.entity).\(missing.property)")
        }
        let historySummary: String = history.map { history in
            let last = history.last.map { ", last \($0.formatted(.iso8601))" } ?? ""
            return "\(history.transactions) transactions, \(history.changes) changes (ATRANSACTION, ACHANGE, ATRANSACTIONSTRING)" + last
        } ?? "none"
        lines += ["history     " + historySummary, ""]
        return lines + table.lines
    }

    /// The report as `strata inspect --format json` prints it.
    var json: JSONValue {
        .object([
            "store": .object([
                "path": .string(path), "size": .number(fileSize), "walSize": walSize.map(JSONValue.number),
                "journalMode": .string(journalMode), "pageSize": .number(pageSize), "uuid": .string(uuid),
                "frameworkVersion": frameworkVersion.map(JSONValue.number), "storeType": storeType.map(JSONValue.string),
            ]),
            "model": .object([
                "source": .string(modelSource.kind), "origin": .string(modelSource.description),
                "matches": comparison.map { .bool($0.isMatch) } ?? .null,
                "changed": .array((comparison?.changed ?? []).map(JSONValue.string)),
                "onlyInModel": .array((comparison?.onlyInModel ?? []).map(JSONValue.string)),
                "onlyInStore": .array((comparison?.onlyInStore ?? []).map(JSONValue.string)),
                "missingColumns": .array(
                    missingColumns.map {
                        .object([
                            "table": .string($0.table), "column": .string($0.column), "entity": .string($0.entity),
                            "property": .string($0.property), "kind": .string($0.kind.rawValue),
                        ])
                    }),
            ]),
            "history": history.map { history in
                .object([
                    "transactions": .number(history.transactions), "changes": .number(history.changes), "strings": .number(history.strings),
                    "first": history.first.map { .string($0.formatted(.iso8601)) }, "last": history.last.map { .string($0.formatted(.iso8601)) },
                ])
            } ?? .null,
            "entities": .array(
                entities.map { entity in
                    .object([
                        "name": .string(entity.name), "number": .number(entity.number), "parent": entity.parent.map(JSONValue.string),
                        "subentities": .array(entity.subentities.map(JSONValue.string)), "table": .string(entity.table),
                        "rows": .number(entity.rowCount),
                    ])
                }),
        ])
    }
}

extension PersistentStore.ModelSource {
    /// `file`, `modelCache` or `inferred`, for JSON output.
    var kind: String {
        switch self {
        case .given: "file"
        case .modelCache: "modelCache"
        case .storeMetadata: "storeMetadata"
        case .inferred: "inferred"
        }
    }
}

extension EntityReport {
    /// The entity as `strata inspect ENTITY` prints it on a terminal.
    func lines(model: ObjectModel) -> [String] {
        var heading = "\(name)  (Z_ENT \(number), table \(table), \(rowCount) rows"
        if let parent { heading += "; parent \(parent)" }
        if !subentities.isEmpty { heading += "; sub-entities \(subentities.joined(separator: ", "))" }
        var lines = [heading + ")"]
        var attributeTable = TextTable(header: ["attribute", "type", "column"], indent: 2)
        for attribute in attributes {
            attributeTable.append([attribute.name + (attribute.isInherited ? " (inherited)" : ""), attribute.type.rawValue, attribute.column ?? "(transient)"])
        }
        if !attributes.isEmpty { lines += attributeTable.lines }
        var relationshipTable = TextTable(header: ["relationship", "destination", "inverse", "cardinality", "stored in"], indent: 2)
        for relationship in relationships {
            relationshipTable.append([relationship.name, relationship.destination, relationship.inverse ?? "-", relationship.cardinality, relationship.storageDescription])
        }
        if !relationships.isEmpty { lines += relationshipTable.lines }
        for index in indexes { lines.append("  \(index.sql)") }
        guard !firstRows.isEmpty else { return lines }
        let types = Dictionary(attributes.map { ($0.name, $0.type) }, uniquingKeysWith: { first, _ in first })
        let columns = firstRows.flatMap { $0.values.keys }.reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }.sorted()
        var rows = TextTable(header: ["Z_PK", "entity", "Z_OPT"] + columns, indent: 2)
        for row in firstRows {
            rows.append([String(row.primaryKey), row.entityName, String(row.version)]
                + columns.map { ValueFormatting.text(row.values[$0] ?? .null, type: types[$0]) })
        }
        return lines + ["", "first \(firstRows.count) rows"] + rows.lines
    }

    /// The entity as `strata inspect ENTITY --format json` prints it.
    func json(model: ObjectModel) -> JSONValue {
        let types = Dictionary(attributes.map { ($0.name, $0.type) }, uniquingKeysWith: { first, _ in first })
        return .object([
            "name": .string(name), "number": .number(number), "table": .string(table), "parent": parent.map(JSONValue.string),
            "subentities": .array(subentities.map(JSONValue.string)), "rows": .number(rowCount),
            "attributes": .array(
                attributes.map {
                    .object(["name": .string($0.name), "type": .string($0.type.jsonName), "column": $0.column.map(JSONValue.string), "inherited": .bool($0.isInherited)])
                }),
            "relationships": .array(
                relationships.map {
                    .object([
                        "name": .string($0.name), "destination": .string($0.destination), "inverse": $0.inverse.map(JSONValue.string),
                        "cardinality": .string($0.cardinality), "table": $0.table.map(JSONValue.string),
                        "columns": .array($0.columns.map(JSONValue.string)), "joinTable": .bool($0.isJoinTable),
                    ])
                }),
            "indexes": .array(indexes.map { .object(["name": .string($0.name), "sql": .string($0.sql)]) }),
            "firstRows": .array(
                firstRows.map { row in
                    .object([
                        "Z_PK": .number(row.primaryKey), "entity": .string(row.entityName), "Z_OPT": .number(row.version),
                        "values": .object(row.values.sorted { $0.key < $1.key }.map { JSONMember($0.key, ValueFormatting.json($0.value, type: types[$0.key])) }),
                    ])
                }),
        ])
    }
}
