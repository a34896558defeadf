extension ObjectContext {
    /// Loads the faults that the program still holds, so that when the context forgets them
    /// (``reset()``, a stack's ``DataStack/resetStore()``) they read as they were, through
    /// typed properties too: a fault whose context is gone has nowhere to load from, and a
    /// non-optional typed property cannot report that as an error. A fault whose row is gone
    /// or of another store stays a fault. Objects only the context holds are left alone, since
    /// nothing will read them again.
    func loadHeldFaults() {
        assertOnQueue()
        let held = registered.objectsHeldElsewhere { $0.isFault && !$0.objectID.isTemporary }
        if !held.isEmpty { loadFaults(of: held) }
    }

    /// Loads the rows of those of `objects` (registered here) that are faults: in one query per
    /// entity and 500 objects, by the parent first for a child, which reads through it.
    private func loadFaults(of objects: [ManagedObject]) {
        if let parent {
            let ids = objects.filter(\.isFault).map(\.objectID)
            parent.performAndWait { parent.loadFaults(of: ids.map(parent.object(with:))) }
            for object in objects { try? fireFault(object) }
            return
        }
        let loadable = objects.filter { $0.isFault && $0.objectID.primaryKey != nil && (try? checkStore(of: $0.objectID)) != nil }
        for (entityName, group) in Dictionary(grouping: loadable, by: \.entity.name) {
            for start in stride(from: 0, to: group.count, by: 500) {
                try? load(FaultBatch(entityName: entityName, ids: group[start..<min(start + 500, group.count)].map(\.objectID)))
            }
        }
    }
}
