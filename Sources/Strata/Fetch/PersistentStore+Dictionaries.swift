import Foundation

extension PersistentStore {
    /// Runs a dictionary fetch in SQL: one ``FetchedRow`` per object, or per group when the
    /// request groups, with the values of ``FetchRequest/propertiesToFetch`` (every attribute
    /// when it is `nil`). Pending changes of contexts are not seen: the store is read as saved.
    ///
    /// ```swift
    /// var request = FetchRequest(entityName: "Person")
    /// request.resultType = .dictionary
    /// request.propertiesToFetch = try FetchedProperty.list("city, avg(age) as meanAge, count(*)")
    /// request.propertiesToGroupBy = ["city"]
    /// request.havingPredicate = try ObjectPredicate(format: "count > 1")
    /// let rows = try store.fetchDictionaries(request)
    /// ```
    ///
    /// - Throws: the errors of a fetch's checks (unknown entity or key, with the nearest
    ///   names; a predicate the store cannot evaluate), and ``FetchRequestError`` for a
    ///   property, group or HAVING that does not fit: an aggregate of a non-numeric attribute,
    ///   a fetched key path that is neither grouped nor aggregated, a HAVING without groups.
    public func fetchDictionaries(_ request: FetchRequest) throws -> [FetchedRow] {
        let query = try DictionaryQuery(request, store: self)
        var rows: [FetchedRow] = []
        try withConnection {
            try query.forEachRow(in: self) { values in
                var named: [String: FetchedValue] = [:]
                for (name, value) in zip(query.names, values) where value != nil { named[name] = value }
                rows.append(FetchedRow(names: query.names, values: named))
            }
        }
        return rows
    }

    /// Runs a dictionary fetch as ``fetchDictionaries(_:)`` does, handing each row's values to
    /// `body` as SQLite reads them, in the order of ``FetchRequest/propertiesToFetch`` (`nil`
    /// for a nil value): the first row comes at once, and memory stays bounded whatever the
    /// number of rows. The key path `self` fetches each object's own ID.
    ///
    /// ```swift
    /// var request = FetchRequest(entityName: "Book")
    /// request.propertiesToFetch = [.keyPath("self"), .keyPath("title"), .keyPath("author.name")]
    /// try store.forEachDictionary(request) { values in print(values) }
    /// ```
    ///
    /// The store's connection is held until the last row: `body` may read the store, but other
    /// contexts on it wait, and a write from `body` is not seen by the rows still to come.
    ///
    /// - Returns: the names of the values, as ``FetchedRow/names`` lists them.
    /// - Throws: what ``fetchDictionaries(_:)`` throws, and what `body` throws.
    @discardableResult
    public func forEachDictionary(_ request: FetchRequest, _ body: ([FetchedValue?]) throws -> Void) throws -> [String] {
        let query = try DictionaryQuery(request, store: self)
        try withConnection { try query.forEachRow(in: self, body) }
        return query.names
    }
}

/// A dictionary fetch compiled: its SQL, and how each row reads back.
struct DictionaryQuery {
    let names: [String]
    private let columns: [FetchedColumn]
    let sql: String
    let arguments: [DatabaseValue]

