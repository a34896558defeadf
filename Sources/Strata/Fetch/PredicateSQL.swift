import Foundation

/// A predicate compiled to an SQL condition on the rows of one entity's table, aliased `t0`,
/// with the arguments its numbered parameters (`?1`, `?2`…) bind.
///
/// The condition means what ``PredicateEvaluator`` means in memory, nil semantics included:
/// every comparison yields 0 or 1, never NULL, so `NOT` and `OR` behave as in Swift; a
/// to-many's member with a nil value takes part in `ANY`, `ALL` and `NONE` as nil, as its
/// row's NULL does in Core Data's SQL (`ANY pages.text == nil`). String operators call
/// the `NSCoreData…` functions every Strata connection registers.
struct PredicateSQL: Equatable {
    var condition: String
    var arguments: [DatabaseValue]

    /// Compiles `predicate` for fetches of `entity`.
    ///
    /// - Throws: ``PredicateCompileError`` for a key path the entity's properties do not lead
    ///   along, an unbound `$VARIABLE`, or a construct the store cannot evaluate.
    init(_ predicate: ObjectPredicate, entity: EntityDescription, model: ObjectModel, layout: StoreLayout) throws(PredicateCompileError) {
        var compiler = PredicateCompiler(model: model, layout: layout)
        condition = try compiler.condition(predicate, in: PredicateCompiler.Scope(alias: "t0", entity: entity))
        arguments = compiler.arguments
    }
}

/// Why a predicate cannot be turned into SQL for an entity.
public struct PredicateCompileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, naming the key path, entity or construct.
    public var message: String

    public var description: String { message }
}

/// Compiles predicates and key paths into SQL over the store layout, numbering the parameters
/// it binds; one compiler serves every part of one statement, so that their numbers agree.
struct PredicateCompiler {
    let model: ObjectModel
    let layout: StoreLayout
    var arguments: [DatabaseValue] = []
    /// Names a key in the root scope means before the entity's properties: the aliases of a
    /// fetch's selected values, which a HAVING predicate compares.
    var namedValues: [String: (sql: String, isString: Bool)] = [:]
    private var aliases = 0
    private var variables: [String: Scope] = [:]

    init(model: ObjectModel, layout: StoreLayout) {
        self.model = model
        self.layout = layout
    }

    /// A row the SQL can name: an alias on an entity's table.
    struct Scope {
        let alias: String
        let entity: EntityDescription
    }

    /// Where a key path leads from a scope.
    private enum Resolved {
        /// One value per row: a column, or a correlated subquery along to-ones or an aggregate.
        case scalar(Operand)
        /// A to-many's members, and the rest of the key path to follow from each.
        case members(ToMany, rest: ArraySlice<String>)
    }

    /// The members of one object's to-many: the tables to select from, the condition that links
    /// them to the object, and the scope each member is read in.
    private struct ToMany {
        let from: String
        let link: String
        let scope: Scope
    }

    /// The SQL value of a key path that leads along to-ones to an attribute or a to-one, or
    /// ends in an aggregate of a to-many: a sort key or a selected value.
    mutating func value(ofKeyPath path: [String], in scope: Scope) throws(PredicateCompileError) -> (sql: String, isString: Bool) {
        try value(of: .keyPath(path), in: scope)
    }

    /// The SQL value of an expression for each row (`FUNCTION(published, 'year')`): a
    /// selected or grouped value.
    mutating func value(of expression: ObjectPredicate.Expression, in scope: Scope) throws(PredicateCompileError) -> (sql: String, isString: Bool) {
        let operand = try scalar(expression, in: scope)
        if operand.isList { throw PredicateCompileError(message: "\(expression) is a list, which is not one value per object") }
        return (operand.sql, operand.isString)
    }

    // MARK: - Logic

