/// Builds a model from a store's schema alone, for stores without a model cache when no model
/// file is given: entities and hierarchy from `Z_PRIMARYKEY`, attributes from column types,
/// to-one relationships from their key indexes, many-to-many (both sides, each the other's
/// inverse) from join tables, and to-many relationships without an inverse from their
/// `Z<n><NAME>` key columns on the destination's table.
///
/// Column names lose their case (`ZFIRSTNAME` becomes `firstname`), sub-entities' columns are
/// all given to the root, and a to-one's destination is found from its `Z<n>_` column or from
/// an entity whose name ends with the column's; a key column whose destination cannot be found
/// stays an Integer 64 attribute.
enum SchemaInference {
    static func model(from schema: StoreSchema) -> ObjectModel {
        let numbers = Dictionary(schema.primaryKeys.map { ($0.entityNumber, $0) }, uniquingKeysWith: { first, _ in first })
        var entities: [String: EntityDescription] = [:]
        for row in schema.primaryKeys {
            var entity = EntityDescription(name: row.entityName)
            entity.superentityName = row.superNumber == 0 ? nil : numbers[row.superNumber]?.entityName
            entities[row.entityName] = entity
        }
        let indexedColumns = Set(schema.indexes.map { "\($0.name)".uppercased() })
        for row in schema.primaryKeys where row.superNumber == 0 {
            guard let table = schema.table(named: "Z" + row.entityName.uppercased()) else { continue }
            let columnNames = Set(table.columns.map(\.name))
            for column in table.columns where column.name.hasPrefix("Z") && !column.name.hasPrefix("Z_") && !isEntityColumn(column.name) {
                if let (ownerNumber, name) = toManyKey(column.name), let owner = numbers[ownerNumber] {
                    entities[owner.entityName]?.relationships.append(RelationshipDescription(name: name, destination: row.entityName, isToMany: true))
                    continue
                }
                let name = String(column.name.dropFirst()).lowercased()
                let entityColumnSuffix = "_" + column.name.dropFirst()
                let entityColumn = columnNames.first { $0.hasSuffix(entityColumnSuffix) && isEntityColumn($0) }
                let isKey = column.type.uppercased() == "INTEGER"
                    && (entityColumn != nil || indexedColumns.contains("\(table.name)_\(column.name)_INDEX".uppercased()))
                if isKey, let destination = destination(of: column.name, entityColumn: entityColumn, schema: schema, numbers: numbers) {
                    entities[row.entityName]?.relationships.append(RelationshipDescription(name: name, destination: destination))
                } else {
                    entities[row.entityName]?.attributes.append(AttributeDescription(name: name, type: attributeType(of: column.type)))
                }
            }
        }
        let joinTables = schema.tables.filter { $0.name.hasPrefix("Z_") && $0.columns.count >= 2 && !$0.name.hasPrefix("Z_FOK") }
        let joinColumnNames = Set(joinTables.flatMap { $0.columns.prefix(2).map(\.name) })
        for table in joinTables {
            guard let owner = joinTableOwner(table.name, numbers: numbers),
                let destinationNumber = leadingNumber(table.columns[1].name), let destination = numbers[destinationNumber]
            else { continue }
            let name = String(table.name.drop { $0 != "_" }.dropFirst().drop(while: \.isNumber)).lowercased()
            var relationship = RelationshipDescription(name: name, destination: destination.entityName, isToMany: true)
            // The first column is named after the relationship pointing back at the owner; a
            // number Core Data appended to keep it apart from another join table's is dropped.
            var inverseName = String(table.columns[0].name.dropFirst(2).drop(while: \.isNumber)).lowercased()
            let unnumbered = String(table.columns[0].name.reversed().drop(while: \.isNumber).reversed())
            if unnumbered != table.columns[0].name, joinColumnNames.contains(unnumbered) {
                inverseName = String(unnumbered.dropFirst(2).drop(while: \.isNumber)).lowercased()
            }
            if inverseName == name, destination.entityName == owner {
                relationship.inverseName = name
            } else if !inverseName.isEmpty, entities[destination.entityName]?.relationships.contains(where: { $0.name == inverseName }) == false {
                relationship.inverseName = inverseName
                var inverse = RelationshipDescription(name: inverseName, destination: owner, isToMany: true)
                inverse.inverseName = name
                entities[destination.entityName]?.relationships.append(inverse)
            }
            entities[owner]?.relationships.append(relationship)
        }
        return ObjectModel(entities: schema.primaryKeys.compactMap { entities[$0.entityName] })
    }

    /// `(1, "documents")` for `Z1DOCUMENTS`, the key column of entity 1's to-many `documents`
    /// without an inverse; `nil` for other names.
    private static func toManyKey(_ column: String) -> (Int, String)? {
        let rest = column.dropFirst()
        let digits = rest.prefix { $0.isNumber }
        guard column.hasPrefix("Z"), let number = Int(digits), rest.count > digits.count else { return nil }
        return (number, String(rest.dropFirst(digits.count)).lowercased())
    }

    private static func attributeType(of sqlType: String) -> AttributeType {
        switch sqlType.uppercased() {
        case "INTEGER": .integer64
        case "FLOAT", "REAL", "DOUBLE": .double
        case "TIMESTAMP": .date
        case "DECIMAL": .decimal
        case "BLOB": .binary
        default: .string
        }
    }

    /// Whether `name` is a to-one's entity column, `Z<digits>_<NAME>` (`Z3_AUTHOR`).
    ///
    /// Matched by hand rather than with a regular expression: the check runs for every pair of
    /// columns of a table, and Foundation compiles the pattern anew on each call, which made
    /// inference most of a command's start-up on a store without a model cache.
    private static func isEntityColumn(_ name: String) -> Bool {
        let bytes = name.utf8
        guard bytes.first == UInt8(ascii: "Z") else { return false }
        let afterZ = bytes.dropFirst()
        let digits = afterZ.prefix { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }.count
        return digits > 0 && afterZ.dropFirst(digits).first == UInt8(ascii: "_")
    }

    private static func destination(
        of column: String, entityColumn: String?, schema: StoreSchema, numbers: [Int: StoreSchema.PrimaryKeyRow]
    ) -> String? {
        if let entityColumn, let number = Int(entityColumn.dropFirst().prefix { $0.isNumber }), let row = numbers[number] {
            return row.entityName
        }
        let stem = column.dropFirst().uppercased()
        return schema.primaryKeys.first { $0.entityName.uppercased() == stem }?.entityName
            ?? schema.primaryKeys.first { $0.superNumber == 0 && $0.entityName.uppercased().hasSuffix(stem) }?.entityName
    }

    /// The entity a join table `Z_<n><NAME>` belongs to.
    private static func joinTableOwner(_ table: String, numbers: [Int: StoreSchema.PrimaryKeyRow]) -> String? {
        leadingNumber(table).flatMap { numbers[$0]?.entityName }
    }

    /// `3` for `Z_3CHILDCOLLECTIONS`.
    private static func leadingNumber(_ name: String) -> Int? {
        guard name.hasPrefix("Z_") else { return nil }
        return Int(name.dropFirst(2).prefix { $0.isNumber })
    }
}