    init(_ request: FetchRequest, store: PersistentStore) throws {
        var request = request
        request.resultType = .dictionary
        var plan = try FetchPlan(request, store: store)
        let model = store.model, entity = plan.entity
        let properties = request.propertiesToFetch
            ?? model.allAttributes(of: entity).filter { !$0.isTransient }.map { FetchedProperty.keyPath($0.name) }
        guard !properties.isEmpty else { throw FetchRequestError("a dictionary fetch of \(entity.name) needs at least one property") }
        let names = properties.map(\.name)
        if let repeated = Dictionary(grouping: names, by: { $0 }).first(where: { $0.value.count > 1 })?.key {
            throw FetchRequestError("two fetched properties are named '\(repeated)'; give one an alias with 'as'")
        }
        var columns: [FetchedColumn] = []
        for property in properties {
            columns.append(try FetchedColumn(property, plan: &plan, store: store))
        }
        var groups: [String] = []
        var groupExpressions: [ObjectPredicate.Expression] = []
        for key in request.propertiesToGroupBy {
            // A group-by key may name a fetched value (`year`), as SQL's GROUP BY names an output column.
            if let index = names.firstIndex(of: key), properties[index].function == nil {
                groups.append(columns[index].selected[0])
                groupExpressions.append(properties[index].valueExpression ?? .keyPath([key]))
                continue
            }
            let expression: ObjectPredicate.Expression
            do {
                expression = try ObjectPredicate.Expression(format: key)
            } catch {
                throw FetchRequestError("group-by key '\(key)': \(error.message)")
            }
            groupExpressions.append(expression)
            if case .keyPath(let components) = expression {
                groups.append(try plan.value(ofKeyPath: components, role: "group-by key", model: model).sql)
            } else {
                groups.append(try plan.value(of: expression, role: "group-by key", model: model).sql)
            }
        }
        if groups.isEmpty, properties.contains(where: { $0.function != nil }), let loose = properties.first(where: { $0.function == nil }) {
            // As PostgreSQL refuses it: SQLite would answer with the value of one arbitrary row.
            throw FetchRequestError("'\(loose.name)' is fetched beside an aggregate but is not grouped; group by it or aggregate it")
        }
        if !groups.isEmpty, let loose = properties.first(where: { property in
            property.function == nil && !request.propertiesToGroupBy.contains(property.name)
                && !groupExpressions.contains { $0 == property.valueExpression }
        }) {
            throw FetchRequestError("'\(loose.name)' is fetched but neither grouped nor aggregated; add it to the group-by keys or aggregate it")
        }
        var sql = "SELECT \(request.returnsDistinctResults ? "DISTINCT " : "")"
        sql += columns.flatMap(\.selected).joined(separator: ", ")
        sql += " FROM \(plan.table.tableName) t0 WHERE \(plan.condition)"
        if !groups.isEmpty { sql += " GROUP BY " + groups.joined(separator: ", ") }
        if let having = request.havingPredicate {
            guard !groups.isEmpty else { throw FetchRequestError("a HAVING predicate needs group-by keys") }
            let namedValues = Dictionary(uniqueKeysWithValues: zip(names, columns.map { ($0.selected[0], $0.isString) }))
            do {
                sql += " HAVING " + (try plan.havingCondition(having, namedValues: namedValues))
            } catch {
                throw FetchRequestError("HAVING \(having): \(error.message); it may compare the fetched names \(names.joined(separator: ", "))")
            }
        }
        // A sort key that names a fetched property sorts by its value: aggregates can be sorted on.
        let order = request.sortDescriptors.map { descriptor in
            if let index = names.firstIndex(of: descriptor.keyPath) {
                return FetchPlan.SortKey(descriptor: descriptor, sql: columns[index].selected[0], isString: columns[index].isString).term
            }
            return plan.sortKeys.first { $0.descriptor == descriptor }?.term ?? ""
        }
        if !order.isEmpty { sql += " ORDER BY " + order.joined(separator: ", ") }
        if request.fetchLimit > 0 || request.fetchOffset > 0 {
            sql += " LIMIT \(plan.bind(.integer(request.fetchLimit > 0 ? Int64(request.fetchLimit) : -1))) OFFSET \(plan.bind(.integer(Int64(request.fetchOffset))))"
        }
        (self.names, self.columns, self.sql, self.arguments) = (names, columns, sql, plan.arguments)
    }

