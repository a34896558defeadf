// The DDL of a layout, written as Core Data writes it (`CREATE TABLE ZBOOK ( Z_PK INTEGER
// PRIMARY KEY, … )`), so that a store Strata creates reads like one Core Data created.

extension StoreLayout {
    /// The statements that create the entity and join tables, their indexes and the triggers
    /// of derived attributes, in the order Core Data runs them: tables in entity order (a join
    /// table after its entity's), then indexes, then triggers.
    var createStatements: [String] {
        let entityTables = tables.filter { $0.primaryKey.isEmpty }
        var ordered: [Table] = []
        for table in entityTables {
            ordered.append(table)
            let hierarchy = Set(entities.filter { $0.tableName == table.name }.map(\.name))
            for join in joinTables where hierarchy.contains(join.relationship.entity) {
                if let joinTable = tables.first(where: { $0.name == join.name }) { ordered.append(joinTable) }
            }
        }
        return ordered.map(\.createStatement) + indexes.map(\.createStatement) + triggers.map(\.createStatement)
    }

    /// The bookkeeping tables every store has, as Core Data creates them. (Stores of Core Data
    /// 637 and later also have `Z_MODELCACHE`, an archived copy of the model, which
    /// `ModelCacheEncoder` creates and fills.)
    static let bookkeepingStatements = [
        "CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)",
        "CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)",
    ]
}

extension StoreLayout.Table {
    /// `CREATE TABLE name ( column TYPE, … )`.
    var createStatement: String {
        var parts = columns.map { "\($0.name) \($0.type)" }
        if !primaryKey.isEmpty { parts.append("PRIMARY KEY (\(primaryKey.joined(separator: ", ")))") }
        return "CREATE TABLE \(name) ( \(parts.joined(separator: ", ")) )"
    }
}

extension StoreLayout.Index {
    /// `CREATE [UNIQUE] INDEX name ON table (terms)`.
    var createStatement: String {
        "CREATE \(isUnique ? "UNIQUE " : "")INDEX \(name) ON \(table) (\(terms.joined(separator: ", ")))"
    }
}
