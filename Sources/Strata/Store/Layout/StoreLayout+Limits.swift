extension StoreLayout {
    /// The most columns a table may have: SQLite's default `SQLITE_MAX_COLUMN`, which the
    /// system's SQLite (and Apple's) is built with. A wider table cannot be created, and a store
    /// made by a SQLite built with a higher limit could not be opened by others.
    static let maximumColumnCount = 2000

    /// The tables Core Data keeps for itself in every store.
    static let bookkeepingTableNames = ["Z_PRIMARYKEY", "Z_METADATA", "Z_MODELCACHE"]

    /// What a valid model holds that Strata cannot store yet: Composite attributes, whose
    /// elements Core Data keeps in columns of their own that no store in hand shows the names of.
    /// Part of ``issues(layingOut:)``, so that `model validate` and `create` agree.
    static func unstorableIssues(of model: ObjectModel) -> [ModelIssue] {
        model.entities.flatMap { entity in
            entity.attributes.filter { $0.type == .composite && !$0.isTransient }.map { attribute in
                ModelIssue(.error, entity: entity.name, property: attribute.name, "Strata cannot store Composite attributes yet")
            }
        }
    }

    /// What keeps `model`, a model that ``ObjectModel/validate()`` found no error in, from being
    /// laid out in a store: a table wider than ``maximumColumnCount``, and an entity table whose
    /// name is one of Core Data's own tables' or another table's or index's.
    ///
    /// Names are compared without regard to case, as SQLite compares them: `Book` and `BOOK`
    /// would both need the table `ZBOOK`. Tables and indexes share one namespace in SQLite, so an
    /// entity named `BOOK_ZAUTHOR_INDEX` collides with the index of `Book.author` too. No store
    /// written by Core Data shows what it does with such models (a number appended, as for
    /// columns, is a guess that another tool would not share), so the model is refused: the
    /// store would otherwise fail half-way through its `CREATE` statements or, for
    /// `Z_MODELCACHE`, overwrite Core Data's own table.
    package static func issues(layingOut model: ObjectModel) -> [ModelIssue] {
        let layout = StoreLayout(model: model)
        var issues = unstorableIssues(of: model)
        let rootOfTable = Dictionary(
            layout.entities.filter { $0.superNumber == 0 }.map { ($0.tableName, $0.name) }, uniquingKeysWith: { first, _ in first })
        let bookkeeping = Set(bookkeepingTableNames)
        // The entity whose table took each name (uppercased), in Z_ENT order.
        var tableOwners: [String: String] = [:]
        for entity in layout.entities where entity.superNumber == 0 {
            if bookkeeping.contains(entity.tableName.uppercased()) {
                issues.append(ModelIssue(
                    .error, entity: entity.name,
                    "the entity's table would be named \(entity.tableName), the name of a table Core Data keeps for itself; rename the entity"))
            } else if let earlier = tableOwners[entity.tableName.uppercased()] {
                issues.append(ModelIssue(
                    .error, entity: entity.name,
                    "the entity's table would be named \(entity.tableName), as is the table of entity '\(earlier)': SQLite does not tell names apart by case; rename one entity"))
            } else {
                tableOwners[entity.tableName.uppercased()] = entity.name
            }
        }
        for table in layout.tables where !table.primaryKey.isEmpty {
            if let entity = tableOwners[table.name.uppercased()] {
                issues.append(ModelIssue(.error, entity: entity, "the entity's table has the name of the many-to-many join table \(table.name); rename the entity"))
            }
        }
        for index in layout.indexes {
            if let entity = tableOwners[index.name.uppercased()] {
                let owner = rootOfTable[index.table].map { " (on the table of '\($0)')" } ?? ""
                issues.append(ModelIssue(.error, entity: entity, "the entity's table has the name of the index \(index.name)\(owner); rename the entity"))
            }
        }
        for table in layout.tables where table.columns.count > maximumColumnCount {
            guard let root = rootOfTable[table.name] else { continue }
            let first = table.columns[maximumColumnCount].name
            let owner = layout.entities.filter { $0.tableName == table.name }.lazy.compactMap { entity -> (String, String)? in
                if let property = entity.attributeColumns.first(where: { $0.value == first })?.key { return (entity.name, property) }
                let toOne = entity.toOneColumns.first { [$0.value.key, $0.value.entity, $0.value.order].contains(first) }
                return toOne.map { (entity.name, $0.key) }
            }.first
            issues.append(ModelIssue(
                .error, entity: owner?.0 ?? root, property: owner?.1,
                "the table \(table.name) of entity '\(root)' and its sub-entities would have \(table.columns.count) columns; SQLite allows at most \(maximumColumnCount) (Z_PK, Z_ENT, Z_OPT, one per attribute and to-one key, and a Z<n>_ column per to-one whose destination has sub-entities), and the column \(first) is past the limit"))
        }
        return issues
    }
}