    mutating func condition(_ predicate: ObjectPredicate, in scope: Scope) throws(PredicateCompileError) -> String {
        switch predicate {
        case .constant(let value): return value ? "1" : "0"
        case .not(let inner): return "NOT (\(try condition(inner, in: scope)))"
        case .and(let terms): return try joined(terms, "AND", empty: "1", in: scope)
        case .or(let terms): return try joined(terms, "OR", empty: "0", in: scope)
        case .comparison(let comparison): return try self.comparison(comparison, in: scope)
        }
    }

    private mutating func joined(_ terms: [ObjectPredicate], _ connective: String, empty: String, in scope: Scope) throws(PredicateCompileError) -> String {
        guard !terms.isEmpty else { return empty }
        var parts: [String] = []
        for term in terms { parts.append("(\(try condition(term, in: scope)))") }
        return parts.joined(separator: " \(connective) ")
    }

    private mutating func comparison(_ comparison: ObjectPredicate.Comparison, in scope: Scope) throws(PredicateCompileError) -> String {
        if comparison.operator == .contains, comparison.quantifier == nil, Self.listMembers(comparison.left) != nil || Self.isModeList(comparison.left) {
            // `{28, 33} CONTAINS age` asks whether age is one of the list.
            var swapped = comparison
            (swapped.left, swapped.operator, swapped.right) = (comparison.right, .in, comparison.left)
            return try self.comparison(swapped, in: scope)
        }
        if comparison.operator == .in, case .keyPath(let path) = comparison.right, case .members(let toMany, let rest) = try resolve(path[...], in: scope) {
            // `value IN toMany` asks whether any member equals the value.
            let value = try scalar(comparison.left, in: scope)
            return try quantified(.any, toMany, rest, .equal, .value(value), options: comparison.options)
        }
        let left: Resolved
        if case .keyPath(let path) = comparison.left {
            left = try resolve(path[...], in: scope)
        } else {
            left = .scalar(try scalar(comparison.left, in: scope))
        }
        // The right side is read on the evaluated object, also when the left one reads members.
        let right = try rightOperand(comparison, in: scope)
        switch left {
        case .scalar(let value):
            if let quantifier = comparison.quantifier { throw PredicateCompileError(message: "\(quantifier.rawValue) needs a to-many key path") }
            return try leaf(value, comparison.operator, right, options: comparison.options)
        case .members(let toMany, let rest):
            guard comparison.quantifier != nil || comparison.operator == .contains else {
                // Core Data refuses it too ("to-many key not allowed here"): it could mean ANY or ALL.
                guard case .keyPath(let path) = comparison.left else { throw PredicateCompileError(message: "a to-many value needs ANY, ALL or NONE") }
                throw PredicateCompileError(
                    message: "to-many key path '\(path.joined(separator: "."))' needs ANY, ALL or NONE before it, or an aggregate (@count, @sum, …) after it")
            }
            // A to-many CONTAINS an object (or value) when one of its members equals it.
            let op = comparison.quantifier == nil ? .equal : comparison.operator
            return try quantified(comparison.quantifier, toMany, rest, op, right, options: comparison.options)
        }
    }

    /// `EXISTS` over the members for ANY (and no quantifier), `NOT EXISTS` for NONE, and for
    /// ALL `NOT EXISTS` a member that fails.
    private mutating func quantified(
        _ quantifier: Quantifier?, _ toMany: ToMany, _ rest: ArraySlice<String>, _ op: ComparisonOperator, _ right: Right, options: ComparisonOptions
    ) throws(PredicateCompileError) -> String {
        let select = "SELECT 1 FROM \(toMany.from) WHERE \(toMany.link)"
        switch quantifier {
        case .all?: return "NOT EXISTS (\(select) AND NOT (\(try memberCondition(.all, rest, in: toMany.scope, op, right, options: options))))"
        case .none?: return "NOT EXISTS (\(select) AND \(try memberCondition(.any, rest, in: toMany.scope, op, right, options: options)))"
        case .any?, nil: return "EXISTS (\(select) AND \(try memberCondition(.any, rest, in: toMany.scope, op, right, options: options)))"
        }
    }

