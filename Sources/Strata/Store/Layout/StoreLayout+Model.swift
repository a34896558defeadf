// The layout Core Data gives a model, as observed in stores Core Data wrote (the fixtures and
// published schemas of Apple apps):
//
// - Entities are numbered 1, 2, … depth first: root entities in name order, each followed by
//   its sub-entities in name order, so that a hierarchy's numbers form one range.
// - A root entity's table `Z<NAME>` holds its whole hierarchy: `Z_PK, Z_ENT, Z_OPT`, then the
//   columns in groups, each group going through the hierarchy in number order and each
//   entity's columns in name order: integers and booleans, then to-one keys (each followed by
//   its `Z<n>_` entity column and `Z_FOK_` order column when it has them); dates and floating
//   point; strings; binary data. A name taken earlier in the table gets a number (`ZFOLDER1`).
// - A many-to-many gets a join table named after the side of the lower entity number (then
//   the lower relationship name): `Z_<n><NAME>`, with a column per side named after the
//   relationship that points to that side.
// - Indexes: `<TABLE>_<COLUMN>_INDEX` for to-one keys and join tables, `Z_<Entity>_<name>`
//   for fetch indexes (and attributes marked indexed), `Z_<ENTITY>_UNIQUE_<PROPERTIES>` for
//   uniqueness constraints.
//
// The column group of Decimal, and the names of compound-index indexes, were not seen in a
// real store; they follow the nearest observed rule.

extension StoreLayout {
    /// The layout Core Data would give a new store for `model`, or, given an existing store's
    /// `schema`, the layout that store uses for the model: its entity numbers and its join
    /// table names where they differ from Strata's choice. The model must be valid.
    public init(model: ObjectModel, matching schema: StoreSchema? = nil) {
        var numbering = Self.entityNumbers(of: model)
        if let schema {
            for (name, number) in schema.entityNumbers where numbering.numbers[name] != nil { numbering.numbers[name] = number }
            numbering.orderedEntities.sort { numbering.numbers[$0.name]! < numbering.numbers[$1.name]! }
        }
        var builder = LayoutBuilder(model: model, numbers: numbering)
        builder.existingTables = schema.map { Set($0.tables.map(\.name)) }
        for root in numbering.orderedEntities where root.superentityName == nil {
            builder.addHierarchy(of: root)
        }
        builder.addJoinTables()
        builder.addIndexes()
        self.init(entities: builder.entities, tables: builder.tables, joinTables: builder.joinTables, indexes: builder.indexes)
        if let schema { adoptColumnNames(of: schema) }
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
    case .decimal: ("DECIMAL", 1)
    case .string, .uri: ("VARCHAR", 2)
    case .binary, .transformable, .uuid: ("BLOB", 3)
    case .undefined: nil
    }
}

private struct LayoutBuilder {
    let model: ObjectModel
    let ordered: [EntityDescription]
    let numbers: [String: Int]
    var entities: [StoreLayout.Entity] = []
    var tables: [StoreLayout.Table] = []
    var joinTables: [StoreLayout.JoinTable] = []
    var indexes: [StoreLayout.Index] = []
    /// Columns each entity declares itself, by property name.
    var declaredAttributeColumns: [String: [String: String]] = [:]
    var declaredToOneColumns: [String: [String: StoreLayout.ToOneColumns]] = [:]
    /// The tables of the store being matched, if any: a join table it names from the other
    /// side keeps that name.
    var existingTables: Set<String>?

    init(model: ObjectModel, numbers: (orderedEntities: [EntityDescription], numbers: [String: Int])) {
        self.model = model
        self.ordered = numbers.orderedEntities
        self.numbers = numbers.numbers
    }

    // MARK: - Entity tables

