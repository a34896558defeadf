extension ObjectContext {
    /// Finds the objects about to be saved whose rows changed since they were read, and
    /// resolves each by ``mergePolicy``. Runs inside the save's write transaction, so that the
    /// rows cannot change between the check and the writes.
    func resolveConflicts(updated: [ManagedObject], deleted: [ManagedObject]) throws(ContextError) {
        for object in try objectsChangedInStore(updated + deleted) {
            guard let primaryKey = object.objectID.primaryKey else { continue }
            let row: RowSnapshot?
            do {
                row = try store.row(object.objectID.entityName, primaryKey: primaryKey)
            } catch {
                throw ContextError(storeFailure: error)
            }
            guard row?.version != object.version else { continue }
            guard mergePolicy != .error, let row else {
                throw .conflict(object: object.objectID, expectedVersion: object.version, storeVersion: row?.version)
            }
            let storeValues = values(of: row, for: object.entity)
            let isDeletion = deletedIDs.contains(object.objectID)
            switch mergePolicy {
            case .error:
                break
            case .mergeByPropertyObjectTrump:
                object.committedValues.merge(storeValues)
            case .mergeByPropertyStoreTrump:
                let changedInStore = Set(storeValues.filter { object.committedValues[$0.key] != $0.value }.map(\.key))
                for key in changedInStore { object.changedValues[key] = nil }
                object.committedValues.merge(storeValues)
            case .overwrite:
                // Every stored property differing from the store is written: the store ends up
                // with this object as it is here.
                for key in storeValues.keys where object.changedValues[key] == nil {
                    object.changedValues[key] = object.committedValues[key]
                }
                object.committedValues.merge(storeValues)
            case .rollback:
                object.changedValues.removeAll()
                object.committedValues.merge(storeValues)
                if isDeletion { deletedIDs.remove(object.objectID) }
            }
            object.version = row.version
        }
    }

    /// Those of `objects` whose row's version is no longer the one they read, or whose row is
    /// gone: one query per entity finds them, so that a save of many objects without conflicts
    /// reads no rows.
    private func objectsChangedInStore(_ objects: [ManagedObject]) throws(ContextError) -> [ManagedObject] {
        var byEntity: [String: [ManagedObject]] = [:]
        for object in objects where object.objectID.primaryKey != nil {
            byEntity[object.objectID.entityName, default: []].append(object)
        }
        var changed: [ManagedObject] = []
        for (entityName, candidates) in byEntity {
            let versions: [Int64: Int64]
            do {
                versions = try store.versions(entityName, primaryKeys: candidates.compactMap(\.objectID.primaryKey))
            } catch {
                throw ContextError(storeFailure: error)
            }
            changed += candidates.filter { versions[$0.objectID.primaryKey!] != $0.version }
        }
        return changed.sortedByID()
    }

    /// A row's values as an object of `entity` holds them, in the slots `slots` (the entity's,
    /// looked up when not given).
    func values(of row: RowSnapshot, for entity: EntityDescription, in slots: PropertySlots? = nil) -> PropertyValues {
        let slots = slots ?? model.propertySlots(of: entity)
        guard let columns = row.columns, columns.slots === slots else {
            // A row read for another entity, or an entity description the model does not hold:
            // its values go by name.
            var values = PropertyValues(slots: slots)
            let cells = row.values, references = row.references
            for (name, type) in model.storedAttributes(of: entity) {
                values[name] = .attribute(cells[name].flatMap { AttributeValue($0, type: type) })
            }
            for name in model.storedToOneNames(of: entity) { values[name] = .toOne(references[name].map(objectID(for:))) }
            return values
        }
        return values(of: row, in: columns)
    }

    /// The values `cells` hold in the columns `columns` finds them in, in the slots of
    /// `columns`' entity.
    func values(of cells: some RowCells, in columns: RowColumns) -> PropertyValues {
        PropertyValues(slots: columns.slots) { slots in
            // Each slot is written once, over a `nil`, which owns nothing: initializing the
            // slot skips destroying the `nil` first, a call through the values' outlined
            // destroy for each attribute of each object fetched.
            guard let slots = slots.baseAddress else { return 0 }
            for (slot, position, type) in columns.attributeSlots {
                (slots + slot).initialize(to: .attribute(position.flatMap { cells.attributeValue($0, type: type) }))
            }
            for (slot, reference) in columns.referenceSlots {
                (slots + slot).initialize(to: .toOne(reference.flatMap { columns.reference($0, in: cells) }.map(objectID(for:))))
            }
            return columns.attributeSlots.count + columns.referenceSlots.count
        }
    }
}