    /// The comparison for one member of a to-many; a member's nil value is compared as nil.
    private mutating func memberCondition(
        _ quantifier: Quantifier, _ rest: ArraySlice<String>, in scope: Scope, _ op: ComparisonOperator, _ right: Right, options: ComparisonOptions
    ) throws(PredicateCompileError) -> String {
        switch try resolve(rest, in: scope) {
        case .members(let toMany, let rest):
            return try quantified(quantifier, toMany, rest, op, right, options: options)
        case .scalar(let value):
            return try leaf(value, op, right, options: options)
        }
    }

    // MARK: - Comparisons of single values

    private struct Operand {
        var sql: String
        let isString: Bool
        var isNull = false
        /// For an object's key: the table of its entity, so that objects of another table,
        /// whose keys may be equal, never compare equal to it.
        var table: String?
        /// Whether the value is a date: an attribute, a constant or a cast.
        var isDate = false
        /// For a constant: its place in ``PredicateCompiler/arguments``.
        var argument: Int?
        /// For an attribute: `Entity.attribute`, for messages.
        var attribute: String?
        /// Whether the value is a list (`mode:`'s), as a JSON array: only `IN` takes it.
        var isList = false
    }

    private static let listComparison = PredicateCompileError(
        message: "mode(…) gives a list (the most frequent numbers): compare a value with it by IN or CONTAINS")

    private static func isModeList(_ expression: ObjectPredicate.Expression) -> Bool {
        if case .function(AggregateFunction.mode.coreDataName, _) = expression { return true }
        return false
    }

    /// The right side of a comparison: one value, or the constants of `IN {…}` and `BETWEEN {…}`.
    private enum Right {
        case value(Operand)
        case list([Operand])
    }

    private mutating func rightOperand(_ comparison: ObjectPredicate.Comparison, in scope: Scope) throws(PredicateCompileError) -> Right {
        guard comparison.operator == .in || comparison.operator == .between else { return .value(try scalar(comparison.right, in: scope)) }
        if comparison.operator == .in, Self.isModeList(comparison.right) { return .value(try scalar(comparison.right, in: scope)) }
        guard let members = Self.listMembers(comparison.right) else {
            throw PredicateCompileError(message: "\(comparison.operator.rawValue) needs a list\(comparison.operator == .in ? " or a to-many key path" : "") on its right")
        }
        var operands: [Operand] = []
        for member in members { operands.append(try scalar(member, in: scope)) }
        return .list(operands)
    }

    /// The members of `{…}`, constant or not; `nil` for any other expression.
    private static func listMembers(_ expression: ObjectPredicate.Expression) -> [ObjectPredicate.Expression]? {
        switch expression {
        case .value(.array(let values)): values.map(ObjectPredicate.Expression.value)
        case .aggregate(let members): members
        default: nil
        }
    }

