// What a step drops that its objects held: the values of attributes and the links of to-one
// relationships that the destination no longer has. Counted on the store the step reads, so
// only the first step of a plan knows them before it runs (the later steps read files the
// migration makes).

extension MigrationStep {
    /// Source attributes and to-one relationships the step drops, as `Entity.property` with
    /// the column and the entity layout whose rows hold them.
    private var droppedColumns: [(label: String, entity: StoreLayout.Entity, column: String)] {
        guard mappingModels.isEmpty else { return [] }
        var dropped: [(String, StoreLayout.Entity, String)] = []
        for entityMapping in mapping.entities {
            guard let source = entityMapping.source, let layout = sourceLayout.entity(named: source.name) else { continue }
            let keptAttributes = Set(entityMapping.attributes.compactMap { $0.source?.name })
            let keptRelationships = Set(entityMapping.relationships.compactMap { $0.source?.name })
            for attribute in source.attributes where !attribute.isTransient && !keptAttributes.contains(attribute.name) {
                if let column = layout.attributeColumns[attribute.name] { dropped.append(("\(source.name).\(attribute.name)", layout, column)) }
            }
            for relationship in source.relationships where !relationship.isTransient && !relationship.isToMany && !keptRelationships.contains(relationship.name) {
                if let column = layout.toOneColumns[relationship.name]?.key { dropped.append(("\(source.name).\(relationship.name)", layout, column)) }
            }
        }
        return dropped
    }

    /// The values (or links) each dropped property holds in the store `database` reads as its
    /// main schema, by `Entity.property`; properties that hold none are left out.
    func countDroppedValues(in database: Database) throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for (label, entity, column) in droppedColumns {
            let count = Int(try database.scalar("SELECT COUNT(*) FROM \(entity.tableName) WHERE \(entity.kindCondition) AND \(column) IS NOT NULL")?.int64Value ?? 0)
            if count > 0 { counts[label] = count }
        }
        return counts
    }
}
