// The layout Core Data gives a model, as observed in stores Core Data wrote (the fixtures, the
// corpus of real apps' stores, and published schemas of Apple apps):
//
// - Entities are numbered 1, 2, … depth first: root entities in name order, each followed by
//   its sub-entities in name order, so that a hierarchy's numbers form one range.
// - A root entity's table `Z<NAME>` holds its whole hierarchy: `Z_PK, Z_ENT, Z_OPT`, then the
//   columns in groups, each group going through the hierarchy in number order and each
//   entity's columns in name order: integers and booleans, then to-one keys (each followed by
//   its `Z<n>_` entity column and `Z_FOK_` order column when it has them); dates and floating
//   point; decimals; strings; binary data. A name taken earlier in the table gets a number
//   (`ZFOLDER1`).
// - A many-to-many gets a join table named after the side with the lower entity number
//   (`Z_<n><NAME>`), with a column per side named after the relationship that points to that
//   side. A column name another join table already uses gets the next free number
//   (`Z_2ARTISTS1`), the tables taken by entity number and, within an entity, by relationship
//   name from the last. A reflexive one is named after the shorter of its two names, then the
//   lower (`Z_2BLOCKING` for blocking/blockedBy, `Z_3CHILDCOLLECTIONS` for
//   childCollections/parentCollections). Core Data's own order within an entity follows its
//   hash tables, which no rule reproduces in general: these rules fit every store seen, and a
//   store is always opened with the names it has.
// - Indexes: `<TABLE>_<COLUMN>_INDEX` for to-one keys, `<TABLE>_Z_ENT_INDEX` on a table that
//   holds a hierarchy, `Z_<Entity>_<name>` for fetch indexes, `Z_<Entity>_UNIQUE_<properties>`
//   (names as the model spells them, `Z_Car_UNIQUE_numberPlate`) for uniqueness constraints. Two rules changed across Core Data releases (the store's
//   `NSPersistenceFrameworkVersion`): join tables got an index over the reversed pair, and
//   attributes marked indexed became fetch indexes named after the attribute; before that they
//   had a plain `<TABLE>_<COLUMN>_INDEX`.
//
// The column group of Float and Double next to dates, and the names of compound-index indexes,
// were not seen in a real store; they follow the nearest observed rule.

extension StoreLayout {
    /// The layout Core Data would give a new store for `model`, or, given an existing store's
    /// `schema`, the layout that store uses for the model: its entity numbers and its join
    /// table names where they differ from Strata's choice. The model must be valid.
    ///
    /// `frameworkVersion` is the Core Data release (`NSPersistenceFrameworkVersion`) whose rules
    /// the indexes follow where they changed across releases; by default the one Strata records.
    package init(model: ObjectModel, matching schema: StoreSchema? = nil, frameworkVersion: Int64 = StoreMetadata.frameworkVersion) {
        var numbering = Self.entityNumbers(of: model)
        if let schema {
            for (name, number) in schema.entityNumbers where numbering.numbers[name] != nil { numbering.numbers[name] = number }
            numbering.orderedEntities.sort { numbering.numbers[$0.name]! < numbering.numbers[$1.name]! }
        }
        var builder = LayoutBuilder(model: model, numbers: numbering, frameworkVersion: frameworkVersion)
        builder.existingTables = schema.map { Set($0.tables.map(\.name)) }
        for root in numbering.orderedEntities where root.superentityName == nil {
            builder.addHierarchy(of: root)
        }
        builder.addJoinTables()
        builder.addIndexes()
        self.init(entities: builder.entities, tables: builder.tables, joinTables: builder.joinTables, indexes: builder.indexes)
        if let schema { adoptColumnNames(of: schema) }
        let derived = Self.derivedAttributeSQL(of: model, in: self)
        triggers = derived.flatMap(\.triggers)
        derivedValueStatements = derived.map(\.fill)
    }