    private mutating func leaf(_ left: Operand, _ op: ComparisonOperator, _ right: Right, options: ComparisonOptions) throws(PredicateCompileError) -> String {
        let options = options.rawValue
        if left.isList { throw Self.listComparison }
        if case .value(let list) = right, list.isList {
            guard op == .in else { throw Self.listComparison }
            return "EXISTS (SELECT 1 FROM json_each(\(list.sql)) WHERE value = \(left.sql))"
        }
        var left = left, right = right
        switch right {
        case .value(let value):
            if left.isDate { right = .value(try readingDate(value, comparedWith: left)) }
            if value.isDate { left = try readingDate(left, comparedWith: value) }
        case .list(let members) where left.isDate:
            var read: [Operand] = []
            for member in members { read.append(try readingDate(member, comparedWith: left)) }
            right = .list(read)
        case .list:
            break
        }
        switch (op, right) {
        case (.in, .list(let members)):
            // Plain values of the left side's kind compare as SQL's IN does, which an index
            // serves: an import looks up a batch of identities this way.
            if options == 0, !members.isEmpty, left.table == nil, !left.isNull,
                members.allSatisfy({ !$0.isNull && $0.table == nil && $0.isString == left.isString })
            {
                return "(\(left.sql) IS NOT NULL AND \(left.sql) IN (\(members.map(\.sql).joined(separator: ", "))))"
            }
            let alternatives = members.map { equality(left, $0, options: options) }
            return alternatives.isEmpty ? "0" : "(" + alternatives.joined(separator: " OR ") + ")"
        case (.between, .list(let bounds)):
            guard bounds.count == 2 else { throw PredicateCompileError(message: "BETWEEN needs a list of two bounds") }
            return "(\(ordering(left, ">=", bounds[0], options: options)) AND \(ordering(left, "<=", bounds[1], options: options)))"
        case (_, .list):
            throw PredicateCompileError(message: "a list is only allowed after IN or BETWEEN")
        case (_, .value(let right)):
            switch op {
            case .equal: return equality(left, right, options: options)
            case .notEqual: return "NOT \(equality(left, right, options: options))"
            case .lessThan: return ordering(left, "<", right, options: options)
            case .lessThanOrEqual: return ordering(left, "<=", right, options: options)
            case .greaterThan: return ordering(left, ">", right, options: options)
            case .greaterThanOrEqual: return ordering(left, ">=", right, options: options)
            case .contains: return search(left, right, compareOptions: 0, options: options)
            case .beginsWith: return search(left, right, compareOptions: 8, options: options)
            case .endsWith: return search(left, right, compareOptions: 8 | 4, options: options)
            // The attribute compared names where a pattern that cannot be matched was met.
            // A NULL value: what Core Data's SQL gives for NOT over it is not documented; what is
            // documented is NSPredicate's meaning in memory (nil MATCHES or LIKE a pattern is
            // false, so NOT of it holds), which a fetch must agree with: COALESCE makes it 0.
            case .like: return "COALESCE(strata_like(\(left.sql), \(right.sql), \(options), \(Self.place(of: left))), 0)"
            case .matches:
                if let index = right.argument, case .text(let pattern) = arguments[index] {
                    do {
                        _ = try CoreDataStringMatching.regularExpression(pattern, options: .init(rawValue: Int64(options)), place: left.attribute)
                    } catch {
                        throw PredicateCompileError(message: error.description)
                    }
                }
                return "COALESCE(strata_matches(\(left.sql), \(right.sql), \(options), \(Self.place(of: left))), 0)"
            case .in, .between: throw PredicateCompileError(message: "\(op.rawValue) needs a list on its right")
            }
        }
    }

    /// A text constant compared with a date, read as the ISO 8601 date it writes (as the
    /// evaluator reads it); any other operand unchanged.
    ///
    /// - Throws: ``PredicateCompileError`` for text that is no date: SQL would compare it as
    ///   text with a number, and match nothing without a word.
    private mutating func readingDate(_ operand: Operand, comparedWith date: Operand) throws(PredicateCompileError) -> Operand {
        guard operand.isString, let index = operand.argument, case .text(let text) = arguments[index] else { return operand }
        guard let read = ISO8601Text.date(from: text) else {
            throw PredicateCompileError(
                message: "\(date.attribute.map { "'\($0)' is a date" } ?? "a date") compared with the text \"\(text)\", which is no ISO 8601 date; "
                    + "write a date as CAST('2000-01-31', 'NSDate') or CAST('2000-01-31T12:00:00Z', 'NSDate')")
        }
        arguments[index] = AttributeValue.date(read).databaseValue
        return Operand(sql: operand.sql, isString: false, isDate: true, argument: index)
    }

