import Foundation

extension ObjectModel {
    /// Checks the model for what would make it unusable (errors) or likely wrong (warnings).
    ///
    /// Errors, what Xcode refuses to compile: duplicate entity names; unknown or cyclic parent
    /// entities; duplicate property names, also across an entity's ancestors; unknown
    /// relationship destinations; inverses that do not exist; a stored attribute of type
    /// Undefined; minCount above maxCount; uniqueness constraints, fetch indexes and compound
    /// indexes that name unknown properties; configurations and fetch request templates naming
    /// unknown entities; an inverse whose destination is a third entity, outside the source
    /// entity's hierarchy.
    ///
    /// Warnings, what Xcode compiles: an abstract entity without sub-entities used as a
    /// relationship destination; an inverse that leads back to the source's hierarchy but names
    /// another relationship as its own inverse; default, minimum and
    /// maximum values that are not the usual form for their type (each says how Core Data reads
    /// it), a minimum above the maximum; regular expressions that do not compile.
    ///
    /// Warnings for derived attributes whose value no store trigger can compute: an expression
    /// that is not one of the forms Core Data derives, or none (see ``Derivation``).
    ///
    /// - Returns: every problem found, errors and warnings, in model order.
    public func validate() -> [ModelIssue] {
        validate(compilingPatterns: true)
    }

    /// The issues of ``validate()``, compiling the attributes' regular expressions only when
    /// `compilingPatterns`. Opening a store does not: a pattern decides no SQL and nothing a
    /// store holds, and one that does not compile still fails each value a save checks against
    /// it, while the first compilation in a process sets ICU's regular expressions up (about a
    /// millisecond of every command that opens a store).
    func validate(compilingPatterns: Bool) -> [ModelIssue] {
        var issues: [ModelIssue] = []
        var seenEntities: Set<String> = []
        for entity in entities where !seenEntities.insert(entity.name).inserted {
            issues.append(ModelIssue(.error, entity: entity.name, "the model defines this entity more than once"))
        }
        for entity in entities {
            issues += nameIssues(of: entity)
            issues += hierarchyIssues(of: entity)
            issues += propertyNameIssues(of: entity)
            for attribute in entity.attributes {
                issues += attribute.valueIssues(compilingPattern: compilingPatterns).map { ModelIssue($0.severity, entity: entity.name, property: attribute.name, $0.message) }
                issues += compositeIssues(of: attribute).map { ModelIssue(.error, entity: entity.name, property: attribute.name, $0) }
            }
            for relationship in entity.relationships {
                issues += relationshipIssues(of: relationship, in: entity)
            }
            issues += indexIssues(of: entity)
            issues += derivationIssues(of: entity)
            issues += unwritableTextIssues(of: entity)
        }
        var seenComposites: Set<String> = []
        for composite in composites {
            if !seenComposites.insert(composite.name).inserted {
                issues.append(ModelIssue(.error, "the model defines the composite '\(composite.name)' more than once"))
            }
            for attribute in composite.attributes {
                issues += (attribute.valueIssues(compilingPattern: compilingPatterns).map(\.message) + compositeIssues(of: attribute)).map {
                    ModelIssue(.error, "composite '\(composite.name)', attribute '\(attribute.name)': \($0)")
                }
            }
        }
        for configuration in configurations {
            for name in configuration.entityNames where self.entity(named: name) == nil {
                issues.append(ModelIssue(.error, "configuration '\(configuration.name)' names an unknown entity '\(name)'\(didYouMean(name, among: entities.map(\.name)))"))
            }
        }
        for template in fetchRequestTemplates where entity(named: template.entityName) == nil {
            issues.append(ModelIssue(.error, "fetch request '\(template.name)' names an unknown entity '\(template.entityName)'\(didYouMean(template.entityName, among: entities.map(\.name)))"))
        }
        for entity in entities {
            for property in entity.fetchedProperties where self.entity(named: property.fetchRequest.entityName) == nil {
                let name = property.fetchRequest.entityName
                issues.append(ModelIssue(
                    .error, entity: entity.name, property: property.name,
                    "the fetched property fetches an unknown entity '\(name)'\(didYouMean(name, among: entities.map(\.name)))"))
            }
        }
        return issues
    }

    // MARK: - Composites