    /// Where the store names a column differently from Strata's choice (another collision
    /// number, say `ZNAME1` for `ZNAME`), uses the store's name: the unclaimed column of the
    /// table that is the property's `Z<NAME>` followed by digits. A to-one's `Z<n>_` and
    /// `Z_FOK_` columns follow its key. Join tables take their columns from the store in order:
    /// the source side first, as Core Data writes them.
    private mutating func adoptColumnNames(of schema: StoreSchema) {
        for tableName in Set(entities.map(\.tableName)) {
            guard let table = schema.table(named: tableName) else { continue }
            let existing = Set(table.columns.map(\.name))
            let indices = entities.indices.filter { entities[$0].tableName == tableName }
            // (planned column, the property's base name) for every column the entities plan.
            var planned: [String: String] = [:]
            for index in indices {
                for (name, column) in entities[index].attributeColumns { planned[column] = "Z" + name.uppercased() }
                for (name, columns) in entities[index].toOneColumns { planned[columns.key] = "Z" + name.uppercased() }
            }
            var claimed = Set(planned.keys).intersection(existing)
            var renames: [String: String] = [:]
            for (column, base) in planned.sorted(by: { $0.key < $1.key }) where !existing.contains(column) {
                let candidate = table.columns.map(\.name).first { name in
                    !claimed.contains(name) && name.hasPrefix(base) && name.dropFirst(base.count).allSatisfy(\.isNumber)
                }
                guard let candidate else { continue }
                renames[column] = candidate
                claimed.insert(candidate)
            }
            guard !renames.isEmpty else { continue }
            for index in indices {
                entities[index].attributeColumns = entities[index].attributeColumns.mapValues { renames[$0] ?? $0 }
                entities[index].toOneColumns = entities[index].toOneColumns.mapValues { columns in
                    guard let renamed = renames[columns.key], let base = planned[columns.key] else { return columns }
                    let oldSuffix = columns.key.dropFirst(base.count), newSuffix = renamed.dropFirst(base.count)
                    let resuffixed = { (name: String) in String(name.dropLast(oldSuffix.count)) + newSuffix }
                    return ToOneColumns(key: renamed, entity: columns.entity.map(resuffixed), order: columns.order.map(resuffixed))
                }
            }
        }
        for index in joinTables.indices {
            // The names become SQL text: a store's name that is not a plain identifier is not taken.
            guard let table = schema.table(named: joinTables[index].name), table.columns.count >= 2,
                table.columns[0...1].allSatisfy({ ObjectModel.isIdentifier($0.name) })
            else { continue }
            joinTables[index].sourceColumn = table.columns[0].name
            joinTables[index].destinationColumn = table.columns[1].name
        }
    }

    /// Entities in `Z_ENT` order, with their numbers.
    static func entityNumbers(of model: ObjectModel) -> (orderedEntities: [EntityDescription], numbers: [String: Int]) {
        var ordered: [EntityDescription] = []
        func visit(_ entity: EntityDescription) {
            ordered.append(entity)
            for child in model.directSubentities(of: entity).sorted(by: { $0.name < $1.name }) { visit(child) }
        }
        for root in model.entities.filter({ $0.superentityName == nil }).sorted(by: { $0.name < $1.name }) { visit(root) }
        var numbers: [String: Int] = [:]
        for (index, entity) in ordered.enumerated() { numbers[entity.name] = index + 1 }
        return (ordered, numbers)
    }
}

/// The SQL type of an attribute's column and the group it is placed in.
func columnType(of type: AttributeType) -> (sql: String, group: Int)? {
    switch type {
    case .integer16, .integer32, .integer64, .boolean, .objectID: ("INTEGER", 0)
    case .date: ("TIMESTAMP", 1)
    case .double, .float: ("FLOAT", 1)
    case .decimal: ("DECIMAL", 2)
    case .string, .uri: ("VARCHAR", 3)
    case .binary, .transformable, .uuid: ("BLOB", 4)
    case .undefined, .composite: nil
    }
}

