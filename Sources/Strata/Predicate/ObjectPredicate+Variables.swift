extension ObjectPredicate {
    /// The `$VARIABLE`s the predicate uses (inside a SUBQUERY, its own variable is not one).
    public var variables: Set<String> {
        switch self {
        case .constant: []
        case .not(let predicate): predicate.variables
        case .and(let terms), .or(let terms): terms.reduce(into: []) { $0.formUnion($1.variables) }
        case .comparison(let comparison): comparison.left.variables.union(comparison.right.variables)
        }
    }

    /// The predicate with each `$VARIABLE` replaced by its value, as a fetch request template
    /// is filled in.
    ///
    /// - Throws: ``PredicateSubstitutionError`` naming the variables `values` lacks.
    public func substituting(_ values: [String: PredicateValue]) throws(PredicateSubstitutionError) -> ObjectPredicate {
        let missing = variables.subtracting(values.keys)
        guard missing.isEmpty else { throw PredicateSubstitutionError(missing: missing.sorted()) }
        return replacingVariables(values)
    }

    func replacingVariables(_ values: [String: PredicateValue]) -> ObjectPredicate {
        switch self {
        case .constant:
            return self
        case .not(let predicate):
            return .not(predicate.replacingVariables(values))
        case .and(let terms):
            return .and(terms.map { $0.replacingVariables(values) })
        case .or(let terms):
            return .or(terms.map { $0.replacingVariables(values) })
        case .comparison(var comparison):
            comparison.left = comparison.left.replacingVariables(values)
            comparison.right = comparison.right.replacingVariables(values)
            return .comparison(comparison)
        }
    }
}

extension ObjectPredicate.Expression {
    /// `{…}` of `members`: a constant array when every member is a constant.
    static func list(_ members: [ObjectPredicate.Expression]) -> ObjectPredicate.Expression {
        var values: [PredicateValue] = []
        for member in members {
            guard case .value(let value) = member else { return .aggregate(members) }
            values.append(value)
        }
        return .value(.array(values))
    }

    var variables: Set<String> {
        switch self {
        case .variable(let name): [name]
        case .subquery(let collection, let variable, let predicate, _):
            collection.variables.union(predicate.variables.subtracting([variable]))
        default: operands.reduce(into: []) { $0.formUnion($1.variables) }
        }
    }

    func replacingVariables(_ values: [String: PredicateValue]) -> ObjectPredicate.Expression {
        switch self {
        case .variable(let name): values[name].map(ObjectPredicate.Expression.value) ?? self
        case .subquery(let collection, let variable, let predicate, let then):
            .subquery(
                collection: collection.replacingVariables(values), variable: variable,
                predicate: predicate.replacingVariables(values.filter { $0.key != variable }), then: then)
        case .aggregate(let members):
            // Filled in, a list of constants is a constant, as the parser makes it.
            Self.list(members.map { $0.replacingVariables(values) })
        default: mappingOperands { $0.replacingVariables(values) }
        }
    }
}

/// Variables a predicate uses that were given no value.
public struct PredicateSubstitutionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The names of the variables without a value, in the order the predicate uses them.
    public var missing: [String]

    public var description: String {
        "no value for " + missing.map { "$" + $0 }.joined(separator: ", ")
    }
}

extension ObjectPredicate {
    /// The predicate with each `$VARIABLE` that no SUBQUERY binds replaced by what `resolve`
    /// gives for it: `resolve(name, path)` is asked for `$NAME` alone (an empty path) and for a
    /// key path it leads (`$FETCH_SOURCE.author.name` gives `FETCH_SOURCE` and
    /// `["author", "name"]`). A fetched property fills in its source object this way.
    func resolvingVariables<Failure: Error>(
        bound: Set<String> = [], _ resolve: (String, [String]) throws(Failure) -> ObjectPredicate.Expression
    ) throws(Failure) -> ObjectPredicate {
        switch self {
        case .constant:
            return self
        case .not(let predicate):
            return .not(try predicate.resolvingVariables(bound: bound, resolve))
        case .and(let terms), .or(let terms):
            var resolved: [ObjectPredicate] = []
            for term in terms { resolved.append(try term.resolvingVariables(bound: bound, resolve)) }
            if case .and = self { return .and(resolved) }
            return .or(resolved)
        case .comparison(var comparison):
            comparison.left = try comparison.left.resolvingVariables(bound: bound, resolve)
            comparison.right = try comparison.right.resolvingVariables(bound: bound, resolve)
            return .comparison(comparison)
        }
    }
}

extension ObjectPredicate.Expression {
    func resolvingVariables<Failure: Error>(
        bound: Set<String>, _ resolve: (String, [String]) throws(Failure) -> ObjectPredicate.Expression
    ) throws(Failure) -> ObjectPredicate.Expression {
        func each(_ expressions: [ObjectPredicate.Expression]) throws(Failure) -> [ObjectPredicate.Expression] {
            var resolved: [ObjectPredicate.Expression] = []
            for expression in expressions { resolved.append(try expression.resolvingVariables(bound: bound, resolve)) }
            return resolved
        }
        switch self {
        case .variable(let name) where !bound.contains(name):
            return try resolve(name, [])
        case .keyPath(let components):
            guard let first = components.first, first.hasPrefix("$"), !bound.contains(String(first.dropFirst())) else { return self }
            return try resolve(String(first.dropFirst()), Array(components.dropFirst()))
        case .subquery(let collection, let variable, let predicate, let then):
            return .subquery(
                collection: try collection.resolvingVariables(bound: bound, resolve), variable: variable,
                predicate: try predicate.resolvingVariables(bound: bound.union([variable]), resolve), then: then)
        case .castToDate(let value):
            return .castToDate(try value.resolvingVariables(bound: bound, resolve))
        case .aggregate(let members):
            // Resolved, a list of constants is a constant, as the parser makes it.
            return Self.list(try each(members))
        case .function(let name, let arguments):
            return .function(name, arguments: try each(arguments))
        case .variable, .value, .evaluatedObject:
            return self
        }
    }
}
