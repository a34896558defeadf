extension StoreLayout {
    /// The columns this layout reads and writes that the tables of `schema` lack, each once,
    /// in entity number order and by property name: what a store made by hand or by another
    /// tool leaves out. A table the schema lacks altogether is not listed column by column.
    package func missingColumns(in schema: StoreSchema, model: ObjectModel) -> [MissingColumn] {
        var missing: [MissingColumn] = []
        var seen: Set<String> = []
        // SQLite compares column names without case. Each table's names are folded once, so
        // that the check costs one look-up per column however wide the table.
        var storedColumns: [String: (table: StoreSchema.Table, names: Set<String>)] = [:]
        func check(_ table: String, _ column: String?, _ entity: String, _ property: String, _ kind: MissingColumn.Kind) {
            guard let column else { return }
            let key = table.lowercased()
            if storedColumns[key] == nil, let stored = schema.table(named: table) {
                storedColumns[key] = (stored, Set(stored.columns.map { $0.name.lowercased() }))
            }
            guard let stored = storedColumns[key], !stored.names.contains(column.lowercased()),
                seen.insert("\(key).\(column.lowercased())").inserted
            else { return }
            missing.append(MissingColumn(table: stored.table.name, column: column, entity: entity, property: property, kind: kind))
        }
        // Parents come before their sub-entities, so a parent's table of declaring entities is
        // complete when its sub-entities extend it: an inherited column is named after the
        // entity that declares it, in time linear in the layout's size (a deep hierarchy's
        // walk per column was cubic).
        var declarers: [String: [String: String]] = [:]
        for entity in entities {
            var declaring = model.entity(named: entity.name)?.superentityName.flatMap { declarers[$0] } ?? [:]
            if let description = model.entity(named: entity.name) {
                for property in description.attributes.map(\.name) + description.relationships.map(\.name) where declaring[property] == nil {
                    declaring[property] = entity.name
                }
            }
            declarers[entity.name] = declaring
            let declarer = { (property: String) in declaring[property] ?? entity.name }
            for (name, column) in entity.attributeColumns.sorted(by: { $0.key < $1.key }) {
                check(entity.tableName, column, declarer(name), name, .attribute)
            }
            for (name, columns) in entity.toOneColumns.sorted(by: { $0.key < $1.key }) {
                check(entity.tableName, columns.key, declarer(name), name, .toOne)
                check(entity.tableName, columns.entity, declarer(name), name, .toOneEntity)
                check(entity.tableName, columns.order, declarer(name), name, .toOneOrder)
            }
            for (name, column) in entity.toManyKeyColumns.sorted(by: { $0.key < $1.key }) {
                guard let description = model.entity(named: entity.name), let relationship = model.relationship(named: name, in: description),
                    let destination = self.entity(named: relationship.destinationEntityName)
                else { continue }
                check(destination.tableName, column, declarer(name), name, .toManyKey)
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
