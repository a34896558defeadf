extension ObjectContext {
    /// Finds the objects about to be saved whose rows changed since they were read, and
    /// resolves each by ``mergePolicy``. Runs inside the save's write transaction, so that the
    /// rows cannot change between the check and the writes.
    func resolveConflicts(updated: [ManagedObject], deleted: [ManagedObject]) throws(ContextError) {
        for object in updated + deleted {
            guard let primaryKey = object.objectID.primaryKey else { continue }
            let row: RowSnapshot?
            do {
                row = try store.row(object.objectID.entityName, primaryKey: primaryKey)
            } catch {
                throw .store(String(describing: error))
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
                object.committedValues.merge(storeValues) { $1 }
            case .mergeByPropertyStoreTrump:
                let changedInStore = Set(storeValues.filter { object.committedValues[$0.key] != $0.value }.map(\.key))
                for key in changedInStore { object.changedValues[key] = nil }
                object.committedValues.merge(storeValues) { $1 }
            case .overwrite:
                // Every stored property differing from the store is written: the store ends up
                // with this object as it is here.
                for key in storeValues.keys where object.changedValues[key] == nil {
                    object.changedValues[key] = object.committedValues[key]
                }
                object.committedValues.merge(storeValues) { $1 }
            case .rollback:
                object.changedValues = [:]
                object.committedValues.merge(storeValues) { $1 }
                if isDeletion { deletedIDs.remove(object.objectID) }
            }
            object.version = row.version
        }
    }

    /// A row's values as an object of `entity` holds them.
    func values(of row: RowSnapshot, for entity: EntityDescription) -> [String: PropertyValue] {
        var values: [String: PropertyValue] = [:]
        for attribute in model.allAttributes(of: entity) where !attribute.isTransient {
            values[attribute.name] = .attribute(row.values[attribute.name].flatMap { AttributeValue($0, type: attribute.type) })
        }
        for relationship in model.allRelationships(of: entity) where !relationship.isToMany {
            values[relationship.name] = .toOne(row.references[relationship.name].map(objectID(for:)))
        }
        return values
    }
}
