import Foundation
import Strata

/// Prints what `strata diff` finds as it finds it: each difference on a line (or as JSON), then
/// the numbers per entity.
struct DiffOutput {
    let format: DiffCommand.DiffFormat
    let summaryOnly: Bool
    let old: String, new: String
    /// The UTF-8 text written and not flushed yet.
    private var pending = ""
    private var count = 0

    init(format: DiffCommand.DiffFormat, summaryOnly: Bool, old: String, new: String) {
        self.format = format
        self.summaryOnly = summaryOnly
        self.old = old
        self.new = new
        switch format {
        case .table: if !summaryOnly { pending = "--- \(old)\n+++ \(new)\n" }
        case .json:
            pending = "{\n  \"old\": "
            JSONWriter.append(.string(old), to: &pending)
            pending += ",\n  \"new\": "
            JSONWriter.append(.string(new), to: &pending)
            pending += ",\n  \"differences\": ["
        case .ndjson: break
        }
    }

    mutating func write(_ difference: ObjectDifference) {
        guard !summaryOnly else { return }
        defer { count += 1 }
        switch format {
        case .table:
            let sign = switch difference.kind {
            case .added: "+"
            case .removed: "-"
            case .changed: "~"
            }
            pending += "\(sign) \(difference.entityName) \(difference.keyName)=\(Self.text(difference.key))"
            for (index, change) in difference.changes.enumerated() {
                pending += (index == 0 ? "  " : "; ") + "\(change.property): \(Self.text(change.old)) -> \(Self.text(change.new))"
            }
            pending += "\n"
        case .json:
            pending += count == 0 ? "\n    " : ",\n    "
            JSONWriter.append(Self.json(difference), to: &pending, pretty: false)
        case .ndjson:
            JSONWriter.append(Self.json(difference), to: &pending, pretty: false)
            pending += "\n"
        }
        if pending.utf8.count >= 1 << 16 { flush() }
    }

    /// Ends the output with the numbers per entity.
    mutating func finish(_ summary: StoreComparison.Summary) {
        switch format {
        case .table:
            if !summaryOnly, count > 0 { pending += "\n" }
            var table = TextTable(header: ["entity", "matched by", "old", "new", "added", "removed", "changed", "not compared"])
            for entity in summary.entities {
                let notCompared = entity.onlyInOld.map { "-" + $0 } + entity.onlyInNew.map { "+" + $0 }
                table.append([entity.entityName, entity.keyName, entity.oldCount.formatted(), entity.newCount.formatted(),
                              entity.added.formatted(), entity.removed.formatted(), entity.changed.formatted(), notCompared.joined(separator: " ")])
            }
            pending += table.rendered + "\n"
            pending += summary.isEqual ? "no differences\n" : "\(Self.total(summary))\n"
        case .json:
            // An entity a line, as the differences are.
            pending += count == 0 ? "],\n  \"entities\": [" : "\n  ],\n  \"entities\": ["
            for (index, entity) in summary.entities.enumerated() {
                pending += index == 0 ? "\n    " : ",\n    "
                JSONWriter.append(Self.json(entity), to: &pending, pretty: false)
            }
            pending += summary.entities.isEmpty ? "],\n" : "\n  ],\n"
            pending += "  \"equal\": \(summary.isEqual)\n}\n"
        case .ndjson: break
        }
        flush()
    }

    private mutating func flush() {
        FileHandle.standardOutput.write(Data(pending.utf8))
        pending.removeAll(keepingCapacity: true)
    }

    private static func total(_ summary: StoreComparison.Summary) -> String {
        let added = summary.entities.reduce(0) { $0 + $1.added }, removed = summary.entities.reduce(0) { $0 + $1.removed }
        let changed = summary.entities.reduce(0) { $0 + $1.changed }
        return "\(added.formatted()) added, \(removed.formatted()) removed, \(changed.formatted()) changed"
    }

    private static func text(_ value: JSONValue) -> String {
        JSONWriter.string(from: value, pretty: false)
    }

    static func json(_ difference: ObjectDifference) -> JSONValue {
        .object([
            "entity": .string(difference.entityName),
            "change": .string(difference.kind.rawValue),
            "key": .object([JSONMember(difference.keyName, difference.key)]),
            "oldPK": difference.oldPrimaryKey.map(JSONValue.number),
            "newPK": difference.newPrimaryKey.map(JSONValue.number),
            "changes": difference.kind == .changed
                ? .object(difference.changes.map { JSONMember($0.property, .object(["old": $0.old, "new": $0.new])) }) : nil,
        ])
    }

    static func json(_ entity: StoreComparison.EntitySummary) -> JSONValue {
        .object([
            "entity": .string(entity.entityName), "matchedBy": .string(entity.keyName),
            "old": .number(entity.oldCount), "new": .number(entity.newCount),
            "added": .number(entity.added), "removed": .number(entity.removed), "changed": .number(entity.changed),
            "onlyInOld": .array(entity.onlyInOld.map(JSONValue.string)), "onlyInNew": .array(entity.onlyInNew.map(JSONValue.string)),
        ])
    }
}
