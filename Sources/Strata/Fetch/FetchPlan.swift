/// A fetch request checked against a store's model and compiled into the parts of its SQL,
/// with the table aliased `t0`. Every value is a bound parameter; the parts share their
/// parameter numbers.
struct FetchPlan {
    let request: FetchRequest
    let entity: EntityDescription
    let table: StoreLayout.Entity
    /// The entities whose objects the fetch returns: the entity and, when included, its sub-entities.
    let entityNames: Set<String>
    /// `WHERE`'s condition: the rows' kind and the predicate.
    let condition: String
    /// One SQL value per sort descriptor, in order.
    let sortKeys: [SortKey]
    /// The entities of the objects that sort keys read through to-ones (with their
    /// sub-entities): their unsaved changes move fetched objects in the order.
    let sortedRelatedEntityNames: Set<String>
    private(set) var compiler: PredicateCompiler

    struct SortKey {
        let descriptor: ObjectSortDescriptor
        let sql: String
        let isString: Bool

        /// The `ORDER BY` term.
        var term: String {
            sql + (descriptor.caseInsensitive && isString ? " COLLATE NSCollateNoCase" : "") + (descriptor.ascending ? " ASC" : " DESC")
        }
    }

    /// Checks `request` against `store`'s model and compiles its predicate and sort keys.
    ///
    /// - Throws: ``StoreError/unknownEntity(path:name:known:)``, ``PredicateKeyError`` for a key
    ///   the entity lacks (with the nearest names), ``PredicateCompileError`` for a predicate the
    ///   store cannot evaluate, ``FetchRequestError`` for a sort key or a setting that does not fit.
    init(_ request: FetchRequest, store: PersistentStore) throws {
        let model = store.model
        guard let entity = model.entity(named: request.entityName), let table = store.layout.entity(named: request.entityName) else {
            throw StoreError.unknownEntity(path: store.path, name: request.entityName, known: store.layout.entities.map(\.name).sorted())
        }
        guard request.fetchLimit >= 0, request.fetchOffset >= 0, request.fetchBatchSize >= 0 else {
            throw FetchRequestError("fetchLimit, fetchOffset and fetchBatchSize cannot be negative")
        }
        self.request = request
        self.entity = entity
        self.table = table
        entityNames = store.layout.entityNames(of: table, includingSubentities: request.includesSubentities)
        compiler = PredicateCompiler(model: model, layout: store.layout)
        let kind = request.includesSubentities ? table.kindCondition : table.ownKindCondition
        var condition = "t0." + kind
        if !table.holdsTableAlone, !request.sortDescriptors.isEmpty, let share = try store.sampledShare(of: table, condition: kind) {
            // Told how common the entity's rows are, SQLite walks an index in the sort's order
            // when they are common, which hands over the first row at once, and sorts them
            // when they are rare.
            condition = "likelihood(\(condition), \(min(max(share, 0.0625), 0.9375)))"
        }
        if let predicate = request.predicate {
            try predicate.checkKeys(for: entity, in: model)
            condition += " AND (\(try compiler.condition(predicate, in: Self.root(entity))))"
        }
        self.condition = condition
        var sortKeys: [SortKey] = []
        // A dictionary fetch may sort by the name of a fetched value, which it resolves itself.
        let fetchedNames = request.resultType == .dictionary ? Set((request.propertiesToFetch ?? []).map(\.name)) : []
        for descriptor in request.sortDescriptors where !fetchedNames.contains(descriptor.keyPath) {
            let value = try Self.compile(descriptor.components, role: "sort key", of: entity, model: model, compiler: &compiler)
            sortKeys.append(SortKey(descriptor: descriptor, sql: value.sql, isString: value.isString))
        }
        self.sortKeys = sortKeys
        var related: Set<String> = []
        for key in sortKeys {
            var current = entity
            for name in key.descriptor.components.dropLast() {
                guard let relationship = model.relationship(named: name, in: current), let destination = model.entity(named: relationship.destinationEntityName),
                    let table = store.layout.entity(named: destination.name)
                else { break }
                related.formUnion(store.layout.entityNames(of: table, includingSubentities: true))
                current = destination
            }
        }
        sortedRelatedEntityNames = related
    }

