// The copy of the objects' rows: one `INSERT … SELECT` per pair of a destination table and a
// source table whose objects land in it, run in batches of primary keys. Attributes are
// converted in SQL; to-one keys that stay to-one are copied with their entity numbers mapped,
// and positions in a newly ordered inverse are numbered in key order afterwards.

extension MigrationStep {
    /// The copy of the rows of one source table into one destination table.
    struct RowCopy: Sendable {
        /// `INSERT INTO main.T (…) SELECT … FROM src.S WHERE … AND Z_PK BETWEEN ?1 AND ?2`:
        /// a batch of rows, by primary key.
        var sql: String
        var sourceTable: String
        var destinationTable: String
        /// The source entity numbers whose rows it copies.
        var sourceEntityNumbers: [Int]
        /// The condition that selects those rows in the source table.
        var sourceCondition: String
    }

    /// The row copies, in destination table order.
    var rowCopies: [RowCopy] {
        var copies: [RowCopy] = []
        for table in destinationLayout.tables where table.primaryKey.isEmpty {
            var groups: [(table: String, members: [Member])] = []
            for destination in destinationLayout.entities where destination.tableName == table.name {
                guard let entity = mapping.entity(named: destination.name), let source = entity.source,
                    let sourceEntity = sourceLayout.entity(named: source.name)
                else { continue }
                let member = Member(source: sourceEntity, destination: destination, mapping: entity)
                if let index = groups.firstIndex(where: { $0.table == sourceEntity.tableName }) {
                    groups[index].members.append(member)
                } else {
                    groups.append((sourceEntity.tableName, [member]))
                }
            }
            for (sourceTable, members) in groups {
                copies.append(rowCopy(into: table, from: sourceTable, members: members))
            }
        }
        return copies
    }

    /// A destination entity and the source entity whose rows become its own.
    private struct Member {
        let source: StoreLayout.Entity
        let destination: StoreLayout.Entity
        let mapping: ModelMapping.EntityMapping
    }

    private func rowCopy(into table: StoreLayout.Table, from sourceTable: String, members: [Member]) -> RowCopy {
        // Every row of a table one entity holds alone is that entity's, whatever its Z_ENT says.
        let alone = members.count == 1 && members[0].source.holdsTableAlone ? members[0] : nil
        let entityNumber = alone.map { String($0.destination.number) } ?? mappedEntityNumber("Z_ENT")
        var columns = ["Z_PK", "Z_ENT", "Z_OPT"], values = ["Z_PK", entityNumber, "Z_OPT"]
        for column in table.columns.dropFirst(3) {
            var expressions: [(number: Int, sql: String)] = []
            for member in members {
                if let sql = expression(for: column.name, of: member) {
                    expressions.append((member.source.number, sql))
                }
            }
            guard let first = expressions.first else { continue }
            columns.append(column.name)
            if expressions.count == members.count, expressions.allSatisfy({ $0.sql == first.sql }) {
                values.append(first.sql)
            } else {
                values.append("CASE Z_ENT " + expressions.map { "WHEN \($0.number) THEN \($0.sql)" }.joined(separator: " ") + " END")
            }
        }
        let numbers = members.map(\.source.number)
        let condition = alone?.source.kindCondition ?? "Z_ENT IN (\(numbers.map(String.init).joined(separator: ", ")))"
        let sql = "INSERT INTO main.\(table.name) (\(columns.joined(separator: ", "))) SELECT \(values.joined(separator: ", ")) "
            + "FROM src.\(sourceTable) WHERE \(condition) AND Z_PK BETWEEN ?1 AND ?2"
        return RowCopy(sql: sql, sourceTable: sourceTable, destinationTable: table.name, sourceEntityNumbers: numbers, sourceCondition: condition)
    }

    /// Positions in ordered to-manys that the input did not keep (the relationship was not
    /// ordered), numbered in key order once every row is in, whichever table they came from.
    var positionStatements: [String] {
        var statements: [String] = []
        for layout in destinationLayout.entities {
            guard let entity = mapping.destination.entity(named: layout.name), let entityMapping = mapping.entity(named: layout.name),
                let owner = entityMapping.source.flatMap({ sourceLayout.entity(named: $0.name) })
            else { continue }
            for relationship in entity.relationships where !relationship.isToMany {
                guard let columns = layout.toOneColumns[relationship.name], let order = columns.order,
                    let source = entityMapping.relationships.first(where: { $0.destination.name == relationship.name })?.source,
                    !source.isToMany, owner.toOneColumns[source.name]?.order == nil
                else { continue }
                statements.append("UPDATE main.\(layout.tableName) AS u SET \(order) = p.position FROM (SELECT Z_PK AS pk, "
                    + "ROW_NUMBER() OVER (PARTITION BY \(columns.key) ORDER BY Z_PK) AS position FROM main.\(layout.tableName) "
                    + "WHERE \(layout.kindCondition) AND \(columns.key) IS NOT NULL) AS p WHERE u.Z_PK = p.pk")
            }
        }
        return statements
    }

    /// The value of the destination column `column` for the rows of `member`, as an SQL
    /// expression over the source row; `nil` when it stays NULL (or is written later).
    private func expression(for column: String, of member: Member) -> String? {
        if let attributeName = member.destination.attributeColumns.first(where: { $0.value == column })?.key {
            guard let attribute = member.mapping.attributes.first(where: { $0.destination.name == attributeName }) else { return nil }
            let stored = attribute.source.flatMap { source in
                member.source.attributeColumns[source.name].map {
                    AttributeConversion.externalForm(
                        of: $0, source: source, sourceEntity: member.source.name, destination: attribute.destination, conversion: attribute.conversion)
                }
            }
            guard let fill = attribute.fill?.databaseValue.sqlLiteral else { return stored }
            return stored.map { "COALESCE(\($0), \(fill))" } ?? fill
        }
        guard let (name, columns) = member.destination.toOneColumns.first(where: { [$0.value.key, $0.value.entity, $0.value.order].contains(column) }),
            let source = member.mapping.relationships.first(where: { $0.destination.name == name })?.source, !source.isToMany,
            let stored = member.source.toOneColumns[source.name]
        else { return nil }
        switch column {
        case columns.key:
            return stored.key
        case columns.entity:
            if let entity = stored.entity { return mappedEntityNumber(entity) }
            // The source's destination had no sub-entities: every key is of that one entity.
            guard let number = sourceLayout.entity(named: source.destinationEntityName)?.number, let mapped = entityNumbers[number] else { return nil }
            return "CASE WHEN \(stored.key) IS NOT NULL THEN \(mapped) END"
        default:
            // Positions the input did not keep are numbered afterwards (positionStatements).
            return stored.order
        }
    }
}
