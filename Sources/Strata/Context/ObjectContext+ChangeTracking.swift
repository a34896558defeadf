/// How a context finds its changed objects without looking at every object it holds: an
/// object whose unsaved values change joins ``ObjectContext/recentlyChanged``, and the next
/// look sorts those into the changed saved objects and the index of inserted ones.
extension ObjectContext {
    func track(_ object: ManagedObject) {
        object.isTracked = true
        recentlyChanged.append(object)
    }

    /// Sorts the objects changed since the last look: saved ones join ``changedSavedObjects``,
    /// inserted ones take their current values into ``pendingIndex``.
    func absorbChanges() {
        guard !recentlyChanged.isEmpty else { return }
        for object in recentlyChanged {
            object.isTracked = false
            // An object inserted here only feeds the index of inserted ones, when there is one.
            if !pendingIndex.isActive, object.isPendingInsert { continue }
            guard registered[object.objectID] === object else { continue }
            if object.isPendingInsert {
                if pendingIndex.isActive { pendingIndex.add(object) }
            } else if !object.isListedAsChanged {
                precondition(changedSavedObjects.count < Int(Int32.max), "a context lists fewer than 2^31 changed objects")
                object.changeListPosition = Int32(changedSavedObjects.count)
                changedSavedObjects.append(object)
            }
        }
        recentlyChanged.removeAll(keepingCapacity: true)
    }

    /// ``updatedObjects`` with the names of each one's changed properties in slot order
    /// (``PropertyValues/orderedKeys(differingFrom:reusing:)``): a save compares each object's values
    /// with its saved ones once, here, rather than once to find the object and again to write
    /// it. `keysHold` is false when reading the objects may change what differs, so that a save
    /// that validated them first takes the names again: reading a fault loads its saved values,
    /// and reading a to-many's recorded changes makes the members its unsaved value.
    func updatedObjectsAndKeys() -> (objects: [ManagedObject], keys: [[String]], keysHold: Bool) {
        assertOnQueue()
        absorbChanges()
        var objects: [ManagedObject] = [], keys: [[String]] = []
        var keysHold = true
        let mayHoldToManyChanges = model.entities.contains { $0.relationships.contains(where: \.isToMany) }
        for case let object? in changedSavedObjects where holdsSavedChanges(object) {
            let changed = object.changedValues.orderedKeys(differingFrom: object.committedValues, reusing: keys.last ?? [])
            guard !changed.isEmpty else { continue }
            assert(registered[object.objectID] === object, "a listed object is registered")
            if object.isFault || (mayHoldToManyChanges && object.changedValues.containsToManyChanges) { keysHold = false }
            objects.append(object)
            keys.append(changed)
        }
        return (objects, keys, keysHold)
    }

    /// Takes `object` off ``changedSavedObjects``, if it is there: call it wherever the context
    /// lets go of an object, so that finding the changed objects needs no look-up to tell
    /// whether each is still registered.
    func unlistAsChanged(_ object: ManagedObject) {
        guard object.isListedAsChanged else { return }
        changedSavedObjects[Int(object.changeListPosition)] = nil
        object.changeListPosition = -1
    }

    /// Forgets what was tracked: after a save, a rollback or a reset nothing is pending.
    func clearChangeTracking() {
        for object in recentlyChanged { object.isTracked = false }
        for object in changedSavedObjects { object?.changeListPosition = -1 }
        recentlyChanged = []
        changedSavedObjects = []
        pendingIndex = PendingIndex()
    }

    /// The inserted objects of `entityNames` that may have `lookup.value` for `lookup.key`, in
    /// the order of insertion; the index is built on the first look-up of an entity and key.
    func insertedObjects(among entityNames: Set<String>, lookingUp lookup: PendingIndex.Lookup) -> [ObjectID] {
        absorbChanges()
        let unindexed = entityNames.filter { !pendingIndex.indexes($0, lookup.key) }
        if !unindexed.isEmpty {
            let objects = inserted.objects
            pendingIndex.number(objects.lazy.map(\.objectID))
            for entityName in unindexed {
                pendingIndex.build(entityName, lookup.key, from: objects.lazy.filter { $0.objectID.entityName == entityName })
            }
        }
        return pendingIndex.candidates(among: entityNames, lookup).filter { registered[$0]?.isPendingInsert == true }
    }
}

