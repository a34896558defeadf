extension ObjectContext {
    /// What a save's derived-attribute triggers changed, applied to this context's objects.
    struct DerivedValueUpdate {
        /// Loaded objects whose derived values changed, with the attributes that changed.
        var objects: [ManagedObject] = []
        var changedKeys: [ObjectID: Set<String>] = [:]
        /// Objects the triggers changed that this context holds as faults or not at all:
        /// others that hold them read them again.
        var unloaded: Set<ObjectID> = []
    }

    /// Brings the objects this context holds up to date with the derived values that Core
    /// Data's triggers wrote during a save (`changes`, in the order they were written, the
    /// last for a row and attribute being its value), as committed values: the save's own
    /// objects and any other row a trigger reached (a book whose page count moved, say).
    func applyDerivedValues(_ changes: [DerivedValueChange]) -> DerivedValueUpdate {
        var update = DerivedValueUpdate()
        guard !changes.isEmpty else { return update }
        let names = store.layout.entityNamesByNumber
        var latest: [ObjectID: [String: DatabaseValue]] = [:]
        var order: [ObjectID] = []
        for change in changes {
            guard let entityName = names[change.entityNumber] else { continue }
            let id = permanentID(entityName: entityName, primaryKey: change.primaryKey)
            if latest[id] == nil { order.append(id) }
            latest[id, default: [:]][change.attribute] = change.value
        }
        for id in order {
            guard let object = registered[id], !object.isFault, let values = latest[id] else {
                update.unloaded.insert(id)
                continue
            }
            var changed: Set<String> = []
            for (attribute, stored) in values {
                guard let type = model.attribute(named: attribute, in: object.entity)?.type else { continue }
                let value = PropertyValue.attribute(AttributeValue(stored, type: type))
                if object.committedValues[attribute] != value {
                    object.committedValues[attribute] = value
                    changed.insert(attribute)
                }
            }
            guard !changed.isEmpty else { continue }
            update.objects.append(object)
            update.changedKeys[id] = changed
        }
        return update
    }
}
