extension ObjectPredicate {
    /// Checks that every key path names properties of `entity` (through relationships), that
    /// aggregates (`@count`, `@sum`, …) follow to-many relationships, and that attributes end
    /// their key paths.
    ///
    /// - Throws: ``PredicateKeyError`` naming the entity and the key, with the nearest names.
    public func checkKeys(for entity: EntityDescription, in model: ObjectModel) throws(PredicateKeyError) {
        try checkKeys(for: entity, in: model, variables: [:])
    }

    fileprivate func checkKeys(for entity: EntityDescription, in model: ObjectModel, variables: [String: EntityDescription]) throws(PredicateKeyError) {
        switch self {
        case .constant:
            return
        case .not(let predicate):
            try predicate.checkKeys(for: entity, in: model, variables: variables)
        case .and(let terms), .or(let terms):
            for term in terms { try term.checkKeys(for: entity, in: model, variables: variables) }
        case .comparison(let comparison):
            for expression in [comparison.left, comparison.right] {
                try expression.checkKeys(for: entity, in: model, variables: variables)
            }
        }
    }
}

extension ObjectModel {
    /// Checks that `keyPath` (its components) names properties of `entity`, as a predicate's
    /// key paths are checked: for sort keys, selected values and the like.
    ///
    /// - Throws: ``PredicateKeyError`` naming the entity and the key, with the nearest names.
    package func checkKeyPath(_ keyPath: [String], from entity: EntityDescription) throws(PredicateKeyError) {
        try ObjectPredicate.Expression.keyPath(keyPath).checkKeys(for: entity, in: self, variables: [:])
    }
}

extension ObjectPredicate.Expression {
    fileprivate func checkKeys(for entity: EntityDescription, in model: ObjectModel, variables: [String: EntityDescription]) throws(PredicateKeyError) {
        switch self {
        case .keyPath(let components):
            _ = try Self.resolve(components, from: entity, in: model, variables: variables)
        case .subquery(let collection, let variable, let predicate, _):
            guard case .keyPath(let components) = collection,
                let destination = try Self.resolve(components, from: entity, in: model, variables: variables)
            else { return }
            var inner = variables
            inner[variable] = destination
            // Key paths without the variable are the evaluated object's, as in the evaluator.
            try predicate.checkKeys(for: entity, in: model, variables: inner)
        default:
            for operand in operands { try operand.checkKeys(for: entity, in: model, variables: variables) }
        }
    }

    /// The entity a key path ends on (for a relationship), or `nil` (attribute or aggregate).
    private static func resolve(
        _ components: [String], from entity: EntityDescription, in model: ObjectModel, variables: [String: EntityDescription]
    ) throws(PredicateKeyError) -> EntityDescription? {
        var current = entity
        var remaining = components[...]
        if let first = remaining.first, first.hasPrefix("$") {
            guard let bound = variables[String(first.dropFirst())] else { return nil }
            current = bound
            remaining = remaining.dropFirst()
        }
        let path = components.joined(separator: ".")
        var afterToMany = false
        while let key = remaining.first {
            remaining = remaining.dropFirst()
            if key.hasPrefix("@") {
                guard afterToMany else {
                    throw PredicateKeyError(entity: current.name, key: key, keyPath: path, reason: "\(key) needs a to-many relationship before it", known: [])
                }
                if AggregateFunction(keyPathOperator: key) == .count { return nil }
                guard let attribute = remaining.first, model.attribute(named: attribute, in: current) != nil, remaining.count == 1 else {
                    throw PredicateKeyError(
                        entity: current.name, key: remaining.first ?? key, keyPath: path, reason: "\(key) needs an attribute of \(current.name) after it",
                        known: model.allAttributes(of: current).map(\.name))
                }
                return nil
            }
            if model.attribute(named: key, in: current) != nil {
                guard remaining.isEmpty else {
                    throw PredicateKeyError(entity: current.name, key: key, keyPath: path, reason: "'\(key)' is an attribute, so nothing can follow it", known: [])
                }
                return nil
            }
            guard let relationship = model.relationship(named: key, in: current), let destination = model.entity(named: relationship.destinationEntityName) else {
                let known = model.allAttributes(of: current).map(\.name) + model.allRelationships(of: current).map(\.name)
                throw PredicateKeyError(entity: current.name, key: key, keyPath: path, reason: nil, known: known)
            }
            afterToMany = afterToMany || relationship.isToMany
            current = destination
        }
        return current
    }
}

/// A key path in a predicate that the entity does not have.
public struct PredicateKeyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The entity the bad key was looked up on.
    public var entity: String
    /// The key that the entity does not have.
    public var key: String
    /// The whole key path the key is part of.
    public var keyPath: String
    /// Why the key does not fit, when it exists but is misused.
    public var reason: String?
    /// The names the entity does have.
    public var known: [String]

    /// `entity 'Book' has no property 'titel' (in titel); did you mean 'title'?; properties: …`.
    public var description: String {
        if let reason { return "entity '\(entity)', key path \(keyPath): \(reason)" }
        return "entity '\(entity)' has no property '\(key)' (in \(keyPath))\(didYouMean(key, among: known)); properties: \(known.joined(separator: ", "))"
    }
}