extension StoreLayout {
    /// The first Core Data release known to index a join table over its reversed pair: seen in
    /// stores of release 637 and later, absent from those of 519 and earlier.
    static let joinTableIndexesSince: Int64 = 600
    /// The first Core Data release taken to make an attribute marked indexed a fetch index
    /// (`Z_<Entity>_<attribute>`): fetch indexes came with iOS 11, whose release numbers start
    /// in the 800s; stores of release 519 and earlier have `<TABLE>_<COLUMN>_INDEX`, those of
    /// 1522 the fetch index.
    static let indexedAttributesAsFetchIndexesSince: Int64 = 800
}

private struct LayoutBuilder {
    let model: ObjectModel
    let ordered: [EntityDescription]
    let numbers: [String: Int]
    /// The root of each entity's hierarchy, by entity name: looked up per entity and relationship.
    let rootNames: [String: String]
    var entities: [StoreLayout.Entity] = []
    var tables: [StoreLayout.Table] = []
    var joinTables: [StoreLayout.JoinTable] = []
    var indexes: [StoreLayout.Index] = []
    /// Columns each entity declares itself, by property name.
    var declaredAttributeColumns: [String: [String: String]] = [:]
    var declaredToOneColumns: [String: [String: StoreLayout.ToOneColumns]] = [:]
    var declaredToManyKeyColumns: [String: [String: String]] = [:]
    /// The tables of the store being matched, if any: a join table it names from the other
    /// side keeps that name.
    var existingTables: Set<String>?
    /// The Core Data release whose index rules apply.
    let frameworkVersion: Int64

    init(model: ObjectModel, numbers: (orderedEntities: [EntityDescription], numbers: [String: Int]), frameworkVersion: Int64) {
        self.model = model
        self.ordered = numbers.orderedEntities
        self.numbers = numbers.numbers
        self.frameworkVersion = frameworkVersion
        // `ordered` visits a parent before its subentities.
        var rootNames: [String: String] = [:]
        for entity in ordered { rootNames[entity.name] = entity.superentityName.flatMap { rootNames[$0] } ?? entity.name }
        self.rootNames = rootNames
        for entity in ordered {
            for relationship in entity.relationships where relationship.isToMany && !relationship.isTransient && relationship.inverseName == nil {
                declaredToManyKeyColumns[entity.name, default: [:]][relationship.name] = "Z\(self.numbers[entity.name]!)\(relationship.name.uppercased())"
            }
        }
    }

    /// The to-manys without an inverse whose destinations lie in `root`'s table, in entity
    /// number order, then by name: their key columns come after the hierarchy's to-one keys.
    private func toManyKeyColumns(into root: EntityDescription) -> [String] {
        ordered.flatMap { owner in
            owner.relationships.filter { relationship in
                guard declaredToManyKeyColumns[owner.name]?[relationship.name] != nil,
                    let destination = model.entity(named: relationship.destinationEntityName)
                else { return false }
                return (rootNames[destination.name] ?? model.rootEntity(of: destination).name) == root.name
            }
            .sorted { $0.name < $1.name }
            .compactMap { declaredToManyKeyColumns[owner.name]?[$0.name] }
        }
    }

    // MARK: - Entity tables

