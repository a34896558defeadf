import Foundation

extension ObjectContext {
    /// Every rule the objects about to be saved break, and every Deny delete rule still
    /// holding objects; the save fails with all of them, or with the first Deny. `updated` is
    /// ``updatedObjects`` when the caller has it already.
    func validateForSave(inserted: [ManagedObject]? = nil, updated: [ManagedObject]? = nil) throws(ContextError) {
        for id in deletedIDs.map({ ($0.description, $0) }).sorted(by: { $0.0 < $1.0 }).map(\.1) {
            guard let object = registered[id] else { continue }
            for relationship in model.allRelationships(of: object.entity) where relationship.deleteRule == .deny {
                let held = try heldIDs(relationship, of: object).filter { !deletedIDs.contains($0) && !pendingDroppedInserts.contains($0) }
                if !held.isEmpty { throw .deleteDenied(object: id, relationship: relationship.name, count: held.count) }
            }
        }
        var invalid: [(object: ManagedObject, failures: [ValidationFailure])] = []
        // Most entities have no rule at all (every property optional, no bounds): their
        // objects are passed over without reading them. Saved objects come in runs of one
        // entity, so the answer is kept for the last entity asked about.
        var recentEntity: (name: String, hasRules: Bool)?
        for objects in [inserted ?? insertedObjects, updated ?? updatedObjects] {
            for object in objects where deferredValidation.isEmpty || !deferredValidation.contains(object.objectID) {
                let entityName = object.entity.name
                if recentEntity?.name != entityName { recentEntity = (entityName, model.hasRules(object.entity)) }
                guard recentEntity!.hasRules else { continue }
                try collectFailures(of: object, into: &invalid)
            }
        }
        // Reported in ID order whatever the order of the context's tables.
        if !invalid.isEmpty {
            throw .validation(invalid.sorted { $0.object.objectID.precedes($1.object.objectID) }.flatMap(\.failures))
        }
    }

    private func collectFailures(
        of object: ManagedObject, into invalid: inout [(object: ManagedObject, failures: [ValidationFailure])]
    ) throws(ContextError) {
        var failures = try validationFailures(of: object)
        // An update is judged by what it changes: a value already in the store, left as it
        // is, does not stop the save (a Page pruned from a Book whose ISBN was already bad).
        if !failures.isEmpty, !object.objectID.isTemporary, !object.isPendingInsert {
            let changed = object.changedKeys
            failures.removeAll { $0.property.map { !changed.contains($0) } ?? false }
        }
        if !failures.isEmpty { invalid.append((object, failures)) }
    }

    /// The model's rules `object` breaks as it is now: required values, ranges, lengths,
    /// patterns and relationship counts.
    ///
    /// - Throws: ``ContextError/forgottenObject(_:)`` and the other errors of reading the object's
    ///   values when it is a fault; not for the failures, which it returns.
    public func validationFailures(of object: ManagedObject) throws(ContextError) -> [ValidationFailure] {
        var failures: [ValidationFailure] = []
        let (attributes, relationships) = model.ruledProperties(of: object.entity)
        for attribute in attributes {
            let value = try object.attributeValue(forKey: attribute.name)
            if let reason = attribute.problem(with: value) {
                failures.append(ValidationFailure(object: object.objectID, property: attribute.name, reason: reason))
            }
        }
        for relationship in relationships {
            if let reason = try problem(with: relationship, of: object) {
                failures.append(ValidationFailure(object: object.objectID, property: relationship.name, reason: reason))
            }
        }
        return failures
    }

    private func heldIDs(_ relationship: RelationshipDescription, of object: ManagedObject) throws(ContextError) -> [ObjectID] {
        switch try object.propertyValue(relationship.name) {
        case .toOne(let id): id.map { [$0] } ?? []
        case .toMany(let ids): ids
        case .attribute: []
        case .toManyChanges: preconditionFailure("propertyValue(_:) applies a to-many's changes before it returns")
        }
    }

    /// What is wrong with a relationship's contents, in words, or `nil`.
    private func problem(with relationship: RelationshipDescription, of object: ManagedObject) throws(ContextError) -> String? {
        if !relationship.isToMany {
            guard case .toOne(nil) = try object.propertyValue(relationship.name), !relationship.isOptional else { return nil }
            return "is required"
        }
        // Counts are checked where the model sets them; an optional empty to-many passes.
        guard relationship.minCount > 0 || relationship.maxCount > 0 else { return nil }
        let count = try heldIDs(relationship, of: object).count
        if count == 0, relationship.isOptional { return nil }
        if count < relationship.minCount { return "holds \(count) objects, fewer than the minimum \(relationship.minCount)" }
        if relationship.maxCount > 0, count > relationship.maxCount {
            return "holds \(count) objects, more than the maximum \(relationship.maxCount)"
        }
        return nil
    }
}

extension [ManagedObject] {
    /// The objects in their IDs' order (``ObjectID/precedes(_:)``), which saves and their
    /// errors follow.
    func sortedByID() -> [ManagedObject] {
        guard let order = orderByID() else { return self }
        return order.map { self[$0] }
    }

    /// The objects' positions in their IDs' order, or `nil` when they are in it already: what
    /// sorts a list that goes with the objects in the same way.
    func orderByID() -> [Int]? {
        // Sorting positions by IDs read once spares reading each object's ID, and retaining
        // the object, at every comparison.
        let ids = map(\.objectID)
        // Objects changed in the order a fetch gave them are in order already: one pass tells.
        if zip(ids, ids.dropFirst()).allSatisfy({ $0.precedes($1) }) { return nil }
        return ids.indices.sorted { ids[$0].precedes(ids[$1]) }
    }
}

extension AttributeDescription {
    /// What is wrong with `value` for this attribute, in words (`is required`, `length 3 is
    /// below the minimum 5`), or `nil`: the model's rules a save and an import check.
    func problem(with value: AttributeValue?) -> String? {
        guard let value else { return isOptional ? nil : "is required" }
        guard minValue != nil || maxValue != nil || regularExpression != nil else { return nil }
        let measure: Double?
        let what: String
        switch value {
        case .string(let string): (measure, what) = (Double(string.count), "length")
        case .binary(let data): (measure, what) = (Double(data.count), "size")
        default: (measure, what) = (value.numericValue, "value")
        }
        if let measure, let minimum = minimumBound, measure < minimum {
            return "\(what) \(formatted(measure)) is below the minimum \(formatted(minimum))"
        }
        if let measure, let maximum = maximumBound, measure > maximum {
            return "\(what) \(formatted(measure)) is above the maximum \(formatted(maximum))"
        }
        if let pattern = regularExpression, case .string(let string) = value {
            // A pattern that cannot be checked (it does not compile, or costs too much on this
            // value) cannot pass the value either: the reason says which.
            do {
                if try !CoreDataStringMatching.matches(string, pattern: pattern, options: []) { return "\"\(string)\" does not match \(pattern)" }
            } catch {
                return "cannot be checked: \(error)"
            }
        }
        return nil
    }

    private func formatted(_ number: Double) -> String {
        if type == .date { return Date(timeIntervalSinceReferenceDate: number).formatted(.iso8601) }
        return number.rounded() == number && abs(number) < 1e15 ? String(Int64(number)) : String(number)
    }
}