    /// Equality that holds for two nils, as `IS` does; strings compare through the options.
    private func equality(_ left: Operand, _ right: Operand, options: Int) -> String {
        // Still names both sides, so that every bound parameter keeps its place in the SQL.
        if let a = left.table, let b = right.table, a != b { return "(0 AND \(left.sql) IS \(right.sql))" }
        guard left.isString || right.isString, !left.isNull, !right.isNull else { return "(\(left.sql) IS \(right.sql))" }
        // Two strings without options compare byte for byte, as Core Data's SQL does, so that an
        // index on the column serves `title == "x"`. In memory, Swift also equates the same text
        // in another Unicode normalization: the one case where the two evaluators differ.
        if options == 0, left.isString, right.isString { return "(\(left.sql) IS \(right.sql))" }
        return "COALESCE(NSCoreDataStringCompare(\(left.sql), \(right.sql), 4, \(options), 0), \(left.sql) IS NULL AND \(right.sql) IS NULL)"
    }

    private func ordering(_ left: Operand, _ op: String, _ right: Operand, options: Int) -> String {
        guard left.isString || right.isString else { return "COALESCE(\(left.sql) \(op) \(right.sql), 0)" }
        let number = ["<": 0, "<=": 1, ">": 2, ">=": 3][op] ?? 4
        return "COALESCE(NSCoreDataStringCompare(\(left.sql), \(right.sql), \(number), \(options), 0), 0)"
    }

    /// The attribute an operand reads, as an SQL string literal, or NULL.
    private static func place(of operand: Operand) -> String {
        operand.attribute.map { "'" + $0.replacingOccurrences(of: "'", with: "''") + "'" } ?? "NULL"
    }

    /// A substring search; `compareOptions` are `NSString.CompareOptions` bits (8 anchored, 4 backwards).
    private func search(_ left: Operand, _ right: Operand, compareOptions: Int, options: Int) -> String {
        let bits = compareOptions | (options & 1 != 0 ? 1 : 0) | (options & 2 != 0 ? 128 : 0)
        return "COALESCE(NSCoreDataStringSearch(\(left.sql), \(right.sql), \(bits), 0), 0)"
    }

    // MARK: - Operands

    private mutating func scalar(_ expression: ObjectPredicate.Expression, in scope: Scope) throws(PredicateCompileError) -> Operand {
        switch expression {
        case .value(let value): return try bind(value)
        case .evaluatedObject: return Operand(sql: "\(scope.alias).Z_PK", isString: false, table: table(of: scope.entity))
        case .variable(let name):
            guard let bound = variables[name] else { throw PredicateCompileError(message: "no value for $\(name)") }
            return Operand(sql: "\(bound.alias).Z_PK", isString: false, table: table(of: bound.entity))
        case .castToDate(let inner):
            guard case .value(let value) = inner, let seconds = value.number else {
                throw PredicateCompileError(message: "CAST(…, \"NSDate\") needs a number")
            }
            return try bind(.date(Date(timeIntervalSinceReferenceDate: seconds)))
        case .keyPath(let path):
            switch try resolve(path[...], in: scope) {
            case .scalar(let value): return value
            case .members: throw PredicateCompileError(message: "to-many key path '\(path.joined(separator: "."))' needs ANY, ALL, NONE or an aggregate here")
            }
        case .aggregate:
            throw PredicateCompileError(message: "a list is only allowed after IN or BETWEEN, before CONTAINS, or in a function")
        case .function(let name, let arguments):
            return try function(name, arguments, in: scope)
        case .subquery(let collection, let variable, let predicate, let then):
            guard case .keyPath(let path) = collection, case .members(let toMany, let rest) = try resolve(path[...], in: scope), rest.isEmpty else {
                throw PredicateCompileError(message: "SUBQUERY needs a to-many key path as its collection")
            }
            guard then.map(AggregateFunction.init(keyPathOperator:)) == [.count] else { throw PredicateCompileError(message: "a SUBQUERY result needs .@count") }
            let saved = variables[variable]
            variables[variable] = toMany.scope
            defer { variables[variable] = saved }
            // The member is the variable's; a key path without it is the evaluated object's.
            let inner = try condition(predicate, in: scope)
            return Operand(sql: "(SELECT COUNT(*) FROM \(toMany.from) WHERE \(toMany.link) AND (\(inner)))", isString: false)
        }
    }