    mutating func addHierarchy(of root: EntityDescription) {
        let tableName = "Z" + root.name.uppercased()
        let hierarchy = [root] + ordered.filter { $0.name != root.name && rootNames[$0.name] == root.name }
        var columns = [
            StoreLayout.Column(name: "Z_PK", type: "INTEGER PRIMARY KEY"), StoreLayout.Column(name: "Z_ENT", type: "INTEGER"),
            StoreLayout.Column(name: "Z_OPT", type: "INTEGER"),
        ]
        var taken: Set<String> = ["Z_PK", "Z_ENT", "Z_OPT"]
        func allocate(_ base: String) -> (name: String, suffix: String) {
            var suffix = ""
            var counter = 0
            while taken.contains("Z" + base + suffix) {
                counter += 1
                suffix = String(counter)
            }
            taken.insert("Z" + base + suffix)
            return ("Z" + base + suffix, suffix)
        }
        for group in 0...4 {
            for entity in hierarchy {
                let attributes = entity.attributes
                    .filter { !$0.isTransient && columnType(of: $0.type)?.group == group }
                    .sorted { $0.name < $1.name }
                for attribute in attributes {
                    let column = allocate(attribute.name.uppercased()).name
                    columns.append(StoreLayout.Column(name: column, type: columnType(of: attribute.type)!.sql))
                    declaredAttributeColumns[entity.name, default: [:]][attribute.name] = column
                }
                guard group == 0 else { continue }
                for relationship in entity.relationships.filter({ !$0.isToMany && !$0.isTransient }).sorted(by: { $0.name < $1.name }) {
                    let (key, suffix) = allocate(relationship.name.uppercased())
                    columns.append(StoreLayout.Column(name: key, type: "INTEGER"))
                    var toOne = StoreLayout.ToOneColumns(key: key)
                    if let destination = model.entity(named: relationship.destinationEntityName),
                        !model.directSubentities(of: destination).isEmpty, let number = numbers[destination.name]
                    {
                        let name = "Z\(number)_\(relationship.name.uppercased())\(suffix)"
                        taken.insert(name)
                        columns.append(StoreLayout.Column(name: name, type: "INTEGER"))
                        toOne.entity = name
                    }
                    if let inverseName = relationship.inverseName,
                        let destination = model.entity(named: relationship.destinationEntityName),
                        let inverse = model.relationship(named: inverseName, in: destination), inverse.isToMany, inverse.isOrdered
                    {
                        let name = "Z_FOK_\(relationship.name.uppercased())\(suffix)"
                        taken.insert(name)
                        columns.append(StoreLayout.Column(name: name, type: "INTEGER"))
                        toOne.order = name
                    }
                    declaredToOneColumns[entity.name, default: [:]][relationship.name] = toOne
                }
            }
            if group == 0 {
                for column in toManyKeyColumns(into: root) where taken.insert(column).inserted {
                    columns.append(StoreLayout.Column(name: column, type: "INTEGER"))
                }
            }
        }
        tables.append(StoreLayout.Table(name: tableName, columns: columns))
        for entity in hierarchy {
            let lineage = model.ancestors(of: entity).reversed() + [entity]
            let subNumbers = model.allSubentities(of: entity).compactMap { numbers[$0.name] }
            let number = numbers[entity.name]!
            entities.append(
                StoreLayout.Entity(
                    name: entity.name, number: number,
                    superNumber: entity.superentityName.flatMap { numbers[$0] } ?? 0, tableName: tableName,
                    numberRange: number...max(number, subNumbers.max() ?? number),
                    attributeColumns: lineage.reduce(into: [:]) { $0.merge(declaredAttributeColumns[$1.name] ?? [:]) { $1 } },
                    toOneColumns: lineage.reduce(into: [:]) { $0.merge(declaredToOneColumns[$1.name] ?? [:]) { $1 } },
                    toManyKeyColumns: lineage.reduce(into: [:]) { $0.merge(declaredToManyKeyColumns[$1.name] ?? [:]) { $1 } }))
        }
        entities.sort { $0.number < $1.number }
    }

    // MARK: - Join tables

    /// One many-to-many, seen from the side that names its table.
    private struct ManyToMany {
        var named: StoreLayout.RelationshipPath, other: StoreLayout.RelationshipPath
        var namedRelationship: RelationshipDescription, otherRelationship: RelationshipDescription
        /// The `Z_ENT` of the named side's entity and of its destination.
        var namedNumber: Int, destinationNumber: Int
    }