    static func root(_ entity: EntityDescription) -> PredicateCompiler.Scope {
        PredicateCompiler.Scope(alias: "t0", entity: entity)
    }

    /// The SQL value of a key path of the request (a sort key, a fetched or grouped property),
    /// with the entity's nearest names when a key is unknown.
    static func compile(
        _ components: [String], role: String, of entity: EntityDescription, model: ObjectModel, compiler: inout PredicateCompiler
    ) throws -> (sql: String, isString: Bool) {
        let path = components.joined(separator: ".")
        try model.checkKeyPath(components, from: entity)
        do {
            return try compiler.value(ofKeyPath: components, in: root(entity))
        } catch {
            throw FetchRequestError("\(role) '\(path)' of \(entity.name): \(error.message)")
        }
    }

    /// `ORDER BY` with the sort keys, then the primary key, so that equal keys keep the store's order.
    var orderBy: String {
        "ORDER BY " + (sortKeys.map(\.term) + ["t0.Z_PK"]).joined(separator: ", ")
    }

    var arguments: [DatabaseValue] { compiler.arguments }

    /// The SQL value of a key path of the request: a fetched or grouped property.
    mutating func value(ofKeyPath components: [String], role: String, model: ObjectModel) throws -> (sql: String, isString: Bool) {
        try Self.compile(components, role: role, of: entity, model: model, compiler: &compiler)
    }

    /// The SQL value of an expression of the request (a computed value fetched or grouped by),
    /// its keys checked as a predicate's are.
    mutating func value(of expression: ObjectPredicate.Expression, role: String, model: ObjectModel) throws -> (sql: String, isString: Bool) {
        try ObjectPredicate.comparison(.init(expression, .equal, .value(.null))).checkKeys(for: entity, in: model)
        do {
            return try compiler.value(of: expression, in: Self.root(entity))
        } catch {
            throw FetchRequestError("\(role) '\(expression)' of \(entity.name): \(error.message)")
        }
    }

    /// A HAVING condition: its keys name the fetched values first, then the entity's properties.
    mutating func havingCondition(_ predicate: ObjectPredicate, namedValues: [String: (sql: String, isString: Bool)]) throws(PredicateCompileError) -> String {
        compiler.namedValues = namedValues
        defer { compiler.namedValues = [:] }
        return try compiler.condition(predicate, in: Self.root(entity))
    }

    /// The rows the request selects, with its order, offset and limit when it has them: what a
    /// batch request hands the store (``PersistentStore/deleteRows(_:collectsReferences:willDelete:)``).
    var rowSelection: RowSelection {
        let isWindowed = request.fetchLimit > 0 || request.fetchOffset > 0 || !sortKeys.isEmpty
        return RowSelection(
            entity: entity, table: table, condition: condition,
            window: isWindowed
                ? RowSelection.Window(orderBy: orderBy, limit: request.fetchLimit > 0 ? request.fetchLimit : -1, offset: request.fetchOffset)
                : nil,
            arguments: arguments)
    }

    /// Binds `value` as the next parameter and returns its placeholder.
    mutating func bind(_ value: DatabaseValue) -> String {
        compiler.arguments.append(value)
        return "?\(compiler.arguments.count)"
    }
}

extension StoreLayout {
    /// The names of `entity` and, when asked, of its sub-entities: the entities whose rows a
    /// fetch of `entity` selects.
    func entityNames(of entity: Entity, includingSubentities: Bool) -> Set<String> {
        let kinds = includingSubentities ? entity.numberRange : entity.number...entity.number
        return Set(entities.filter { $0.tableName == entity.tableName && kinds.contains($0.number) }.map(\.name))
    }
}