    /// A built-in function, through `strata_function`, which applies ``ExpressionFunction`` as
    /// the evaluator does; an aggregate of a to-many key path, as the matching SQL aggregate of
    /// the members.
    private mutating func function(_ name: String, _ arguments: [ObjectPredicate.Expression], in scope: Scope) throws(PredicateCompileError) -> Operand {
        guard let function = ExpressionFunction(rawValue: name) else { throw PredicateCompileError(message: "unknown function '\(name)'") }
        if let aggregate = function.aggregateFunction, arguments.count == 1, case .keyPath(let path) = arguments[0],
            case .members(let toMany, let rest) = try resolve(path[...], in: scope)
        {
            if aggregate == .count { return Operand(sql: "(SELECT COUNT(*) FROM \(toMany.from) WHERE \(toMany.link))", isString: false) }
            let sql = try self.aggregate(aggregate.sqlFunction, of: rest, over: toMany, named: "\(function.shortName)(\(path.joined(separator: ".")))")
            return Operand(sql: sql, isString: false, isList: aggregate == .mode)
        }
        if let aggregate = function.aggregateFunction, arguments.count == 1, Self.isModeList(arguments[0]) {
            // An aggregate of mode:'s list, over the members of its JSON array.
            let list = try scalar(arguments[0], in: scope)
            return Operand(sql: "(SELECT \(aggregate.sqlFunction)(value) FROM json_each(\(list.sql)))", isString: false, isList: aggregate == .mode)
        }
        if function == .noIndex {
            // SQLite uses no index for an expression under a unary +, and keeps its column's
            // collation: the hint Core Data's noindex: gives.
            var operand = try scalar(arguments[0], in: scope)
            operand.sql = "+(\(operand.sql))"
            return operand
        }
        if function == .index, case .keyPath(let path) = arguments[0], case .members = try resolve(path[...], in: scope) {
            throw PredicateCompileError(
                message: "'\(path.joined(separator: "."))' is a to-many, whose members have no order in the store: an index cannot pick one; "
                    + "\(path.joined(separator: "."))[SIZE] counts them")
        }
        var parts = ["'\(function.rawValue)'"]
        for (position, argument) in arguments.enumerated() {
            // An aggregate's list gives its members as arguments, as the evaluator reduces them.
            let isCollection = function.isAggregate || (function.takesCollection && position == 0)
            for member in isCollection ? Self.listMembers(argument) ?? [argument] : [argument] {
                let operand = try scalar(member, in: scope)
                if operand.isList { throw Self.listComparison }
                if operand.table != nil, function != .aggregate(.count) {
                    let called = switch function {
                    case .method: "FUNCTION(…)"
                    case .index: "an index"
                    default: function.shortName + "(…)"
                    }
                    throw PredicateCompileError(
                        message: "\(called) takes values, not objects like \(member); objects compare with ==, !=, IN and CONTAINS")
                }
                parts.append(operand.sql)
            }
        }
        let returnsString = if function == .method, arguments.count > 1, case .value(.string(let selector)) = arguments[1] {
            ExpressionMethod(rawValue: selector)?.returnsString ?? false
        } else {
            function.returnsString
        }
        return Operand(sql: "strata_function(\(parts.joined(separator: ", ")))", isString: returnsString, isList: function == .aggregate(.mode))
    }

