import Foundation

extension ObjectContext {
    /// Calls `handler` after each save of this context, on the context's queue, with what the
    /// save changed. Keep the returned observation: releasing it stops the calls.
    public func addDidSaveObserver(_ handler: @escaping @Sendable (ContextDidSave) -> Void) -> DidSaveObservation {
        let token = UUID()
        observers.withLock { $0[token] = handler }
        return DidSaveObservation { [weak self] in
            _ = self?.observers.withLock { $0.removeValue(forKey: token) }
        }
    }

    /// Applies another context's save to this one: saved values replace this context's
    /// committed ones (its own unsaved changes stay on top), deleted objects leave it, and
    /// temporary IDs become permanent. Objects not loaded here are left to load fresh.
    public func mergeChanges(fromContextDidSave notification: ContextDidSave) {
        assertOnQueue()
        guard notification.source != ObjectIdentifier(self) else { return }
        merge(notification)
    }

    /// ``mergeChanges(fromContextDidSave:)`` whoever made the changes. An updated object the
    /// notification brings no values for (a batch request changed it in SQL) reads its row
    /// again. Returns what the change observers were told.
    @discardableResult
    func merge(_ notification: ContextDidSave) -> ObjectsDidChange {
        rekey(notification.permanentIDs, announcing: false)
        for id in notification.updatedObjectIDs where notification.savedObjects[id] == nil {
            if let object = registered[id] { refresh(object, mergeChanges: true) }
        }
        let isObserved = hasChangeObservers
        // Objects that already held the saved values (a save this context pushed, coming back
        // from its parent) did not change here, and observers heard of them when they did.
        var unchanged: Set<ObjectID> = []
        var changedKeys: [ObjectID: Set<String>] = [:]
        for (id, saved) in notification.savedObjects {
            let id = notification.permanentIDs[id] ?? id
            guard let object = registered[id] else { continue }
            guard !object.isFault else {
                // A row read before this save is stale now: the fault reads the store again.
                object.prefetchedRow = nil
                continue
            }
            let values = saved.values.mapValues { $0.rekeyed(notification.permanentIDs) }
            if isObserved {
                let keys = values.keys(differingFrom: object.committedValues)
                if keys.isEmpty { unchanged.insert(id) } else { changedKeys[id] = keys }
            }
            object.mergeCommitted(values)
            if saved.version > 0 { object.version = saved.version }
        }
        for id in notification.deletedObjectIDs {
            if let object = registered.removeValue(forKey: id) {
                unlistAsChanged(object)
                inserted.remove(object)
                ManagedObject.ownershipLock.withLock { object.detachLocked() }
            }
            deletedIDs.remove(id)
        }
        var change = ObjectsDidChange(
            inserted: notification.insertedObjectIDs.subtracting(unchanged), updated: notification.updatedObjectIDs.subtracting(unchanged),
            deleted: notification.deletedObjectIDs, permanentIDs: notification.permanentIDs, changedKeys: changedKeys)
        change.storeChangedElsewhere = notification.storeChangedElsewhere
        objectsDidChange(change)
        return change
    }

    /// Tells observers and the children that merge automatically about a save.
    /// Whether anyone hears this context's saves: observers, or children that merge them.
    var hasDidSaveListeners: Bool {
        !observers.withLock(\.isEmpty) || !mergingChildren().isEmpty
    }

    func announce(_ notification: ContextDidSave) {
        for handler in observers.withLock({ Array($0.values) }) { handler(notification) }
        for child in mergingChildren() where ObjectIdentifier(child) != notification.source {
            child.perform { child.mergeChanges(fromContextDidSave: notification) }
        }
    }

