import Foundation

/// One step of a migration, from one model version to the next: the SQL that copies the
/// objects of a store of the first into a new, empty store of the second, and what the copy
/// will hold.
///
/// Objects keep their primary keys (so their URIs, `x-coredata://…/Book/p12`); entity numbers
/// (`Z_ENT`), tables, columns and join tables follow the destination model as Core Data lays a
/// new store out. Rows are copied table by table with `INSERT … SELECT` from the old store,
/// attached as `src`; relationships whose storage changed (a to-one that became to-many, say)
/// are rewritten from the old storage afterwards.
///
/// ```swift
/// let step = try MigrationStep(from: ("Model", old), to: ("Model 2", new), sourceSchema: schema, sourceCounts: counts)
/// print(step.description)    // the changes, the objects per entity, the SQL
/// ```
public struct MigrationStep: Sendable, CustomStringConvertible {
    /// The name of the version the step starts from.
    public let sourceVersion: String
    /// The name of the version the step migrates to.
    public let destinationVersion: String
    /// How the source model's objects become the destination model's.
    public let mapping: ModelMapping
    /// The mapping models that carry the step out, as passes in order (see
    /// ``MigrationManager``); empty when the step is inferred, as a lightweight migration.
    public let mappingModels: [MappingModel]
    /// The objects of each source entity (sub-entities not included) that the step's input holds.
    public let sourceCounts: [String: Int]
    /// The values each property the step drops held in the store, by `Entity.property`
    /// (`Partner.relativeSize`: 12): counted for a plan's first step, which reads the store.
    public internal(set) var droppedValueCounts: [String: Int] = [:]
    /// Whether the input holds persistent history, which every step carries; a mapped step
    /// re-points its changes to the objects it makes (see `MappedStepRun+History`).
    public let sourceHasHistory: Bool
    /// Tables and columns of the input that no model describes (a table or column another tool
    /// added): the new store leaves them out. Core
    /// Data's model cache is not among them: the new store gets one of the destination model.
    public let leftOut: [String]
    /// Where the input store keeps its objects.
    let sourceLayout: StoreLayout
    /// Where the new store keeps them, as Core Data lays out a new store of the destination model.
    let destinationLayout: StoreLayout

    /// Plans the step from a store of `source`, whose tables `sourceSchema` describes (the
    /// input's real names are used where they differ from Strata's choice), holding
    /// `sourceCounts` objects per entity.
    ///
    /// With `mappingModels`, the step carries them out instead of inferring a mapping: a
    /// lightweight mapping is never inferred for a step that has a mapping model.
    ///
    /// - Throws: ``ModelMappingError`` with every change that cannot be inferred.
    package init(
        from source: (name: String, model: ObjectModel), to destination: (name: String, model: ObjectModel),
        sourceSchema: StoreSchema?, sourceCounts: [String: Int], mappingModels: [MappingModel] = []
    ) throws(ModelMappingError) {
        sourceVersion = source.name
        destinationVersion = destination.name
        self.mappingModels = mappingModels
        mapping = mappingModels.isEmpty ? try ModelMapping(from: source.model, to: destination.model) : ModelMapping(unmatchedFrom: source.model, to: destination.model)
        self.sourceCounts = sourceCounts
        sourceLayout = StoreLayout(model: source.model, matching: sourceSchema)
        destinationLayout = StoreLayout(model: destination.model)
        var leftOut: [String] = []
        // The history tables are carried whole (see MigrationStepRun+History).
        for table in sourceSchema?.tables ?? []
        where !StoreSchema.requiredTables.contains(table.name) && !PersistentHistory.isHistoryTable(table.name) && table.name != "Z_MODELCACHE" {
            guard let known = sourceLayout.tables.first(where: { $0.name == table.name }) else {
                leftOut.append("table \(table.name)")
                continue
            }
            let columns = Set(known.columns.map(\.name))
            leftOut += table.columns.filter { !columns.contains($0.name) }.map { "column \(table.name).\($0.name)" }
        }
        self.leftOut = leftOut
        sourceHasHistory = sourceSchema?.tables.contains { PersistentHistory.isHistoryTable($0.name) } ?? false
    }

    /// `Model → Model 2`, as messages name the step.
    public var name: String { "\(sourceVersion) → \(destinationVersion)" }