    private mutating func bind(_ value: PredicateValue) throws(PredicateCompileError) -> Operand {
        if case .null = value { return Operand(sql: "NULL", isString: false, isNull: true) }
        guard let stored = value.databaseValue else { throw PredicateCompileError(message: "a list is only allowed after IN or BETWEEN") }
        arguments.append(stored)
        let table: String? = if case .objectID(let id) = value { layout.entity(named: id.entityName)?.tableName ?? "" } else { nil }
        let isDate = if case .date = value { true } else { false }
        return Operand(
            sql: "?\(arguments.count)", isString: { if case .text = stored { true } else { false } }(), table: table, isDate: isDate,
            argument: arguments.count - 1)
    }

    // MARK: - Key paths

    /// Follows `path` from `scope`: along to-ones as correlated subqueries, stopping at the first
    /// to-many or aggregate.
    private mutating func resolve(_ path: ArraySlice<String>, in scope: Scope) throws(PredicateCompileError) -> Resolved {
        if path.count == 1, scope.alias == "t0", let named = namedValues[path[path.startIndex]] {
            return .scalar(Operand(sql: named.sql, isString: named.isString))
        }
        var path = path
        var entity = scope.entity
        var key = "\(scope.alias).Z_PK"
        var row: String? = scope.alias
        if let first = path.first, first.hasPrefix("$") {
            guard let bound = variables[String(first.dropFirst())] else { throw PredicateCompileError(message: "no value for \(first)") }
            (entity, key, row) = (bound.entity, "\(bound.alias).Z_PK", bound.alias)
            path = path.dropFirst()
        }
        guard !path.isEmpty else { return .scalar(Operand(sql: key, isString: false, table: table(of: entity))) }
        while let name = path.first {
            path = path.dropFirst()
            if name.hasPrefix("@") {
                throw PredicateCompileError(message: "\(name) applies to a to-many key path")
            }
            guard let layoutEntity = layout.entity(named: entity.name) else {
                throw PredicateCompileError(message: "entity '\(entity.name)' has no table in the store")
            }
            if let attribute = model.attribute(named: name, in: entity) {
                guard path.isEmpty, let column = layoutEntity.attributeColumns[name] else {
                    throw PredicateCompileError(message: "attribute '\(entity.name).\(name)' cannot be followed or is not stored")
                }
                let sql = columnValue(column, table: layoutEntity.tableName, row: row, key: key)
                return .scalar(Operand(
                    sql: sql, isString: attribute.type == .string || attribute.type == .uri, isDate: attribute.type == .date,
                    attribute: "\(entity.name).\(name)"))
            }
            guard let relationship = model.relationship(named: name, in: entity), let destination = model.entity(named: relationship.destinationEntityName) else {
                throw PredicateCompileError(message: "entity '\(entity.name)' has no property '\(name)'")
            }
            if relationship.isToMany {
                let toMany = try members(of: relationship, from: entity, ownerKey: key, destination: destination)
                if let aggregate = path.first, aggregate.hasPrefix("@") {
                    return .scalar(Operand(sql: try self.aggregate(aggregate, path.dropFirst(), over: toMany), isString: false))
                }
                // Members' own aggregates would count per member; the evaluator counts across them all.
                if let aggregate = path.first(where: { $0.hasPrefix("@") }) {
                    throw PredicateCompileError(message: "\(aggregate) must follow the first to-many of a key path")
                }
                return .members(toMany, rest: path)
            }
            guard let column = layoutEntity.toOneColumns[name]?.key else {
                throw PredicateCompileError(message: "relationship '\(entity.name).\(name)' is not stored")
            }
            (entity, key, row) = (destination, columnValue(column, table: layoutEntity.tableName, row: row, key: key), nil)
        }
        return .scalar(Operand(sql: key, isString: false, table: table(of: entity)))
    }

    private func table(of entity: EntityDescription) -> String? {
        layout.entity(named: entity.name)?.tableName
    }

