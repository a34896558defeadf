extension StoreLayout {
    /// The columns this layout reads and writes that the tables of `schema` lack, each once,
    /// in entity number order and by property name: what a store made by hand or by another
    /// tool leaves out. A table the schema lacks altogether is not listed column by column.
    public func missingColumns(in schema: StoreSchema, model: ObjectModel) -> [MissingColumn] {
        var missing: [MissingColumn] = []
        var seen: Set<String> = []
        func check(_ table: String, _ column: String?, _ entity: String, _ property: String, _ kind: MissingColumn.Kind) {
            guard let column, let stored = schema.table(named: table),
                !stored.columns.contains(where: { $0.name.caseInsensitiveCompare(column) == .orderedSame }),
                seen.insert("\(table).\(column)").inserted
            else { return }
            missing.append(MissingColumn(table: stored.name, column: column, entity: entity, property: property, kind: kind))
        }
        // Parents come before their sub-entities: an inherited column is named after the
        // entity that declares it.
        for entity in entities {
            let declaring = { (property: String) in
                model.entity(named: entity.name).map { description in
                    (model.ancestors(of: description).reversed() + [description]).first {
                        $0.attribute(named: property) != nil || $0.relationship(named: property) != nil
                    }?.name ?? entity.name
                } ?? entity.name
            }
            for (name, column) in entity.attributeColumns.sorted(by: { $0.key < $1.key }) {
                check(entity.tableName, column, declaring(name), name, .attribute)
            }
            for (name, columns) in entity.toOneColumns.sorted(by: { $0.key < $1.key }) {
                check(entity.tableName, columns.key, declaring(name), name, .toOne)
                check(entity.tableName, columns.entity, declaring(name), name, .toOneEntity)
                check(entity.tableName, columns.order, declaring(name), name, .toOneOrder)
            }
            for (name, column) in entity.toManyKeyColumns.sorted(by: { $0.key < $1.key }) {
                guard let description = model.entity(named: entity.name), let relationship = model.relationship(named: name, in: description),
                    let destination = self.entity(named: relationship.destinationEntityName)
                else { continue }
                check(destination.tableName, column, declaring(name), name, .toManyKey)
            }
        }
        for join in joinTables {
            let path = join.relationship
            check(join.name, join.sourceColumn, path.entity, path.relationship, .joinTable)
            check(join.name, join.destinationColumn, path.entity, path.relationship, .joinTable)
            for (owner, column) in join.orderColumns.sorted(by: { $0.value < $1.value }) {
                check(join.name, column, owner.entity, owner.relationship, .joinTable)
            }
        }
        return missing
    }
}
