extension ObjectModel {
    /// Why the derived `attribute` of `entity` cannot be kept current in a store, or `nil`
    /// when it can (or is not derived): its expression does not parse as a ``Derivation``, or
    /// names a property the entity does not have, or of the wrong kind.
    func derivationProblem(of attribute: AttributeDescription, in entity: EntityDescription) -> String? {
        let derivation: Derivation?
        do {
            derivation = try attribute.derivation
        } catch {
            return error.description
        }
        guard let derivation else { return nil }
        let expression = attribute.derivationExpression ?? ""
        func storedAttribute(_ name: String, of owner: EntityDescription) -> String? {
            guard let found = self.attribute(named: name, in: owner) else {
                return "the derivation '\(expression)' names '\(name)', which \(owner.name) does not have as an attribute"
                    + didYouMean(name, among: allAttributes(of: owner).map(\.name))
            }
            return found.isTransient ? "the derivation '\(expression)' names the transient attribute \(owner.name).\(name), which the store does not hold" : nil
        }
        switch derivation {
        case .now:
            return nil
        case .value(nil, let name, _):
            if name == attribute.name { return "the derivation '\(expression)' derives the attribute from itself" }
            return storedAttribute(name, of: entity)
        case .value(let relationshipName?, let name, _):
            guard let relationship = relationship(named: relationshipName, in: entity), !relationship.isTransient else {
                return "the derivation '\(expression)' names '\(relationshipName)', which \(entity.name) does not have as a relationship"
            }
            guard !relationship.isToMany else {
                return "the derivation '\(expression)' goes through the to-many \(relationshipName): only a to-one leads to one value (use an aggregate such as '\(relationshipName).@count')"
            }
            guard let destination = self.entity(named: relationship.destinationEntityName) else { return nil }
            return storedAttribute(name, of: destination)
        case .aggregate(let relationshipName, let function, let name):
            guard let relationship = relationship(named: relationshipName, in: entity), !relationship.isTransient else {
                return "the derivation '\(expression)' names '\(relationshipName)', which \(entity.name) does not have as a relationship"
            }
            guard relationship.isToMany else {
                return "the derivation '\(expression)' aggregates the to-one \(relationshipName): an aggregate takes a to-many"
            }
            let inverse = relationship.inverseName.flatMap { name in
                self.entity(named: relationship.destinationEntityName).flatMap { self.relationship(named: name, in: $0) }
            }
            if function != .count, inverse?.isToMany == true {
                return "the derivation '\(expression)' takes \(function.keyPathOperator ?? function.coreDataName) of the many-to-many \(relationshipName): Core Data derives only @count of a many-to-many"
            }
            guard let name, let destination = self.entity(named: relationship.destinationEntityName) else { return nil }
            if let problem = storedAttribute(name, of: destination) { return problem }
            let type = self.attribute(named: name, in: destination)?.type
            guard let type, [.integer16, .integer32, .integer64, .double, .float, .decimal, .boolean, .date].contains(type) else {
                return "the derivation '\(expression)' takes \(function.keyPathOperator ?? function.coreDataName) of \(destination.name).\(name), which is not a number"
            }
            return nil
        }
    }

    /// The problems of the entity's derived attributes, as ``validate()`` reports them, each a
    /// warning: the store keeps no trigger for such an attribute, so its value is never
    /// computed. (Core Data refuses to add a store for a derivation its SQL generator does not
    /// take; Xcode compiles any text, and which forms Core Data takes beyond its documented
    /// ones is not known, so Strata reads and writes such a model all the same.)
    func derivationIssues(of entity: EntityDescription) -> [ModelIssue] {
        entity.attributes.filter(\.isDerived).compactMap { attribute in
            guard attribute.derivationExpression != nil else {
                return ModelIssue(.warning, entity: entity.name, property: attribute.name, "the attribute is derived but has no derivation expression: its value is never computed")
            }
            return derivationProblem(of: attribute, in: entity).map {
                ModelIssue(.warning, entity: entity.name, property: attribute.name, "\($0); its value is never computed")
            }
        }
    }
}