    private func columnValue(_ column: String, table: String, row: String?, key: String) -> String {
        row.map { "\($0).\(column)" } ?? "(SELECT \(column) FROM \(table) WHERE Z_PK = \(key))"
    }

    private mutating func members(of relationship: RelationshipDescription, from entity: EntityDescription, ownerKey: String, destination: EntityDescription) throws(PredicateCompileError) -> ToMany {
        guard let table = layout.entity(named: destination.name) else {
            throw PredicateCompileError(message: "entity '\(destination.name)' has no table in the store")
        }
        aliases += 1
        let alias = "t\(aliases)"
        let kind = "\(alias).\(table.kindCondition)"
        let scope = Scope(alias: alias, entity: destination)
        if let inverse = relationship.inverseName, let column = table.toOneColumns[inverse]?.key {
            return ToMany(from: "\(table.tableName) \(alias)", link: "\(alias).\(column) = \(ownerKey) AND \(kind)", scope: scope)
        }
        if relationship.inverseName == nil, let column = layout.entity(named: entity.name)?.toManyKeyColumns[relationship.name] {
            return ToMany(from: "\(table.tableName) \(alias)", link: "\(alias).\(column) = \(ownerKey) AND \(kind)", scope: scope)
        }
        guard let join = layout.joinColumns(of: entity, relationship: relationship.name, in: model) else {
            throw PredicateCompileError(message: "relationship '\(entity.name).\(relationship.name)' is not stored")
        }
        let joinAlias = "j\(aliases)"
        return ToMany(
            from: "\(join.table) \(joinAlias) JOIN \(table.tableName) \(alias) ON \(alias).Z_PK = \(joinAlias).\(join.destination)",
            link: "\(joinAlias).\(join.source) = \(ownerKey) AND \(kind)", scope: scope)
    }

    /// `@count`, or `@sum`/`@avg`/`@min`/`@max` of an attribute of the members; an empty
    /// to-many sums to 0 and has no average, minimum or maximum.
    private mutating func aggregate(_ name: String, _ rest: ArraySlice<String>, over toMany: ToMany) throws(PredicateCompileError) -> String {
        let function = AggregateFunction(keyPathOperator: name)
        if function == .count, rest.isEmpty { return "(SELECT COUNT(*) FROM \(toMany.from) WHERE \(toMany.link))" }
        guard let function, function != .count else {
            throw PredicateCompileError(message: "\(name)\(rest.map { "." + $0 }.joined()) is not an aggregate of a numeric attribute")
        }
        return try aggregate(function.sqlFunction, of: rest, over: toMany, named: name + rest.map { "." + $0 }.joined())
    }

    /// The SQL aggregate `function` of the members' numeric attribute `rest`; `named` is how
    /// the predicate wrote it, for the error.
    private mutating func aggregate(_ function: String, of rest: ArraySlice<String>, over toMany: ToMany, named: String) throws(PredicateCompileError) -> String {
        guard rest.count == 1, case .scalar(let value) = try resolve(rest, in: toMany.scope), !value.isString else {
            throw PredicateCompileError(message: "\(named) is not an aggregate of a numeric attribute")
        }
        return "(SELECT \(function)(\(value.sql)) FROM \(toMany.from) WHERE \(toMany.link))"
    }
}

extension PredicateValue {
    /// The value as a column stores it, or `nil` for a list. An object is its row's key; a
    /// temporary object has no row yet, and no row has a negative key.
    var databaseValue: DatabaseValue? {
        switch self {
        case .null: .null
        case .bool(let flag): AttributeValue.boolean(flag).databaseValue
        case .integer(let number): .integer(number)
        case .double(let number): .real(number)
        case .string(let text): .text(text)
        case .date(let date): AttributeValue.date(date).databaseValue
        case .data(let data): .blob(data)
        case .uuid(let uuid): AttributeValue.uuid(uuid).databaseValue
        case .objectID(let id): .integer(id.primaryKey ?? -1)
        case .array: nil
        }
    }
}
