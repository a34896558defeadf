extension ObjectContext {
    /// Writes the context's changes to the store in one `BEGIN IMMEDIATE` transaction, after
    /// validating them (see ``ContextError/validation(_:)``) and checking delete rules of Deny.
    /// Inserted objects are validated whole; a saved object, by the properties the save changes,
    /// so that a value already in the store and left alone does not stop it (Core Data judges
    /// the whole object).
    ///
    /// Each saved object's row must still have the `Z_OPT` the context read; when another
    /// context or process saved it since, the save fails with ``ContextError/conflict(object:expectedVersion:storeVersion:)``
    /// and writes nothing. After a save, inserted objects have permanent IDs.
    ///
    /// A child context's save instead pushes its changes into its parent (see ``init(parent:concurrencyType:name:)``).
    ///
    /// - Throws: ``ContextError/validation(_:)`` listing every object that breaks the model's
    ///   rules; ``ContextError/deleteDenied(object:relationship:count:)``,
    ///   ``ContextError/conflict(object:expectedVersion:storeVersion:)`` and
    ///   ``ContextError/uniquenessConflict(object:properties:values:)`` as their cases say;
    ///   ``ContextError/store(_:)`` for a failure of the store. Nothing is saved then, and the
    ///   context keeps its changes.
    public func save() throws(ContextError) {
        assertOnQueue()
        // Finding the changed objects looks at every object held: once per save.
        let (changed, changedKeys, keysHold) = updatedObjectsAndKeys()
        guard !self.inserted.isEmpty || !deletedIDs.isEmpty || !changed.isEmpty else {
            forgetDroppedInserts()
            return
        }
        let inserted = self.inserted.objects
        try validateForSave(inserted: inserted, updated: changed)
        if parent != nil {
            try pushToParent()
            return
        }
        var updated = changed, updatedKeys = changedKeys
        if let order = changed.orderByID() {
            updated = order.map { changed[$0] }
            updatedKeys = order.map { changedKeys[$0] }
        }
        var deleted = deletedObjects
        var permanent: PermanentIDs = [:]
        var updatedVersions: [Int64] = []
        var derivedChanges: [DerivedValueChange] = []
        // Under the error policy the writes check versions themselves (`WHERE Z_OPT = ?`, one
        // row changed), so no query reads them first. When a write fails on a conflict, the
        // transaction is rolled back and run again reading them first, so that the error names
        // the same object (the first by ID, before any uniqueness conflict) as it always did.
        var readsVersionsFirst = mergePolicy != .error || (updated.isEmpty && deleted.isEmpty)
        while true {
            var failure: (any Error)?
            do {
                derivedChanges = try store.withConnection { try store.database.recordingDerivedValues { try store.database.inTransaction {
                    updatedVersions = []
                    store.setHistoryOrigin(author: transactionAuthor, contextName: name)
                    if readsVersionsFirst { try resolveConflicts(updated: updated, deleted: deleted) }
                    // A merge policy may have dropped changes or undone deletions, and the
                    // validation's reads may have moved values (see `updatedObjectsAndKeys()`):
                    // then what changed is compared again.
                    let changedKeys = keysHold && !readsVersionsFirst
                        ? updatedKeys : updated.map { $0.changedValues.orderedKeys(differingFrom: $0.committedValues) }
                    updated = zip(updated, changedKeys).filter { !$0.1.isEmpty }.map(\.0)
                    let keysToWrite = changedKeys.filter { !$0.isEmpty }
                    deleted = deleted.filter { deletedIDs.contains($0.objectID) }
                    let allocation = try allocatePermanentIDs(for: inserted)
                    permanent = allocation.ids
                    let reference = { (id: ObjectID?) -> RowReference? in
                        guard let id, let key = (permanent[id] ?? id).primaryKey else { return nil }
                        return RowReference(entityName: id.entityName, primaryKey: key)
                    }
                    // A store with history notes the rows of a large save itself (see PersistentStore+HistorySaveWrites.swift).
                    try store.openHistoryWindow(inserting: inserted.lazy.map { $0.objectID }, updating: updated.lazy.map { $0.objectID })
                    defer { store.abandonHistoryWindow() }
                    // Objects are inserted entity by entity: a run of one entity uses one plan.
                    var plan: (scope: ObjectIDScope, plan: RowWritePlan)?
                    for (object, assigned) in zip(inserted, allocation.keys) {
                        let id = object.objectID
                        if plan?.scope !== id.scope { plan = (id.scope, try store.rowWritePlan(for: id.entityName)) }
                        let (values, toOne) = try rowValues(of: object, plan: plan!.plan, reference: reference)
                        // Every temporary ID got a key above; any other inserted object came with its row's key.
                        if assigned == nil { try store.claimPrimaryKey(id.primaryKey!, for: id.entityName) }
                        try store.insertRow(plan!.plan, key: assigned ?? id.primaryKey!, values: values, toOne: toOne)
                    }
                    // Objects changed alike in a row (a bulk edit) share the plan of the first.
                    var lastUpdate: (scope: ObjectIDScope, keys: [String], plan: RowWritePlan)?
                    for (object, keys) in zip(updated, keysToWrite) {
                        if lastUpdate?.scope !== object.objectID.scope || lastUpdate?.keys != keys {
                            lastUpdate = (object.objectID.scope, keys, try updatePlan(of: object, keys: keys))
                        }
                        let plan = lastUpdate!.plan
                        let (values, toOne) = try rowValues(of: object, plan: plan, reference: reference)
                        updatedVersions.append(try store.updateRow(
                            plan, primaryKey: object.objectID.primaryKey!, expectedVersion: object.version, values: values, toOne: toOne))
                    }
                    try store.closeHistoryWindow()
                    for object in deleted {
                        try store.delete(object.objectID.entityName, primaryKey: object.objectID.primaryKey!, expectedVersion: object.version)
                    }
                    // A model without to-manys (many stores' hot tables) has no links to write.
                    if model.entities.contains(where: { $0.relationships.contains(where: \.isToMany) }) {
                        for object in inserted + updated {
                            try writeToManyChanges(of: object, reference: reference)
                        }
                        // Positions go on join rows that either side's links may have added.
                        for object in inserted + updated {
                            try writeOrderPositions(of: object, reference: reference)
                        }
                    }
                } }.changes }
            } catch {
                failure = error
            }
            guard let failure else { break }
            if !readsVersionsFirst, isWriteConflict(failure) {
                readsVersionsFirst = true
                continue
            }
            throw saveError(failure, permanent: permanent)
        }
        let newlyInserted = hasDidSaveListeners ? Set(inserted.map(\.objectID)) : []
        var change = changeToAnnounce(inserted: inserted, updated: updated, deleted: deleted)
        let unreadToManyChanges = commitSaved(inserted: inserted, updated: updated, versions: updatedVersions, deleted: deleted)
        rekey(permanent, announcing: false)
        lastPermanentIDs = permanent
        // Values the store's triggers computed (derived attributes) become the objects' own.
        let derived = applyDerivedValues(derivedChanges)
        change.inserted = Set(change.inserted.map { permanent[$0] ?? $0 })
        change.permanentIDs = permanent
        if hasChangeObservers {
            for (id, keys) in derived.changedKeys where !change.inserted.contains(id) {
                change.updated.insert(id)
                change.changedKeys[id, default: []].formUnion(keys)
            }
        }
        objectsDidChange(change)
        // Building the notification copies every saved object's values: only for listeners.
        if hasDidSaveListeners {
            let saved = inserted + updated
            let savedIDs = Set(saved.map(\.objectID))
            announce(didSaveNotification(
                saved: saved + derived.objects.filter { !savedIDs.contains($0.objectID) }, inserted: newlyInserted,
                deleted: Set(deleted.map(\.objectID)), permanentIDs: permanent, unreadToManyChanges: unreadToManyChanges,
                refreshed: derived.unloaded))
        }
    }

    /// The error a save throws for `error`, which its transaction failed with.
    private func saveError(_ error: any Error, permanent: PermanentIDs) -> ContextError {
        switch error {
        case let error as ContextError:
            return error
        case StoreError.uniquenessConflict(_, let entity, let key, let attributes, let values):
            // An inserted object is named by the temporary ID its holder knows: the key it was given is undone.
            let id = permanentID(entityName: entity, primaryKey: key)
            let object = permanent.first { $0.value == id }?.key ?? id
            return .uniquenessConflict(object: object, properties: attributes, values: values.map(\.readable))
        case StoreError.conflict(_, let entity, let key, let expected, let actual):
            return .conflict(object: permanentID(entityName: entity, primaryKey: key), expectedVersion: expected, storeVersion: actual)
        default:
            return ContextError(storeFailure: error)
        }
    }

    /// Permanent IDs for the temporary ones among `inserted`, keys rising in the order the
    /// objects were inserted: one statement per table, not one per object. Also each object's
    /// new key, in the order of `inserted` (`nil` for one whose ID is permanent already), so
    /// that writing the rows looks none up.
    private func allocatePermanentIDs(for inserted: [ManagedObject]) throws -> (ids: PermanentIDs, keys: [Int64?]) {
        let runs = EntityRun.runs(of: inserted.lazy.map { $0.objectID }.filter(\.isTemporary))
        guard !runs.isEmpty else { return ([:], Array(repeating: nil, count: inserted.count)) }
        let firstKeys = try store.allocatePrimaryKeys(forRuns: runs)
        var permanent = PermanentIDs.Builder()
        var assigned = [Int64?](repeating: nil, count: inserted.count)
        var run = 0, key = firstKeys[0], leftInRun = runs[0].count
        for (position, object) in inserted.enumerated() where object.objectID.isTemporary {
            if leftInRun == 0 {
                run += 1
                (key, leftInRun) = (firstKeys[run], runs[run].count)
            }
            let id = object.objectID
            assigned[position] = key
            permanent.add(id, ObjectID(scope: id.scope, key: .permanent(key)))
            key += 1
            leftInRun -= 1
        }
        return (permanent.build(), assigned)
    }

    /// After a save: the saved values become the committed ones, deleted and dropped objects
    /// leave the context, and nothing is pending. When the store wrote the rows, `versions`
    /// holds the updated objects' new versions, and inserted ones start at version 1. Returns
    /// the changes saved to to-manys that were never read, by object: the did-save
    /// notification carries them to other contexts.
    func commitSaved(
        inserted newObjects: [ManagedObject], updated: [ManagedObject], versions: [Int64]?, deleted: [ManagedObject]
    ) -> [ObjectIdentifier: PropertyValues] {
        var unreadToManyChanges: [ObjectIdentifier: PropertyValues] = [:]
        func commit(_ object: ManagedObject, version: Int64?) {
            let unread = object.mergeCommitted(object.changedValues)
            if !unread.isEmpty { unreadToManyChanges[ObjectIdentifier(object)] = unread }
            // Emptied changes need no look from the change tracking, which is cleared below:
            // tracking them would list every saved object once more.
            object.dropChangesUntracked()
            if let version { object.version = version }
            // Taken out here, while the object is at hand, rather than in a pass of its own.
            inserted.remove(object)
        }
        // The two lists go through one after the other: joining them copied and retained both.
        // New rows start at version 1.
        for object in newObjects { commit(object, version: versions == nil ? nil : 1) }
        for (index, object) in updated.enumerated() { commit(object, version: versions?[index]) }
        ManagedObject.ownershipLock.withLock {
            for object in deleted {
                registered[object.objectID] = nil
                object.detachLocked()
            }
        }
        forgetDroppedInserts()
        inserted.removeAll()
        deletedIDs = []
        clearChangeTracking()
        return unreadToManyChanges
    }

    /// Takes the objects inserted and deleted again out of the context: a save ends them.
    private func forgetDroppedInserts() {
        ManagedObject.ownershipLock.withLock {
            for id in pendingDroppedInserts {
                guard let object = registered.removeValue(forKey: id) else { continue }
                unlistAsChanged(object)
                object.detachLocked()
            }
        }
        pendingDroppedInserts = []
    }

    /// An object's values for the properties `plan` writes, in its order.
    private func rowValues(
        of object: ManagedObject, plan: RowWritePlan, reference: (ObjectID?) -> RowReference?
    ) throws -> (values: [DatabaseValue], toOne: [RowReference?]) {
        let values = try plan.attributes.map { try object.attributeValue(forKey: $0)?.databaseValue ?? .null }
        let toOne = try plan.toOnes.map { name -> RowReference? in
            guard case .toOne(let id) = try object.propertyValue(name) else { return nil }
            return reference(id)
        }
        return (values, toOne)
    }

    /// The plan of the update of `keys` of an object: its stored attributes and to-ones among
    /// them, in the model's order, so that objects with the same changes share a plan.
    private func updatePlan(of object: ManagedObject, keys: [String]) throws -> RowWritePlan {
        let attributes = model.storedAttributes(of: object.entity).lazy.map(\.name).filter(keys.contains)
        let toOnes = model.storedToOneNames(of: object.entity).filter(keys.contains)
        return try store.rowWritePlan(for: object.objectID.entityName, attributes: Array(attributes), toOnes: toOnes)
    }

    /// Many-to-many links added and removed, from the side that names the join table, so
    /// that each pair is written once.
    private func writeToManyChanges(of object: ManagedObject, reference: (ObjectID?) -> RowReference?) throws {
        for relationship in model.allRelationships(of: object.entity) where relationship.isToMany && !relationship.isTransient {
            guard let value = object.changedValues[relationship.name], let source = reference(object.objectID)?.primaryKey else { continue }
            let owner = model.entityDeclaring(relationship: relationship.name, from: object.entity)?.name ?? object.entity.name
            // A to-many without an inverse is written from its owner: its key column is on the members' rows.
            let writesHere = store.layout.entity(named: owner)?.toManyKeyColumns[relationship.name] != nil
                || store.layout.joinTable(for: owner, relationship: relationship.name)?.relationship
                    == StoreLayout.RelationshipPath(entity: owner, relationship: relationship.name)
            guard writesHere else { continue }
            let changes: ToManyChanges
            switch (value, object.committedValues[relationship.name] ?? .toMany([])) {
            case (.toMany(let current), .toMany(let saved)):
                changes = ToManyChanges(from: saved, to: current)
            case (.toManyChanges(let unread), _):
                changes = unread
            default:
                continue
            }
            for id in changes.added {
                if let key = reference(id)?.primaryKey { try store.link(object.entity.name, relationship.name, source: source, destination: key) }
            }
            for id in changes.removed {
                if let key = reference(id)?.primaryKey { try store.unlink(object.entity.name, relationship.name, source: source, destination: key) }
            }
        }
    }

    /// The positions of the members of changed ordered to-manys: on the join rows of a
    /// many-to-many, on the members' rows (`Z_FOK_`) of a one-to-many.
    private func writeOrderPositions(of object: ManagedObject, reference: (ObjectID?) -> RowReference?) throws {
        for relationship in model.allRelationships(of: object.entity) where relationship.isToMany && relationship.isOrdered && !relationship.isTransient {
            guard case .toMany(let current)? = object.changedValues[relationship.name], let source = reference(object.objectID)?.primaryKey else { continue }
            let owner = model.entityDeclaring(relationship: relationship.name, from: object.entity)?.name ?? object.entity.name
            if store.layout.joinTable(for: owner, relationship: relationship.name) != nil {
                try store.setLinkPositions(object.entity.name, relationship.name, source: source, destinations: current.compactMap { reference($0)?.primaryKey })
            } else if let inverse = relationship.inverseName {
                for (position, id) in current.enumerated() {
                    if let member = reference(id) {
                        try store.setOrderPosition(member.entityName, inverse, primaryKey: member.primaryKey, position: position + 1)
                    }
                }
            }
        }
    }
}

/// Whether a save's write failed on another writer's change or on a uniqueness constraint:
/// the failures whose report depends on the order conflicts are looked for.
private func isWriteConflict(_ error: any Error) -> Bool {
    switch error {
    case StoreError.conflict, StoreError.uniquenessConflict: true
    default: false
    }
}