    mutating func addHierarchy(of root: EntityDescription) {
        let tableName = "Z" + root.name.uppercased()
        let hierarchy = [root] + ordered.filter { $0.name != root.name && model.rootEntity(of: $0).name == root.name }
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
        for group in 0...3 {
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
                    toOneColumns: lineage.reduce(into: [:]) { $0.merge(declaredToOneColumns[$1.name] ?? [:]) { $1 } }))
        }
        entities.sort { $0.number < $1.number }
    }

    // MARK: - Join tables

    mutating func addJoinTables() {
        var done: Set<StoreLayout.RelationshipPath> = []
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
                // The side with the lower entity number, then the lower name, names the table,
                // unless the store being matched named it from the other side.
                var namedBySelf = (sourceNumber, relationship.name) <= (inverseNumber, inverseName)
                if let existingTables {
                    let selfName = "Z_\(sourceNumber)\(relationship.name.uppercased())"
                    let inverseTableName = "Z_\(inverseNumber)\(inverseName.uppercased())"
                    if namedBySelf, !existingTables.contains(selfName), existingTables.contains(inverseTableName) { namedBySelf = false }
                    if !namedBySelf, !existingTables.contains(inverseTableName), existingTables.contains(selfName) { namedBySelf = true }
                }
                let (named, other) = namedBySelf ? (path, inversePath) : (inversePath, path)
                let (namedRelationship, otherRelationship) = namedBySelf ? (relationship, inverse) : (inverse, relationship)
                let namedSource = namedBySelf ? sourceNumber : inverseNumber
                let namedDestination = namedBySelf ? destinationNumber : sourceNumber
                let tableName = "Z_\(namedSource)\(namedRelationship.name.uppercased())"
                let sourceColumn = "Z_\(namedSource)\(otherRelationship.name.uppercased())"
                var destinationColumn = "Z_\(namedDestination)\(namedRelationship.name.uppercased())"
                if destinationColumn == sourceColumn { destinationColumn += "1" }
                var join = StoreLayout.JoinTable(
                    name: tableName, relationship: named, inverse: other, sourceColumn: sourceColumn, destinationColumn: destinationColumn)
                var columns = [
                    StoreLayout.Column(name: sourceColumn, type: "INTEGER"), StoreLayout.Column(name: destinationColumn, type: "INTEGER"),
                ]
                // An ordered side keeps the position of its members, named after their column.
                for (side, isOrdered, memberColumn) in [
                    (named, namedRelationship.isOrdered, destinationColumn), (other, otherRelationship.isOrdered, sourceColumn),
                ] where isOrdered {
                    let name = "Z_FOK_" + memberColumn.dropFirst(2)
                    join.orderColumns[side] = name
                    columns.append(StoreLayout.Column(name: name, type: "INTEGER"))
                }
                joinTables.append(join)
                tables.append(StoreLayout.Table(name: tableName, columns: columns, primaryKey: [sourceColumn, destinationColumn]))
            }
        }
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
            }
            for join in joinTables where join.relationship.entity == entity.name {
                add(StoreLayout.Index(
                    name: "\(join.name)_\(join.destinationColumn)_INDEX", table: join.name,
                    terms: [join.destinationColumn, join.sourceColumn]))
            }
            var fetchIndexes = entity.fetchIndexes
            for attribute in entity.attributes where attribute.isIndexed && !fetchIndexes.contains(where: { $0.name == attribute.name }) {
                fetchIndexes.append(FetchIndexDescription(name: attribute.name, elements: [.init(property: attribute.name)]))
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
                add(StoreLayout.Index(
                    name: "Z_\(entity.name.uppercased())_UNIQUE_\(constraint.map { $0.uppercased() }.joined(separator: "_"))",
                    table: table, terms: columns, isUnique: true))
            }
            for compound in entity.compoundIndexes {
                let columns = compound.compactMap(layout.column(for:))
                guard columns.count == compound.count else { continue }
                add(StoreLayout.Index(name: "\(table)_\(columns.joined(separator: "_"))_INDEX", table: table, terms: columns))
            }
        }
    }
}