/// Inserted objects by the values they had for the attributes fetches looked them up by:
/// a look-up of `name == "Le Guin"` among many unsaved objects judges only those that may
/// match, so that a loop that looks an object up and then creates it stays linear.
///
/// Entries are never removed when a value changes: a look-up gets every object that had the
/// value since it was indexed, and the fetch judges each against its predicate as before.
struct PendingIndex {
    /// An equality on one attribute: what the index answers.
    struct Lookup {
        let key: String
        let value: AttributeValue

        /// The equality among `predicate`'s conjuncts on an attribute of `entity` whose values
        /// the index can hold (strings, integers, UUIDs), compared exactly.
        init?(_ predicate: ObjectPredicate?, entity: EntityDescription, model: ObjectModel) {
            switch predicate {
            case .comparison(let comparison)?:
                guard comparison.operator == .equal, comparison.options.isEmpty, comparison.quantifier == nil else { return nil }
                let pair: ([String], PredicateValue)
                switch (comparison.left, comparison.right) {
                case (.keyPath(let path), .value(let value)), (.value(let value), .keyPath(let path)): pair = (path, value)
                default: return nil
                }
                guard pair.0.count == 1, let type = model.attributeType(named: pair.0[0], in: entity) else { return nil }
                switch (type, pair.1) {
                case (.string, .string(let string)): value = .string(string)
                case (.integer16, .integer(let integer)), (.integer32, .integer(let integer)), (.integer64, .integer(let integer)): value = .integer(integer)
                case (.uuid, .uuid(let uuid)): value = .uuid(uuid)
                default: return nil
                }
                key = pair.0[0]
            case .and(let parts)?:
                guard let lookup = parts.lazy.compactMap({ Lookup($0, entity: entity, model: model) }).first else { return nil }
                self = lookup
            default:
                return nil
            }
        }
    }

    /// An entity's attribute the index holds.
    private struct IndexedKey: Hashable {
        let entityName: String
        let key: String
    }

    private struct Bucket: Hashable {
        let indexed: IndexedKey
        let value: AttributeValue
    }

    /// The indexed attributes, by entity.
    private var indexed: [String: [String]] = [:]
    private var buckets: [Bucket: [ObjectID]] = [:]
    /// The order of insertion of every inserted object since the first index was built: the
    /// order look-ups return them in, across entities.
    private var sequence: [ObjectID: Int] = [:]

    /// Whether any look-up built an index yet.
    var isActive: Bool { !indexed.isEmpty }

    func indexes(_ entityName: String, _ key: String) -> Bool {
        indexed[entityName]?.contains(key) ?? false
    }

    /// Numbers, in order, the inserted objects `ids` that have no number yet.
    mutating func number(_ ids: some Sequence<ObjectID>) {
        for id in ids where sequence[id] == nil { sequence[id] = sequence.count }
    }

    mutating func build(_ entityName: String, _ key: String, from objects: some Sequence<ManagedObject>) {
        indexed[entityName, default: []].append(key)
        for object in objects { add(object, keys: [key]) }
    }

    /// Numbers an object just inserted or changed, and files it under its current value of
    /// each indexed attribute of its entity.
    mutating func add(_ object: ManagedObject) {
        number(CollectionOfOne(object.objectID))
        guard let keys = indexed[object.objectID.entityName] else { return }
        add(object, keys: keys)
    }

    private mutating func add(_ object: ManagedObject, keys: [String]) {
        let id = object.objectID
        for key in keys {
            guard case .attribute(let value?)? = object.changedValues[key] ?? object.committedValues[key] else { continue }
            buckets[Bucket(indexed: IndexedKey(entityName: id.entityName, key: key), value: value), default: []].append(id)
        }
    }

    func candidates(among entityNames: Set<String>, _ lookup: Lookup) -> [ObjectID] {
        var found = Set<ObjectID>()
        for entityName in entityNames {
            found.formUnion(buckets[Bucket(indexed: IndexedKey(entityName: entityName, key: lookup.key), value: lookup.value)] ?? [])
        }
        return found.sorted { sequence[$0, default: 0] < sequence[$1, default: 0] }
    }
}