    /// Runs the query, calling `body` with each row's values in property order.
    func forEachRow(in store: PersistentStore, _ body: ([FetchedValue?]) throws -> Void) throws {
        let entityNames = store.layout.entityNamesByNumber, storeIdentifier = store.metadata.uuid
        var values: [FetchedValue?] = []
        values.reserveCapacity(columns.count)
        try store.database.cachedStatement(sql).forEachRow(arguments) { statement in
            values.removeAll(keepingCapacity: true)
            var position: Int32 = 0
            for column in columns {
                values.append(column.value(statement, at: position, entityNames: entityNames, storeIdentifier: storeIdentifier))
                position += Int32(column.selected.count)
            }
            try body(values)
            return true
        }
    }
}

/// One fetched property compiled: what it selects and how its result reads back.
private struct FetchedColumn {
    /// The SQL values selected: the value, and for an object the `Z_ENT` of its row.
    let selected: [String]
    let isString: Bool
    private let kind: Kind

    private enum Kind {
        case attribute(AttributeType)
        /// An object of `destination`, whose table holds no other entity's rows when `isAlone`.
        case object(destination: String, isAlone: Bool)
        case integer
        case double
        /// A computed value, read as SQLite gives it: an integer, a double or a string.
        case computed
    }

    init(_ property: FetchedProperty, plan: inout FetchPlan, store: PersistentStore) throws {
        let model = store.model, entity = plan.entity
        if let function = property.function, !function.isSelectable {
            throw FetchRequestError("\(property): \(function.rawValue) gives a list, which a dictionary fetch does not select")
        }
        if let expression = property.expression {
            let value = try plan.value(of: expression, role: "fetched property", model: model)
            isString = property.function == nil && value.isString
            guard let function = property.function else {
                (selected, kind) = ([value.sql], .computed)
                return
            }
            switch function.result {
            case .integer: kind = .integer
            case .real: kind = .double
            case .numberLikeValues, .oneOfValues, .list: kind = .computed
            }
            selected = [Self.sql(function, of: value.sql)]
            return
        }
        guard let components = property.components else {
            (selected, isString, kind) = (["COUNT(*)"], false, .integer)
            return
        }
        if property.function == nil, components.count == 1, components[0].lowercased() == "self" {
            (selected, isString, kind) = (["t0.Z_PK", "t0.Z_ENT"], false, .object(destination: entity.name, isAlone: plan.table.holdsTableAlone))
            return
        }
        let value = try plan.value(ofKeyPath: components, role: "fetched property", model: model)
        let target = Self.target(of: components, from: entity, model: model)
        guard let function = property.function else {
            isString = value.isString
            switch target {
            case .attribute(let type):
                // A value that may be kept in a file beside the store is read as its data.
                let sql = Self.externalPlace(of: components, from: entity, model: model)
                    .map { store.externalStorage.readingSQL(value.sql, key: components.count == 1 ? "t0.Z_PK" : "NULL", place: $0) } ?? value.sql
                (selected, kind) = ([sql], .attribute(type))
            case .object(let destination):
                let table = store.layout.entity(named: destination)
                let isAlone = table?.holdsTableAlone ?? true
                // Only a destination that shares its table needs its row's Z_ENT read.
                let kindColumn = table.map { isAlone ? "NULL" : "(SELECT Z_ENT FROM \($0.tableName) WHERE Z_PK = \(value.sql))" } ?? "NULL"
                (selected, kind) = ([value.sql, kindColumn], .object(destination: destination, isAlone: isAlone))
            case .number(let isInteger):
                (selected, kind) = ([value.sql], isInteger ? .integer : .double)
            }
            return
        }
        let numeric: Bool
        let type: AttributeType?
        switch target {
        case .attribute(let attributeType):
            numeric = [.integer16, .integer32, .integer64, .double, .float, .decimal].contains(attributeType)
            type = attributeType
        case .number(let isInteger):
            (numeric, type) = (true, isInteger ? .integer64 : .double)
        case .object:
            guard function == .count else { throw FetchRequestError("\(property): \(function.rawValue) needs an attribute, not a relationship") }
            (numeric, type) = (false, nil)
        }
        if function.takesNumbers, !numeric {
            throw FetchRequestError("\(property): \(function.rawValue) needs a numeric attribute; '\(property.keyPath ?? "")' is \(type.map { "a \($0) attribute" } ?? "not one")")
        }
        isString = false
        selected = [Self.sql(function, of: value.sql)]
        switch function.result {
        case .integer: kind = .integer
        case .real: kind = .double
        case .numberLikeValues: kind = [.integer16, .integer32, .integer64].contains(type) ? .integer : .double
        case .oneOfValues, .list: kind = type.map(Kind.attribute) ?? .double
        }
    }