    /// The objects of each destination entity (sub-entities not included) the new store will hold.
    public var expectedCounts: [String: Int] {
        if !mappingModels.isEmpty { return mappedCounts }
        var counts: [String: Int] = [:]
        for entity in mapping.entities {
            counts[entity.destination.name] = entity.source.map { sourceCounts[$0.name] ?? 0 } ?? 0
        }
        return counts
    }

    /// The objects of source entities that the destination model does not have: they go.
    public var droppedCounts: [String: Int] {
        sourceCounts.filter { name, count in count > 0 && mapping.destinationEntity(ofSource: name) == nil }
    }

    /// Every statement that makes the new store, in order: tables, rows, relationships, keys,
    /// indexes. The rows are copied from the input store attached as `src`; `?1` and `?2`
    /// bound the primary keys of a batch.
    public var statements: [String] {
        guard mappingModels.isEmpty else { return [] }
        return destinationLayout.createStatements.filter { $0.hasPrefix("CREATE TABLE") } + StoreLayout.bookkeepingStatements
            + [ModelCacheEncoder.createStatement] + rowCopies.map(\.sql) + positionStatements + relationshipStatements
            + destinationLayout.indexes.map(\.createStatement)
    }

    /// The plan in words: the changes, the objects per entity, the statements.
    public var description: String {
        if !mappingModels.isEmpty { return mappedDescription }
        var lines = ["\(name):"]
        lines += mapping.changes.isEmpty ? ["  no change to the stored data (the version hashes differ only)"] : mapping.changes.map { change in
            // "Book.authorName removed" gets the values it drops.
            guard let property = change.removedProperty, let count = droppedValueCounts[property] else { return "  - \(change)" }
            return "  - \(change), dropping \(count) value\(count == 1 ? "" : "s")"
        }
        lines.append("  objects after the step:")
        for (entity, count) in expectedCounts.sorted(by: { $0.key < $1.key }) where !(mapping.entity(named: entity)?.destination.isAbstract ?? false) || count > 0 {
            lines.append("    \(entity): \(count)")
        }
        for (entity, count) in droppedCounts.sorted(by: { $0.key < $1.key }) {
            lines.append("    \(entity): \(count) removed with the entity")
        }
        lines += clearedLinks.map { "  - \($0)" }
        if !leftOut.isEmpty { lines.append("  left out, since no model describes them: " + leftOut.joined(separator: ", ")) }
        return lines.joined(separator: "\n")
    }

    // MARK: - Entity numbers

    /// `Z_ENT` of each source entity that has a destination, mapped to the destination's.
    var entityNumbers: [Int: Int] {
        var numbers: [Int: Int] = [:]
        for entity in mapping.entities {
            guard let source = entity.source, let from = sourceLayout.entity(named: source.name)?.number,
                let to = destinationLayout.entity(named: entity.destination.name)?.number
            else { continue }
            numbers[from] = to
        }
        return numbers
    }

    /// An SQL expression that maps the source entity number `expression` holds to the
    /// destination's (NULL for an entity that goes).
    func mappedEntityNumber(_ expression: String) -> String {
        let cases = entityNumbers.sorted { $0.key < $1.key }.map { "WHEN \($0.key) THEN \($0.value)" }
        return cases.isEmpty ? "NULL" : "CASE \(expression) \(cases.joined(separator: " ")) END"
    }

    /// The destination layout of the objects of the source entity `name`, when it has one.
    func destinationLayoutEntity(ofSource name: String) -> StoreLayout.Entity? {
        mapping.destinationEntity(ofSource: name).flatMap { destinationLayout.entity(named: $0.name) }
    }
}

extension DatabaseValue {
    /// The value as an SQL literal: `42`, `1.5`, `'it''s'`, `X'00FF'`, `NULL`.
    var sqlLiteral: String {
        switch self {
        case .null: "NULL"
        case .integer(let value): String(value)
        case .real(let value): value.isFinite ? "\(value)" : "NULL"
        case .text(let value): "'" + value.replacingOccurrences(of: "'", with: "''") + "'"
        case .blob(let data): "X'" + data.map { String(format: "%02X", $0) }.joined() + "'"
        }
    }
}