    /// The did-save notification of a save that wrote `saved` (each object's current values,
    /// with the changes to to-manys not read that ``commitSaved(_:versions:deleted:)`` returned)
    /// and deleted `deleted`; `refreshed` are objects the store changed whose values this
    /// context does not hold (its triggers' work), which contexts that merge read again.
    func didSaveNotification(
        saved: [ManagedObject], inserted: Set<ObjectID>, deleted: Set<ObjectID>, permanentIDs: PermanentIDs,
        unreadToManyChanges: [ObjectIdentifier: PropertyValues] = [:], refreshed: Set<ObjectID> = []
    ) -> ContextDidSave {
        var values: [ObjectID: ContextDidSave.SavedObject] = [:]
        for object in saved {
            var objectValues = object.committedValues.merging(object.changedValues).unshared()
            if let changes = unreadToManyChanges[ObjectIdentifier(object)] { objectValues.merge(changes) }
            values[object.objectID] = ContextDidSave.SavedObject(values: objectValues, version: object.version)
        }
        let insertedIDs = Set(inserted.map { permanentIDs[$0] ?? $0 })
        return ContextDidSave(
            contextName: name, insertedObjectIDs: insertedIDs,
            updatedObjectIDs: Set(values.keys).union(refreshed.subtracting(deleted)).subtracting(insertedIDs), deletedObjectIDs: deleted,
            permanentIDs: permanentIDs, savedObjects: values, source: ObjectIdentifier(self))
    }

    /// Replaces temporary IDs by permanent ones everywhere in the context, and tells the
    /// change observers unless `announcing` is off (a save or merge tells them itself).
    func rekey(_ map: PermanentIDs, announcing: Bool = true) {
        guard !map.isEmpty else { return }
        pendingIndex = PendingIndex()
        permanentAliases.merge(map)
        if !awaitingPermanentIDs.isEmpty { awaitingPermanentIDs.subtract(map.keys) }
        // Only relationships hold IDs: in a model without any, no value changes.
        if model.entities.contains(where: { !$0.relationships.isEmpty }) {
            for object in registered.values where !model.allRelationships(of: object.entity).isEmpty {
                object.committedValues = object.committedValues.mapValues { $0.rekeyed(map) }
                // Objects without changes stay off the change tracking: a save rekeys after it
                // emptied that, and assigning even empty changes listed every object again.
                if object.holdsChanges { object.changedValues = object.changedValues.mapValues { $0.rekeyed(map) } }
            }
        }
        // Only the objects that got permanent IDs move in the identity map.
        ManagedObject.ownershipLock.withLock {
            // The map's pairs come in the order their temporary IDs were made: in a context
            // that inserted the objects, that of registration, which the identity map walks
            // without a look-up per pair (a parent registers a child's pushes as they come).
            registered.changeKeys(map) { object, _, displaced in
                // A second instance of the row, made from its permanent ID before this context
                // learnt which of its objects had it: the one that held the temporary ID, with
                // this context's values, stays; the other leaves the context.
                if let displaced, displaced !== object {
                    unlistAsChanged(displaced)
                    displaced.detachLocked()
                }
            }
        }
        if !deletedIDs.isEmpty { deletedIDs = Set(deletedIDs.map { map[$0] ?? $0 }) }
        if announcing { objectsDidChange(ObjectsDidChange(permanentIDs: map)) }
    }
}

extension ManagedObject {
    /// Takes saved values as the committed ones. Changes to a to-many apply to its members
    /// when they are loaded; when they are not, the store they load from already has them.
    ///
    /// - Returns: those changes to to-manys not loaded, by key.
    @discardableResult
    func mergeCommitted(_ values: PropertyValues) -> PropertyValues {
        var unread = PropertyValues(slots: slots)
        guard values.containsToManyChanges else {
            committedValues.merge(values)
            return unread
        }
        for (key, value) in values {
            guard case .toManyChanges(let changes) = value else {
                committedValues[key] = value
                continue
            }
            if case .toMany(let members)? = committedValues[key] {
                committedValues[key] = .toMany(changes.applied(to: members))
            } else {
                unread[key] = value
            }
        }
        return unread
    }
}

extension PropertyValue {
    var isToManyChanges: Bool {
        if case .toManyChanges = self { return true }
        return false
    }

    /// The value with IDs replaced through `map`.
    func rekeyed(_ map: PermanentIDs) -> PropertyValue {
        guard !map.isEmpty else { return self }
        switch self {
        case .attribute: return self
        case .toOne(let id): return .toOne(id.map { map[$0] ?? $0 })
        case .toMany(let ids): return .toMany(ids.map { map[$0] ?? $0 })
        case .toManyChanges(let changes): return .toManyChanges(changes.rekeyed(map))
        }
    }
}
