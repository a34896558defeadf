// A step that mapping models carry out: what the plan can say before it runs. The objects
// each entity mapping makes are known only when it runs (a filter, a policy may make any
// number), so the counts are those of the mappings that copy or transform every object of an
// entity, and the plan says so.

extension MigrationStep {
    /// How a step carries its objects over, as a plan lists it.
    public enum Kind: Sendable, Hashable {
        /// A mapping inferred as Core Data's lightweight migration infers it; the step's
        /// ``MigrationStep/mapping`` lists its ``ModelMapping/changes``.
        case inferred
        /// The mapping models of these names, as passes in this order.
        case mappingModels([String])
    }

    /// Whether the step infers its mapping or carries out mapping models.
    ///
    /// ```swift
    /// for step in try migrator.plan().steps where step.kind == .inferred { print(step.mapping.changes) }
    /// ```
    public var kind: Kind { mappingModels.isEmpty ? .inferred : .mappingModels(mappingModels.map(\.name)) }

    /// Whether the step carries out mapping models rather than an inferred mapping.
    public var isMapped: Bool { !mappingModels.isEmpty }

    /// Objects per destination entity, as far as the entity mappings tell before they run.
    var mappedCounts: [String: Int] {
        var counts: [String: Int] = [:]
        for entity in mapping.destination.entities { counts[entity.name] = 0 }
        for mapping in mappingModels.flatMap(\.entityMappings) where [.copy, .transform].contains(mapping.kind) && mapping.filterPredicate == nil {
            guard let source = mapping.sourceEntityName, let destination = mapping.destinationEntityName else { continue }
            counts[destination, default: 0] += sourceCounts[source] ?? 0
        }
        return counts
    }

    /// The plan of a mapped step in words: its mapping models and entity mappings.
    var mappedDescription: String {
        var lines = ["\(name): carried out by the mapping model\(mappingModels.count == 1 ? "" : "s, as passes in this order,") "
            + mappingModels.map(\.name).joined(separator: ", ") + " (no lightweight mapping is inferred)"]
        for model in mappingModels {
            if mappingModels.count > 1 { lines.append("  \(model.name):") }
            lines += model.summary.map { "  - \($0)" }
        }
        lines.append("  objects the entity mappings copy or transform (filters and policies decide the rest):")
        for (entity, count) in mappedCounts.sorted(by: { $0.key < $1.key }) where count > 0 { lines.append("    \(entity): \(count)") }
        let mapped = Set(mappingModels.flatMap(\.entityMappings).compactMap(\.sourceEntityName))
        for (entity, count) in sourceCounts.sorted(by: { $0.key < $1.key }) where count > 0 && !mapped.contains(entity) {
            lines.append("    \(entity): \(count) not taken by any entity mapping, so not migrated")
        }
        if sourceHasHistory {
            lines.append("  persistent history: every transaction kept; each change re-pointed to the object made from its object, "
                + "and dropped where none was (deleted before, filtered out, removed)")
        }
        return lines.joined(separator: "\n")
    }
}
