extension ObjectContext {
    /// Deletes `object` when the context saves, applying each relationship's delete rule now:
    /// Nullify takes the object out of its destinations' inverses, Cascade deletes the
    /// destinations too (and theirs, recursively), No Action leaves the destinations alone,
    /// and Deny makes the save fail while the relationship still holds objects.
    ///
    /// - Returns: the objects this call deleted: `object` first (unless it was deleted
    ///   already), then those its Cascade rules took, which logs and reports can name.
    ///
    /// - Throws: ``ContextError/foreignObject(_:)`` for an object of another context (or of
    ///   none, once forgotten); the ``ContextError`` of filling the faults its delete rules read
    ///   (``ContextError/objectNotFound(_:)`` for a row deleted elsewhere).
    @discardableResult
    public func delete(_ object: ManagedObject) throws(ContextError) -> [ManagedObject] {
        assertOnQueue()
        guard object.managedObjectContext === self else { throw .foreignObject(object.objectID) }
        var deleted: [ManagedObject] = []
        try delete(object, into: &deleted)
        return deleted
    }

    private func delete(_ object: ManagedObject, into deleted: inout [ManagedObject]) throws(ContextError) {
        guard !deletedIDs.contains(object.objectID), !pendingDroppedInserts.contains(object.objectID) else { return }
        deleted.append(object)
        if !inserted.remove(object) {
            try fireFault(object)
            deletedIDs.insert(object.objectID)
        } else {
            // An inserted object that is deleted before a save never reaches the store.
            pendingDroppedInserts.insert(object.objectID)
        }
        for relationship in model.allRelationships(of: object.entity) {
            switch relationship.deleteRule {
            case .deny, .noAction:
                continue
            case .nullify:
                try nullify(relationship, of: object)
            case .cascade:
                let destinations = try destinations(of: relationship, from: object)
                try nullify(relationship, of: object)
                for destination in destinations { try delete(destination, into: &deleted) }
            }
        }
    }

    /// The objects `object` holds in `relationship`.
    private func destinations(of relationship: RelationshipDescription, from object: ManagedObject) throws(ContextError) -> [ManagedObject] {
        switch try object.propertyValue(relationship.name) {
        case .toOne(let id): return id.map { [self.object(with: $0)] } ?? []
        case .toMany(let ids): return ids.map(self.object(with:))
        case .attribute: return []
        case .toManyChanges: preconditionFailure("propertyValue(_:) applies a to-many's changes before it returns")
        }
    }

    /// Takes `object` out of the inverse of `relationship` on each destination.
    private func nullify(_ relationship: RelationshipDescription, of object: ManagedObject) throws(ContextError) {
        guard let inverse = relationship.inverseName else { return }
        for destination in try destinations(of: relationship, from: object) where !deletedIDs.contains(destination.objectID) {
            try destination.unlinkInverse(inverse, of: object)
        }
    }
}