    /// A Composite attribute must name a composite of the model, and composites must not hold
    /// themselves, directly or through another.
    private func compositeIssues(of attribute: AttributeDescription) -> [String] {
        guard attribute.type == .composite else { return [] }
        guard let name = attribute.compositeName else { return ["a Composite attribute must name its composite"] }
        guard composites.contains(where: { $0.name == name }) else {
            return ["the composite '\(name)' does not exist\(didYouMean(name, among: composites.map(\.name)))"]
        }
        func elements(of composite: String) -> [String] {
            (composites.first { $0.name == composite }?.attributes ?? []).filter { $0.type == .composite }.compactMap(\.compositeName)
        }
        var reached: Set<String> = [], pending = elements(of: name)
        while let next = pending.popLast() {
            if next == name { return ["the composite '\(name)' holds itself"] }
            if reached.insert(next).inserted { pending += elements(of: next) }
        }
        return []
    }

    // MARK: - Entities

    /// Whether `name` is an identifier (an ASCII letter or underscore, then letters, digits,
    /// underscores): a name that SQL text may hold as it is, unquoted.
    static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first == "_" || (first.isASCII && first.properties.isAlphabetic) else { return false }
        return name.unicodeScalars.allSatisfy { $0 == "_" || ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) }
    }

    /// Names must be identifiers (a letter or underscore, then letters, digits, underscores),
    /// as Core Data requires: they become table and column names in the store.
    private func nameIssues(of entity: EntityDescription) -> [ModelIssue] {
        let isIdentifier = Self.isIdentifier
        var issues: [ModelIssue] = []
        let rule = "must start with a letter or _ and hold only letters, digits and _"
        if !isIdentifier(entity.name) {
            issues.append(ModelIssue(.error, entity: entity.name, "the entity name \(rule)"))
        }
        for name in entity.declaredPropertyNames where !isIdentifier(name) {
            issues.append(ModelIssue(.error, entity: entity.name, property: name, "the property name \(rule)"))
        }
        return issues
    }

    private func hierarchyIssues(of entity: EntityDescription) -> [ModelIssue] {
        guard let parentName = entity.superentityName else { return [] }
        guard self.entity(named: parentName) != nil else {
            return [ModelIssue(.error, entity: entity.name, "the parent entity '\(parentName)' does not exist\(didYouMean(parentName, among: entities.map(\.name)))")]
        }
        // A set beside the chain: looking each name up in the chain made deep hierarchies cubic.
        var chain = [entity.name]
        var inChain: Set<String> = [entity.name]
        var next: String? = parentName
        while let name = next, let parent = self.entity(named: name) {
            if !inChain.insert(name).inserted {
                return [ModelIssue(.error, entity: entity.name, "the parent entities form a cycle: \((chain + [name]).joined(separator: " → "))")]
            }
            chain.append(name)
            next = parent.superentityName
        }
        return []
    }

    private func propertyNameIssues(of entity: EntityDescription) -> [ModelIssue] {
        var issues: [ModelIssue] = []
        var seen: Set<String> = []
        for name in entity.declaredPropertyNames where !seen.insert(name).inserted {
            issues.append(ModelIssue(.error, entity: entity.name, property: name, "the entity declares this property more than once"))
        }
        let declared = Set(entity.declaredPropertyNames)
        for ancestor in ancestors(of: entity) {
            for name in declared.intersection(ancestor.declaredPropertyNames).sorted() {
                issues.append(ModelIssue(.error, entity: entity.name, property: name, "the parent entity '\(ancestor.name)' already declares a property with this name"))
            }
        }
        return issues
    }

    private func indexIssues(of entity: EntityDescription) -> [ModelIssue] {
        let known = Set((ancestors(of: entity) + [entity]).flatMap { $0.attributes.map(\.name) + $0.relationships.map(\.name) })
        var issues: [ModelIssue] = []
        func check(_ names: [String], _ what: String) {
            for name in names where !known.contains(name) {
                issues.append(ModelIssue(.error, entity: entity.name, "\(what) names an unknown property '\(name)'\(didYouMean(name, among: known.sorted()))"))
            }
        }
        for constraint in entity.uniquenessConstraints {
            check(constraint, "the uniqueness constraint (\(constraint.joined(separator: ", ")))")
        }
        for index in entity.fetchIndexes {
            check(index.elements.filter { $0.expressionType == nil }.map(\.property), "the fetch index '\(index.name)'")
            // It names an index in the store's SQL, as entity and property names name tables and columns.
            if !Self.isIdentifier(index.name) {
                issues.append(ModelIssue(.error, entity: entity.name, "the fetch index name '\(index.name)' must start with a letter or _ and hold only letters, digits and _"))
            }
        }
        for index in entity.compoundIndexes {
            check(index, "the compound index (\(index.joined(separator: ", ")))")
        }
        return issues
    }

    /// Text that an Xcode model file cannot hold: XML 1.0 has no way to write most control
    /// characters, even escaped, so a model carrying them could not be saved for Xcode.
    private func unwritableTextIssues(of entity: EntityDescription) -> [ModelIssue] {
        func unwritable(_ text: String?) -> Bool {
            text?.unicodeScalars.contains { scalar in
                (scalar.value < 0x20 && ![0x09, 0x0A, 0x0D].contains(scalar.value)) || scalar.value == 0xFFFE || scalar.value == 0xFFFF
            } ?? false
        }
        func userInfoTexts(_ userInfo: [String: String]) -> [String] { Array(userInfo.keys) + Array(userInfo.values) }
        var issues: [ModelIssue] = []
        let message = "contains a control character that a model file cannot hold"
        if ([entity.name, entity.className] + userInfoTexts(entity.userInfo)).contains(where: unwritable) {
            issues.append(ModelIssue(.error, entity: entity.name, "a name or userInfo entry \(message)"))
        }
        for attribute in entity.attributes {
            let texts = [attribute.name, attribute.defaultValue, attribute.minValue, attribute.maxValue, attribute.regularExpression,
                attribute.derivationExpression, attribute.customClassName, attribute.valueTransformerName]
                + userInfoTexts(attribute.userInfo)
            if texts.contains(where: unwritable) {
                issues.append(ModelIssue(.error, entity: entity.name, property: attribute.name, "a value \(message)"))
            }
        }
        for relationship in entity.relationships
        where ([relationship.name, relationship.inverseName] + userInfoTexts(relationship.userInfo)).contains(where: unwritable) {
            issues.append(ModelIssue(.error, entity: entity.name, property: relationship.name, "a value \(message)"))
        }
        return issues
    }

    // MARK: - Relationships

    private func relationshipIssues(of relationship: RelationshipDescription, in entity: EntityDescription) -> [ModelIssue] {
        func issue(_ severity: ModelIssue.Severity, _ message: String) -> ModelIssue {
            ModelIssue(severity, entity: entity.name, property: relationship.name, message)
        }
        var issues: [ModelIssue] = []
        let countRange = 0...Int(UInt32.max)
        if !countRange.contains(relationship.minCount) || !countRange.contains(relationship.maxCount) {
            issues.append(issue(.error, "minCount and maxCount must lie between 0 and \(UInt32.max)"))
        }
        if relationship.maxCount != 0, relationship.minCount > relationship.maxCount {
            issues.append(issue(.error, "minCount \(relationship.minCount) is greater than maxCount \(relationship.maxCount)"))
        }
        let destinationName = relationship.destinationEntityName
        guard let destination = self.entity(named: destinationName) else {
            issues.append(issue(.error, "the destination entity '\(destinationName)' does not exist\(didYouMean(destinationName, among: entities.map(\.name)))"))
            return issues
        }
        if destination.isAbstract, allSubentities(of: destination).isEmpty {
            issues.append(issue(.warning, "the destination '\(destinationName)' is abstract and has no sub-entity, so the relationship can never hold an object"))
        }
        guard let inverseName = relationship.inverseName else { return issues }
        if let inverseEntity = relationship.inverseEntityName, inverseEntity != destinationName {
            issues.append(issue(.error, "the inverse is recorded on entity '\(inverseEntity)' but the destination is '\(destinationName)'"))
        }
        guard let inverse = self.relationship(named: inverseName, in: destination) else {
            let names = allRelationships(of: destination).map(\.name)
            issues.append(issue(.error, "the inverse '\(inverseName)' is not a relationship of '\(destinationName)'\(didYouMean(inverseName, among: names))"))
            return issues
        }
        // An inverse whose own destination is unknown is reported on the inverse itself.
        guard let inverseDestination = self.entity(named: inverse.destinationEntityName) else { return issues }
        let pointsTo = "\(inverse.destinationEntityName).\(inverse.inverseName ?? "(no inverse)")"
        // Xcode refuses an inverse whose destination is neither the source entity nor one of its
        // ancestors or sub-entities: the two sides then join three entities, and no table holds
        // the key of both.
        guard self.entity(entity, isKindOf: inverseDestination) || self.entity(inverseDestination, isKindOf: entity) else {
            issues.append(issue(
                .error,
                "the inverse '\(destinationName).\(inverseName)' leads to '\(inverse.destinationEntityName)', a third entity: an inverse must lead back to '\(entity.name)' (or an entity of its hierarchy)"))
            return issues
        }
        if inverse.inverseName != relationship.name || !self.entity(entity, isKindOf: inverseDestination) {
            // Xcode compiles such a model, warning, and Core Data keeps the declared inverse in step.
            issues.append(issue(.warning, "the inverse '\(destinationName).\(inverseName)' does not point back: it points to \(pointsTo)"))
        }
        return issues
    }
}