    mutating func addJoinTables() {
        var usedColumns: Set<String> = []
        /// The name, or with the next free number when another join table has it.
        func unused(_ name: String) -> String {
            var candidate = name, counter = 0
            while usedColumns.contains(candidate) {
                counter += 1
                candidate = name + String(counter)
            }
            usedColumns.insert(candidate)
            return candidate
        }
        let pairs = manyToManyPairs().sorted {
            ($0.namedNumber, $1.namedRelationship.name) < ($1.namedNumber, $0.namedRelationship.name)
        }
        for pair in pairs {
            let tableName = "Z_\(pair.namedNumber)\(pair.namedRelationship.name.uppercased())"
            let sourceColumn = unused("Z_\(pair.namedNumber)\(pair.otherRelationship.name.uppercased())")
            let destinationColumn = unused("Z_\(pair.destinationNumber)\(pair.namedRelationship.name.uppercased())")
            var join = StoreLayout.JoinTable(
                name: tableName, relationship: pair.named, inverse: pair.other, sourceColumn: sourceColumn,
                destinationColumn: destinationColumn)
            var columns = [
                StoreLayout.Column(name: sourceColumn, type: "INTEGER"), StoreLayout.Column(name: destinationColumn, type: "INTEGER"),
            ]
            // An ordered side keeps the position of its members, named after their column.
            for (side, isOrdered, memberColumn) in [
                (pair.named, pair.namedRelationship.isOrdered, destinationColumn), (pair.other, pair.otherRelationship.isOrdered, sourceColumn),
            ] where isOrdered {
                let name = "Z_FOK_" + memberColumn.dropFirst(2)
                join.orderColumns[side] = name
                columns.append(StoreLayout.Column(name: name, type: "INTEGER"))
            }
            joinTables.append(join)
            tables.append(StoreLayout.Table(name: tableName, columns: columns, primaryKey: [sourceColumn, destinationColumn]))
        }
    }

    /// Every many-to-many once, from the side that names its table: the lower entity number;
    /// on one entity, the shorter name, then the lower; unless the store being matched named
    /// it from the other side.
    private func manyToManyPairs() -> [ManyToMany] {
        var done: Set<StoreLayout.RelationshipPath> = []
        var pairs: [ManyToMany] = []
        for entity in ordered {
            for relationship in entity.relationships where relationship.isToMany && !relationship.isTransient {
                let path = StoreLayout.RelationshipPath(entity: entity.name, relationship: relationship.name)
                guard !done.contains(path), let inverseName = relationship.inverseName,
                    let destination = model.entity(named: relationship.destinationEntityName),
                    let inverse = model.relationship(named: inverseName, in: destination), inverse.isToMany,
                    let inverseOwner = model.entityDeclaring(relationship: inverseName, from: destination)
                else { continue }
                let inversePath = StoreLayout.RelationshipPath(entity: inverseOwner.name, relationship: inverseName)
                done.formUnion([path, inversePath])
                let sourceNumber = numbers[entity.name]!, destinationNumber = numbers[destination.name]!
                let inverseNumber = numbers[inverseOwner.name]!
                var namedBySelf =
                    (sourceNumber, relationship.name.count, relationship.name) <= (inverseNumber, inverseName.count, inverseName)
                if let existingTables {
                    let selfName = "Z_\(sourceNumber)\(relationship.name.uppercased())"
                    let inverseTableName = "Z_\(inverseNumber)\(inverseName.uppercased())"
                    if namedBySelf, !existingTables.contains(selfName), existingTables.contains(inverseTableName) { namedBySelf = false }
                    if !namedBySelf, !existingTables.contains(inverseTableName), existingTables.contains(selfName) { namedBySelf = true }
                }
                pairs.append(
                    namedBySelf
                        ? ManyToMany(
                            named: path, other: inversePath, namedRelationship: relationship, otherRelationship: inverse,
                            namedNumber: sourceNumber, destinationNumber: destinationNumber)
                        : ManyToMany(
                            named: inversePath, other: path, namedRelationship: inverse, otherRelationship: relationship,
                            namedNumber: inverseNumber, destinationNumber: sourceNumber))
            }
        }
        return pairs
    }