    /// `function` over `value`: its SQL aggregate, but a sum is `SUM`'s, 0 for no values,
    /// which keeps a sum of integers an integer (`TOTAL`'s is always a real).
    private static func sql(_ function: AggregateFunction, of value: String) -> String {
        function == .sum ? "COALESCE(SUM(\(value)), 0)" : "\(function.sqlFunction)(\(value))"
    }

    /// The value of the row `statement` stands on, whose columns for this property start at `position`.
    func value(_ statement: Statement, at position: Int32, entityNames: [Int: String], storeIdentifier: String) -> FetchedValue? {
        let first = statement.value(at: position)
        switch kind {
        case .attribute(let type): return AttributeValue(first, type: type).map(FetchedValue.attribute)
        case .integer: return first.int64Value.map { .attribute(.integer($0)) }
        case .double: return first.doubleValue.map { .attribute(.double($0)) }
        case .computed:
            switch first {
            case .integer(let value): return .attribute(.integer(value))
            case .real(let value): return .attribute(.double(value))
            case .text(let value): return .attribute(.string(value))
            case .blob(let value): return .attribute(.binary(value))
            case .null: return nil
            }
        case .object(let destination, let isAlone):
            guard let key = first.int64Value else { return nil }
            let entity = isAlone ? destination : statement.value(at: position + 1).int64Value.flatMap { entityNames[Int($0)] } ?? destination
            return .object(ObjectID(entityName: entity, storeIdentifier: storeIdentifier, key: .permanent(key)))
        }
    }

    private enum Target {
        case attribute(AttributeType)
        case object(destination: String)
        /// A to-many's `@count` (an integer) or another aggregate.
        case number(isInteger: Bool)
    }

    /// `Entity.attribute` when a key path of keys alone (no aggregate) ends on an attribute
    /// that allows external storage.
    private static func externalPlace(of components: [String], from entity: EntityDescription, model: ObjectModel) -> String? {
        var current = entity
        for (index, key) in components.enumerated() {
            if index == components.count - 1 {
                guard let attribute = model.attribute(named: key, in: current), attribute.allowsExternalBinaryDataStorage else { return nil }
                return "\(current.name).\(key)"
            }
            guard let relationship = model.relationship(named: key, in: current), let next = model.entity(named: relationship.destinationEntityName) else { return nil }
            current = next
        }
        return nil
    }

    /// What a checked key path ends on.
    private static func target(of components: [String], from entity: EntityDescription, model: ObjectModel) -> Target {
        var current = entity
        for (index, key) in components.enumerated() {
            if key.hasPrefix("@") {
                let attribute = components.last.flatMap { model.attribute(named: $0, in: current) }
                switch AggregateFunction(keyPathOperator: key)?.result {
                case .integer?: return .number(isInteger: true)
                case .real?: return .number(isInteger: false)
                default: return attribute.map { .attribute($0.type) } ?? .number(isInteger: false)
                }
            }
            if let attribute = model.attribute(named: key, in: current) { return .attribute(attribute.type) }
            guard let relationship = model.relationship(named: key, in: current), let destination = model.entity(named: relationship.destinationEntityName) else { break }
            if index == components.count - 1 { return .object(destination: destination.name) }
            current = destination
        }
        return .number(isInteger: false)
    }
}