// MARK: - Attribute values

extension AttributeDescription {
    /// What is wrong with the attribute's type, default, minimum, maximum and regular expression.
    ///
    /// Errors: an Undefined type on a stored attribute (Xcode refuses to compile it); a default,
    /// minimum or maximum that does not parse for the type or that the type cannot hold
    /// (``refusalReason(forModelText:)``); a length bound that is not a whole number of at least
    /// 0; a regular expression that does not compile, which would make every save of a value fail.
    /// Warnings: values in a form Xcode leaves behind when a type changes, saying how Core Data
    /// reads them, and bounds the wrong way round.
    func valueIssues(compilingPattern: Bool = true) -> [(severity: ModelIssue.Severity, message: String)] {
        var issues: [(severity: ModelIssue.Severity, message: String)] = []
        if type == .undefined, !isTransient {
            issues.append((.error, "the type Undefined is only allowed for transient attributes"))
        }
        return issues + textValueIssues(compilingPattern: compilingPattern).map { ($0.severity, $0.message) }
    }

    /// The texts a model file holds for an attribute, each of which validation checks.
    enum TextField: Sendable {
        case defaultValue, minimum, maximum, regularExpression
    }

    /// The issues of the default, minimum, maximum and regular expression, each with its field.
    private func textValueIssues(
        compilingPattern: Bool
    ) -> [(field: TextField, severity: ModelIssue.Severity, message: String)] {
        var issues: [(field: TextField, severity: ModelIssue.Severity, message: String)] = []
        if let text = defaultValue {
            if let reason = refusalReason(forModelText: text) {
                issues.append((.defaultValue, .error, "the default value \(reason)"))
            } else if let note = reading(modelText: text).note {
                issues.append((.defaultValue, .warning, "the default value \(note)"))
            }
        }
        var bounds: [Double] = []
        for (field, label, text) in [(TextField.minimum, "minimum", minValue), (.maximum, "maximum", maxValue)] {
            guard let text else { continue }
            if !boundsAreLengths, let reason = refusalReason(forModelText: text) {
                issues.append((field, .error, "the \(label) \(reason)"))
                continue
            }
            let (number, note) = boundReading(text)
            // A length that is not a whole number cannot bound anything: it is refused.
            if let note { issues.append((field, boundsAreLengths ? .error : .warning, "the \(label) \(note)")) }
            if let number { bounds.append(number) }
        }
        if let minValue, let maxValue, bounds.count == 2, bounds[0] > bounds[1] {
            issues.append((.maximum, .warning, "the minimum \(minValue) is greater than the maximum \(maxValue): no value can be saved"))
        }
        if compilingPattern, let pattern = regularExpression {
            do {
                _ = try NSRegularExpression(pattern: pattern)
            } catch {
                issues.append((.regularExpression, .error, "the regular expression '\(pattern)' does not compile"))
            }
        }
        return issues
    }

    /// The first error among the default, minimum, maximum and regular expression, with its
    /// field: what a model reader refuses at load, where it still knows the line. The regular
    /// expression is compiled only when `compilingPattern`.
    func firstValueError(compilingPattern: Bool = true) -> (field: TextField, message: String)? {
        textValueIssues(compilingPattern: compilingPattern).first { $0.severity == .error }.map { ($0.field, $0.message) }
    }
}
