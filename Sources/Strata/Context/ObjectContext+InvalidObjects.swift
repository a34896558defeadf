import Foundation

/// DKDBManager's `invalidReason` / `deleteIfInvalid`: the objects that break the model's rules
/// or match their entity's `strata.invalidIf` userInfo predicate
/// (``EntityDescription/invalidIfPredicate()``). The import deletes such objects by the same
/// rule, asking the objects; `strata prune` asks the context.
extension ObjectContext {
    /// Why `object` is invalid, or `nil` when it is valid (DKDBManager's `invalidReason`):
    /// the object's ``ManagedObject/invalidReason()``, which by default gives the model's rules
    /// it breaks (see ``validationFailures(of:)``) and its entity's `strata.invalidIf` userInfo
    /// predicate when it matches. Imports delete such objects.
    ///
    /// ```swift
    /// try context.invalidReason(of: book)   // "title is required; matches strata.invalidIf rating < 0"
    /// ```
    ///
    /// - Throws: ``InvalidIfError`` naming the entity when its `strata.invalidIf` does not parse,
    ///   and ``ContextError`` when the object cannot be read or the predicate names a key the
    ///   entity lacks.
    public func invalidReason(of object: ManagedObject) throws -> String? {
        assertOnQueue()
        return try object.invalidReason()
    }

    /// The model's rule of invalid objects, ``ManagedObject/invalidReason()`` unless a subclass
    /// overrides it: failures as `"<property> <reason>"`, then the `strata.invalidIf` match,
    /// joined by `"; "`.
    func modelInvalidReason(of object: ManagedObject) throws -> String? {
        assertOnQueue()
        var reasons = try validationFailures(of: object).map { "\($0.property ?? "object") \($0.reason)" }
        if let invalidIf = try invalidIfRule(for: object.entity), try invalidIf.evaluate(with: object) {
            reasons.append("matches strata.invalidIf \(invalidIf)")
        }
        return reasons.isEmpty ? nil : reasons.joined(separator: "; ")
    }

    /// An entity's `strata.invalidIf`, parsed once per context.
    private func invalidIfRule(for entity: EntityDescription) throws(InvalidIfError) -> ObjectPredicate? {
        if let known = invalidIfRules[entity.name] { return known }
        let rule = try entity.invalidIfPredicate()
        invalidIfRules[entity.name] = .some(rule)
        return rule
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
    /// - Throws: ``StoreError/unknownEntity(path:name:known:)`` inside ``ContextError/store(_:)``; ``InvalidIfError`` naming the entity when a
    ///   `strata.invalidIf` in scope does not parse (checked before any object is read); what
    ///   ``fetch(_:)`` throws.
    public func invalidObjects(_ entityNames: [String]) throws -> [(object: ManagedObject, reason: String)] {
        assertOnQueue()
        for name in entityNames {
            guard let entity = model.entity(named: name) else { throw ContextError.unknown(entity: name, in: self) }
            for member in [entity] + model.allSubentities(of: entity) { _ = try invalidIfRule(for: member) }
        }
        var listed: Set<ObjectID> = []
        var found: [(object: ManagedObject, reason: String)] = []
        for name in entityNames {
            for object in try fetch(FetchRequest(entityName: name)) where listed.insert(object.objectID).inserted {
                if let reason = try object.invalidReason() {
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
    ///
    /// - Throws: what ``invalidObjects(_:)`` throws (an unknown entity, a `strata.invalidIf` that
    ///   does not parse, checked before any object is read); the ``ContextError`` of applying an
    ///   object's delete rules.
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

extension ManagedObject {
    /// Deletes the object when ``invalidReason()`` gives a reason, following the model's
    /// delete rules and logging the reason (DKDBManager's `deleteIfInvalid`); call it on the
    /// object's context's queue. The deletion is saved with the context.
    ///
    /// ```swift
    /// if try book.deleteIfInvalid() { print("dropped \(book.objectID)") }
    /// ```
    ///
    /// - Returns: whether the object was deleted.
    ///
    /// - Throws: ``ContextError/objectNotFound(_:)`` for an object in no context; what
    ///   ``invalidReason()`` throws (an ``InvalidIfError`` for a `strata.invalidIf` that does not
    ///   parse); the ``ContextError`` of applying its delete rules.
    @discardableResult
    public func deleteIfInvalid(activity: EntityActivityLog? = nil) throws -> Bool {
        guard let context = managedObjectContext else { throw ContextError.objectNotFound(objectID) }
        context.assertOnQueue()
        guard !context.isDeletedHere(self), let reason = try invalidReason() else { return false }
        try context.delete(
            self, logging: "Deleting invalid \(context.activityDescription(of: self)): \(reason)", activity: activity ?? context.defaultCleanupLog)
        return true
    }
}