    // MARK: - Indexes

    mutating func addIndexes() {
        var names: Set<String> = []
        func add(_ index: StoreLayout.Index) {
            if names.insert(index.name).inserted { indexes.append(index) }
        }
        for layout in entities {
            let entity = model.entity(named: layout.name)!
            let table = layout.tableName
            for relationship in entity.relationships.sorted(by: { $0.name < $1.name }) {
                if let key = declaredToOneColumns[entity.name]?[relationship.name]?.key {
                    add(StoreLayout.Index(name: "\(table)_\(key)_INDEX", table: table, terms: [key]))
                }
                if let key = declaredToManyKeyColumns[entity.name]?[relationship.name],
                    let destination = entities.first(where: { $0.name == relationship.destinationEntityName })
                {
                    add(StoreLayout.Index(name: "\(destination.tableName)_\(key)_INDEX", table: destination.tableName, terms: [key]))
                }
            }
            if frameworkVersion >= StoreLayout.joinTableIndexesSince {
                for join in joinTables where join.relationship.entity == entity.name {
                    add(StoreLayout.Index(
                        name: "\(join.name)_\(join.destinationColumn)_INDEX", table: join.name,
                        terms: [join.destinationColumn, join.sourceColumn]))
                }
            }
            var fetchIndexes = entity.fetchIndexes
            let indexedAsFetchIndexes = frameworkVersion >= StoreLayout.indexedAttributesAsFetchIndexesSince
            for attribute in entity.attributes where attribute.isIndexed && !fetchIndexes.contains(where: { $0.name == attribute.name }) {
                if indexedAsFetchIndexes {
                    fetchIndexes.append(FetchIndexDescription(name: attribute.name, elements: [.init(property: attribute.name)]))
                } else if let column = layout.attributeColumns[attribute.name] {
                    add(StoreLayout.Index(name: "\(table)_\(column)_INDEX", table: table, terms: [column]))
                }
            }
            for index in fetchIndexes {
                let terms = index.elements.map { element -> String? in
                    guard element.expressionType == nil, let column = layout.attributeColumns[element.property] else { return nil }
                    return "\(column) COLLATE BINARY \(element.isAscending ? "ASC" : "DESC")"
                }
                guard !terms.isEmpty, terms.allSatisfy({ $0 != nil }) else { continue }
                add(StoreLayout.Index(name: "Z_\(entity.name)_\(index.name)", table: table, terms: terms.compactMap { $0 }))
            }
            for constraint in entity.uniquenessConstraints {
                let columns = constraint.compactMap(layout.column(for:))
                guard columns.count == constraint.count else { continue }
                // As the CoreDataPlus stores have them: the entity's and the properties' names as
                // the model spells them, each column in binary ascending order, like a fetch index.
                add(StoreLayout.Index(
                    name: "Z_\(entity.name)_UNIQUE_\(constraint.joined(separator: "_"))",
                    table: table, terms: columns.map { "\($0) COLLATE BINARY ASC" }, isUnique: true))
            }
            for compound in entity.compoundIndexes {
                let columns = compound.compactMap(layout.column(for:))
                guard columns.count == compound.count else { continue }
                add(StoreLayout.Index(name: "\(table)_\(columns.joined(separator: "_"))_INDEX", table: table, terms: columns))
            }
            // A table holding several entities is read by Z_ENT: indexed after its root's own.
            if entity.superentityName == nil, entities.contains(where: { $0.tableName == table && $0.name != entity.name }) {
                add(StoreLayout.Index(name: "\(table)_Z_ENT_INDEX", table: table, terms: ["Z_ENT"]))
            }
        }
    }
}
