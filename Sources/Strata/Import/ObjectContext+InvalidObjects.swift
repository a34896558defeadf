import Foundation

/// DKDBManager's `invalidReason` / `deleteIfInvalid`: the objects that break the model's rules
/// or match their entity's `strata.invalidIf` userInfo predicate. It lives with the import,
/// which deletes such objects by the same rule and parses the predicate in its mappings.
extension ObjectContext {
    /// Why `object` is invalid, or `nil` when it is valid (DKDBManager's `invalidReason`): the
    /// model's rules it breaks (see ``validationFailures(of:)``), and its entity's
    /// `strata.invalidIf` userInfo predicate when it matches. Imports delete such objects.
    ///
    /// ```swift
    /// try context.invalidReason(of: book)   // "title is required; matches strata.invalidIf rating < 0"
    /// ```
    ///
    /// - Throws: ``ImportError`` naming the entity when its `strata.invalidIf` does not parse,
    ///   and ``ContextError`` when the object cannot be read or the predicate names a key the
    ///   entity lacks.
    public func invalidReason(of object: ManagedObject) throws -> String? {
        assertOnQueue()
        return try invalidReason(of: object, invalidIf: Self.invalidIf(of: object.entity, in: model))
    }

    /// The one rule of invalid objects, for this context and for ``ImportSession`` (which keeps
    /// each entity's `invalidIf` parsed in its mapping): failures as `"<property> <reason>"`,
    /// then the `strata.invalidIf` match, joined by `"; "`.
    func invalidReason(of object: ManagedObject, invalidIf: Predicate?) throws(ContextError) -> String? {
        var reasons = try validationFailures(of: object).map { "\($0.property ?? "object") \($0.reason)" }
        if let invalidIf, try invalidIf.evaluate(with: object) {
            reasons.append("matches strata.invalidIf \(invalidIf)")
        }
        return reasons.isEmpty ? nil : reasons.joined(separator: "; ")
    }

    /// An entity's `strata.invalidIf` predicate, parsed as imports parse it.
    static func invalidIf(of entity: EntityDescription, in model: ObjectModel) throws(ImportError) -> Predicate? {
        guard entity.userInfo["strata.invalidIf"] != nil else { return nil }
        return try EntityImportMapping(entity: entity, model: model).invalidIf
    }

    /// The objects of `entityNames` (and of their sub-entities) that are invalid, each with
    /// its reason as ``invalidReason(of:)`` gives it, by entity in the order given, then in the
    /// store's order. Pending changes count; an object is listed once.
    ///
    /// ```swift
    /// for (object, reason) in try context.invalidObjects(["Book"]) {
    ///     print(object.objectID, reason)     // <Book p12> title is required
    /// }
    /// ```
    ///
    /// - Throws: ``ContextError/unknownEntity(_:)``; ``ImportError`` naming the entity when a
    ///   `strata.invalidIf` in scope does not parse (checked before any object is read); what
    ///   ``fetch(_:)`` throws.
    public func invalidObjects(_ entityNames: [String]) throws -> [(object: ManagedObject, reason: String)] {
        assertOnQueue()
        var rules: [String: Predicate] = [:]
        for name in entityNames {
            guard let entity = model.entity(named: name) else { throw ContextError.unknownEntity(name) }
            for member in [entity] + model.allSubentities(of: entity) where rules[member.name] == nil {
                if let predicate = try Self.invalidIf(of: member, in: model) { rules[member.name] = predicate }
            }
        }
        var listed: Set<ObjectID> = []
        var found: [(object: ManagedObject, reason: String)] = []
        for name in entityNames {
            for object in try fetch(FetchRequest(entityName: name)) where listed.insert(object.objectID).inserted {
                if let reason = try invalidReason(of: object, invalidIf: rules[object.entity.name]) {
                    found.append((object, reason))
                }
            }
        }
        return found
    }

    /// Deletes the objects ``invalidObjects(_:)`` finds, following the model's delete rules,
    /// each logged with its reason (DKDBManager's `deleteIfInvalid`, over whole entities).
    ///
    /// ```swift
    /// let removed = try context.deleteInvalidObjects(["Book", "Author"])
    /// // Deleting invalid Book { isbn: "123", rating: 0.0 }: title is required
    /// try context.save()
    /// ```
    ///
    /// Objects left invalid by the deletions (a required to-one a Nullify rule cleared) are
    /// not looked for again: ``save()`` reports them.
    ///
    /// - Returns: the invalid objects with their reasons, all deleted now (some by the
    ///   cascade of another).
    @discardableResult
    public func deleteInvalidObjects(_ entityNames: [String], activity: EntityActivityLog? = nil) throws -> [(object: ManagedObject, reason: String)] {
        let invalid = try invalidObjects(entityNames)
        let log = activity ?? defaultCleanupLog
        for (object, reason) in invalid where !isDeletedHere(object) {
            try delete(object, logging: "Deleting invalid \(activityDescription(of: object)): \(reason)", activity: log)
        }
        return invalid
    }

}
