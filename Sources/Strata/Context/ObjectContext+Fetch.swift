import Foundation

/// What ``ObjectContext/execute(_:)`` returns, by the request's result type.
public enum FetchResult {
    case objects([ManagedObject])
    case objectIDs([ObjectID])
    case dictionaries([FetchedRow])
    case count(Int)
}

extension ObjectContext {
    // MARK: - Fetching

    /// The objects `request` selects, registered in this context (an object the context
    /// already holds comes back as it is, changes included).
    ///
    /// With ``FetchRequest/includesPendingChanges`` (the default), unsaved changes of this
    /// context and of its parents count: inserted objects that match come back, deleted ones do
    /// not, and changed objects are judged by their current values and sorted by them.
    ///
    /// ```swift
    /// var request = FetchRequest(entityName: "Book", predicate: try ObjectPredicate(format: "author.name == %@", "Le Guin"))
    /// request.sortDescriptors = [ObjectSortDescriptor("published", ascending: false)]
    /// let books = try context.fetch(request)
    /// ```
    ///
    /// - Throws: ``StoreError/unknownEntity(path:name:known:)``, ``PredicateKeyError`` (with the
    ///   nearest names), ``PredicateCompileError``, ``FetchRequestError``, ``ContextError``
    ///   when a pending object cannot be read, and ``DatabaseError``.
    public func fetch(_ request: FetchRequest) throws -> [ManagedObject] {
        assertOnQueue()
        let plan = try FetchPlan(request, store: store)
        // A child reads values through its parent, which may hold newer ones than the store.
        let readsValues = request.includesPropertyValues && parent == nil
        let generation = try store.writeGeneration
        var objects: [ManagedObject] = []
        if readsValues, !request.returnsObjectsAsFaults, request.fetchBatchSize == 0, !(request.includesPendingChanges && hasChanges) {
            // Nothing unsaved takes part: each object loads its row as the statement steps.
            objects = try loadObjects(plan)
        } else {
            let selected = try select(plan, readsValues: readsValues && request.fetchBatchSize == 0, generation: generation)
            objects.reserveCapacity(selected.count)
            registered.reserveCapacity(registered.count + selected.count)
            var recent: RecentKind?
            // By position, so that rows are read where they lie rather than copied out first.
            for index in selected.indices {
                let object = object(with: selected[index].id, recent: &recent)
                if object.isFault, selected[index].row != nil {
                    if request.returnsObjectsAsFaults {
                        object.prefetchedRow = (selected[index].row!, generation)
                    } else {
                        load(selected[index].row!, into: object)
                    }
                }
                objects.append(object)
            }
        }
        if readsValues, request.fetchBatchSize > 0 {
            let faults = objects.filter { $0.isFault && $0.prefetchedRow == nil && $0.objectID.primaryKey != nil }
            for start in stride(from: 0, to: faults.count, by: request.fetchBatchSize) {
                let members = faults[start..<min(start + request.fetchBatchSize, faults.count)]
                let batch = FaultBatch(entityName: plan.entity.name, ids: members.map(\.objectID))
                for object in members { object.faultBatch = batch }
            }
        }
        try prefetch(request.relationshipKeyPathsForPrefetching, of: objects, entityName: plan.entity.name, generation: generation)
        return objects
    }

    /// The IDs of the objects `request` selects, pending changes included as ``fetch(_:)``
    /// includes them. No object is registered, except when sort keys read through related
    /// objects with unsaved changes: then the objects are read to be sorted.
    ///
    /// - Throws: ``FetchRequestError`` or ``PredicateCompileError`` for a request the model or the
    ///   store cannot answer (an unknown entity or key path); ``ContextError/store(_:)`` for a failure
    ///   of the store.
    public func fetchObjectIDs(_ request: FetchRequest) throws -> [ObjectID] {
        assertOnQueue()
        return try select(FetchPlan(request, store: store), readsValues: false, generation: store.writeGeneration).map(\.id)
    }

    /// Calls `body` with the IDs ``fetchObjectIDs(_:)`` would return, in its order, `batchSize`
    /// at a time: for a reader of many objects (an export, a report) that works a batch at a
    /// time and lets the objects go after each.
    ///
    /// On a context of the store without unsaved changes to the request's entities (or to those
    /// its sort keys read through), the IDs come from a cursor on the store as the batches are used: the first batch at once,
    /// and memory bounded whatever the number of objects. The store's connection is held
    /// meanwhile (see ``PersistentStore/forEachDictionary(_:_:)``): `body` reads, and saves
    /// after the last batch. Otherwise the IDs are fetched whole first.
    ///
    /// ```swift
    /// try context.forEachBatchOfObjectIDs(FetchRequest(entityName: "Book")) { ids in
    ///     for book in try context.objects(with: ids, entityName: "Book") { … }
    ///     context.releaseUnheldObjects(among: ids)
    /// }
    /// ```
    ///
    /// - Throws: ``FetchRequestError`` for a `batchSize` below 1; what ``fetchObjectIDs(_:)``
    ///   throws for the request; what `body` throws, which stops the batches.
    public func forEachBatchOfObjectIDs(_ request: FetchRequest, batchSize: Int = 1000, _ body: ([ObjectID]) throws -> Void) throws {
        assertOnQueue()
        guard batchSize > 0 else { throw FetchRequestError("batchSize must be at least 1") }
        let plan = try FetchPlan(request, store: store)
        let pending = parent == nil && request.includesPendingChanges
            ? pendingObjects(among: plan.entityNames.union(plan.sortedRelatedEntityNames)) : PendingObjects()
        guard parent == nil, pending.candidates.isEmpty, pending.storedKeys.isEmpty else {
            let ids = try fetchObjectIDs(request)
            for start in stride(from: 0, to: ids.count, by: batchSize) { try body(Array(ids[start..<min(start + batchSize, ids.count)])) }
            return
        }
        var identities = request
        identities.resultType = .dictionary
        identities.propertiesToFetch = [.keyPath("self")]
        var batch: [ObjectID] = []
        batch.reserveCapacity(batchSize)
        try store.forEachDictionary(identities) { values in
            guard case .object(let id)? = values[0] else { return }
            batch.append(id)
            if batch.count == batchSize {
                try body(batch)
                batch.removeAll(keepingCapacity: true)
            }
        }
        if !batch.isEmpty { try body(batch) }
    }

    /// The number of objects `request` selects (within its offset and limit), pending changes
    /// included as ``fetch(_:)`` includes them; counted in SQL, with only the changed objects
    /// judged in memory.
    ///
    /// - Throws: as ``fetch(_:)`` does, for a request the store cannot answer or a failure of the
    ///   store.
    public func count(for request: FetchRequest) throws -> Int {
        assertOnQueue()
        let plan = try FetchPlan(request, store: store)
        return try readingWithAncestorsHeld {
            let lookup = PendingIndex.Lookup(request.predicate, entity: plan.entity, model: model)
            let pending = request.includesPendingChanges ? pendingObjects(among: plan.entityNames, lookingUp: lookup) : PendingObjects()
            var total = try store.withConnection { try store.countRows(plan, excluding: pending.storedKeys) }
            for id in pending.candidates where try matches(object(with: id), request.predicate) { total += 1 }
            return request.windowed(count: total)
        }
    }

    /// The dictionaries of a dictionary fetch, read from the store as saved (see
    /// ``PersistentStore/fetchDictionaries(_:)``).
    ///
    /// - Throws: as ``fetch(_:)`` does, and ``FetchRequestError`` for a select list, group-by or
    ///   having the request cannot run.
    public func fetchDictionaries(_ request: FetchRequest) throws -> [FetchedRow] {
        assertOnQueue()
        return try store.withConnection { try store.fetchDictionaries(request) }
    }

    /// Runs `request` for its ``FetchRequest/resultType``.
    ///
    /// - Throws: as ``fetch(_:)``, ``fetchObjectIDs(_:)``, ``count(for:)`` or ``fetchDictionaries(_:)``
    ///   throws, for the request's result type.
    public func execute(_ request: FetchRequest) throws -> FetchResult {
        switch request.resultType {
        case .managedObject: .objects(try fetch(request))
        case .managedObjectID: .objectIDs(try fetchObjectIDs(request))
        case .dictionary: .dictionaries(try fetchDictionaries(request))
        case .count: .count(try count(for: request))
        }
    }

    /// The objects `plan` selects, each made and loaded as the statement steps to its row, so
    /// that no row outlives its step. Objects the context already holds loaded keep their values.
    private func loadObjects(_ plan: FetchPlan) throws -> [ManagedObject] {
        let request = plan.request
        var objects: [ManagedObject] = []
        var recent: RecentKind?
        // The rows' scope while their entity stays the same: looking it up for each row
        // retained and released it.
        var scope: ObjectIDScope?
        try store.withConnection {
            try store.forEachSelectedRow(plan, limit: request.fetchLimit > 0 ? request.fetchLimit : nil, offset: request.fetchOffset) { row in
                let reference = row.reference
                if scope?.entityName != reference.entityName { scope = idScope(for: reference.entityName) }
                let object = object(with: ObjectID(scope: scope!, key: .permanent(reference.primaryKey)), recent: &recent)
                if object.isFault {
                    if let columns = row.columns, columns.slots === object.slots {
                        load(values(of: row, in: columns), version: row.version, into: object)
                    } else {
                        load(row.snapshot, into: object)
                    }
                }
                objects.append(object)
            }
        }
        return objects
    }

    // MARK: - Selecting with pending changes

    /// The objects a plan selects, in order, with the rows read for them.
    private func select(_ plan: FetchPlan, readsValues: Bool, generation: Int64) throws -> [(id: ObjectID, row: RowSnapshot?)] {
        try readingWithAncestorsHeld { try selectHoldingAncestors(plan, readsValues: readsValues, generation: generation) }
    }

    private func selectHoldingAncestors(_ plan: FetchPlan, readsValues: Bool, generation: Int64) throws -> [(id: ObjectID, row: RowSnapshot?)] {
        let request = plan.request
        let limit = request.fetchLimit > 0 ? request.fetchLimit : nil
        let lookup = PendingIndex.Lookup(request.predicate, entity: plan.entity, model: model)
        let pending = request.includesPendingChanges ? pendingObjects(among: plan.entityNames, lookingUp: lookup) : PendingObjects()
        // A sort key read through a changed related object has its current value only in memory.
        let sortsInMemory = request.includesPendingChanges && !plan.sortedRelatedEntityNames.isEmpty
            && pendingObjects(among: plan.sortedRelatedEntityNames).candidates.contains { !$0.isTemporary }
        if pending.candidates.isEmpty && pending.storedKeys.isEmpty && !sortsInMemory {
            return try store.withConnection {
                try store.selectRows(plan, excluding: [], readsValues: readsValues, readsSortValues: false, limit: limit, offset: request.fetchOffset) {
                    (objectID(for: $0.reference), $0.snapshot)
                }
            }
        }
        // Saved rows without pending changes come sorted from SQL; the changed and inserted
        // objects are judged and sorted in memory, and both merge by the same order.
        let window = limit.flatMap { limit in
            let (end, overflow) = limit.addingReportingOverflow(request.fetchOffset)
            return overflow || sortsInMemory ? nil : end
        }
        let stored = try store.withConnection {
            try store.selectRows(
                plan, excluding: pending.storedKeys, readsValues: readsValues || (sortsInMemory && parent == nil), readsSortValues: !sortsInMemory,
                limit: window, offset: 0) { $0 }
        }
        var entries: [SortEntry] = []
        entries.reserveCapacity(stored.count + pending.candidates.count)
        if sortsInMemory {
            // The objects are read to be sorted: their rows and the related objects the sort
            // keys pass through are loaded in one query each, not one per object.
            let objects = stored.map { row in
                let object = object(with: objectID(for: row.reference))
                if object.isFault, let snapshot = row.snapshot { object.prefetchedRow = (snapshot, generation) }
                return object
            }
            let paths = Set(plan.sortKeys.map { $0.descriptor.components.dropLast().joined(separator: ".") }).filter { !$0.isEmpty }
            try prefetch(paths.sorted(), of: objects, entityName: plan.entity.name, generation: generation)
            for (row, object) in zip(stored, objects) {
                entries.append(SortEntry(id: object.objectID, row: row.snapshot, sortValues: try sortValues(of: object, plan), rank: (0, row.reference.primaryKey)))
            }
        } else {
            for row in stored {
                entries.append(SortEntry(id: objectID(for: row.reference), row: row.snapshot, sortValues: row.sortValues, rank: (0, row.reference.primaryKey)))
            }
        }
        for (index, id) in pending.candidates.enumerated() {
            let object = object(with: id)
            guard try matches(object, request.predicate) else { continue }
            entries.append(SortEntry(id: id, row: nil, sortValues: try sortValues(of: object, plan), rank: id.primaryKey.map { (0, $0) } ?? (1, Int64(index))))
        }
        entries.sort { SortEntry.precedes($0, $1, keys: plan.sortKeys) }
        return entries.dropFirst(request.fetchOffset).prefix(limit ?? .max).map { ($0.id, $0.row) }
    }

    /// The values of the plan's sort keys on an object as it is now, changes included.
    private func sortValues(of object: ManagedObject, _ plan: FetchPlan) throws(ContextError) -> [DatabaseValue] {
        var values: [DatabaseValue] = []
        for key in plan.sortKeys {
            values.append(try PredicateEvaluator.value(ofKeyPath: key.descriptor.components, on: object).databaseValue ?? .null)
        }
        return values
    }

    private func matches(_ object: ManagedObject, _ predicate: ObjectPredicate?) throws(ContextError) -> Bool {
        try predicate?.evaluate(with: object) ?? true
    }

    /// The objects of `entityNames` with unsaved changes in this context or its parents.
    struct PendingObjects {
        /// Saved rows whose objects are changed or deleted: SQL leaves them out.
        var storedKeys: Set<Int64> = []
        /// Inserted and changed objects, judged in memory.
        var candidates: [ObjectID] = []
    }

    /// With `lookup`, only the inserted objects that may match it are candidates.
    func pendingObjects(among entityNames: Set<String>, lookingUp lookup: PendingIndex.Lookup? = nil) -> PendingObjects {
        assertOnQueue()
        var pending = parent.map { parent in parent.performAndWait { parent.pendingObjects(among: entityNames, lookingUp: lookup) } } ?? PendingObjects()
        pending.candidates.removeAll { deletedIDs.contains(permanentAliases[$0] ?? $0) }
        var listed = Set(pending.candidates)
        var changed = lookup.map { insertedObjects(among: entityNames, lookingUp: $0) }
            ?? inserted.objects.compactMap { entityNames.contains($0.objectID.entityName) ? $0.objectID : nil }
        changed += updatedObjects.filter { entityNames.contains($0.objectID.entityName) }
            .map(\.objectID).sorted { ($0.primaryKey ?? 0) < ($1.primaryKey ?? 0) }
        for id in changed where listed.insert(id).inserted { pending.candidates.append(id) }
        for id in deletedIDs where entityNames.contains(id.entityName) {
            if let key = id.primaryKey { pending.storedKeys.insert(key) }
        }
        pending.storedKeys.formUnion(pending.candidates.compactMap(\.primaryKey))
        return pending
    }

    // MARK: - Faulting in batches and prefetching

    /// Loads the rows of a batch's faults in one query.
    func load(_ batch: FaultBatch) throws(ContextError) {
        let keys = batch.ids.compactMap { registered[$0]?.isFault == true ? $0.primaryKey : nil }
        for id in batch.ids { registered[id]?.faultBatch = nil }
        guard !keys.isEmpty else { return }
        let rows: [RowSnapshot]
        do {
            rows = try store.withConnection { try store.rows(batch.entityName, where: "Z_PK IN (SELECT value FROM json_each(?))", [.keyList(keys)]) }
        } catch {
            throw ContextError(storeFailure: error)
        }
        for row in rows {
            if let object = registered[permanentID(entityName: row.entityName, primaryKey: row.primaryKey)], object.isFault {
                // A member may have been given a row of its own since (a later fetch): loaded,
                // it needs it no longer.
                object.prefetchedRow = nil
                load(row, into: object)
            }
        }
    }

    /// The objects with `ids`, all of `entityName` (not of a sub-entity), as a fetch would
    /// return them: the rows of those still faults read in one query on first use, and the
    /// destinations of `keyPaths` prefetched. For readers that page through the IDs of a
    /// large fetch (``fetchObjectIDs(_:)``):
    ///
    /// ```swift
    /// let ids = try context.fetchObjectIDs(request)
    /// for start in stride(from: 0, to: ids.count, by: 1000) {
    ///     let page = try context.objects(with: Array(ids[start..<min(start + 1000, ids.count)]), entityName: "Book")
    ///     …
    ///     context.releaseUnheldObjects()
    /// }
    /// ```
    ///
    /// - Throws: ``FetchRequestError`` for a prefetch key path that names no relationship (with the
    ///   nearest name); ``ContextError/store(_:)`` for a failure of the store while prefetching.
    public func objects(with ids: [ObjectID], entityName: String, prefetching keyPaths: [String] = []) throws -> [ManagedObject] {
        assertOnQueue()
        let objects = ids.map { object(with: $0) }
        guard parent == nil else { return objects }
        let faults = objects.filter { $0.isFault && $0.prefetchedRow == nil && $0.objectID.primaryKey != nil }
        if !faults.isEmpty {
            let batch = FaultBatch(entityName: entityName, ids: faults.map(\.objectID))
            for object in faults { object.faultBatch = batch }
        }
        try prefetch(keyPaths, of: objects, entityName: entityName, generation: store.writeGeneration)
        return objects
    }

    /// Reads the destinations of `keyPaths` for `objects`, one query per relationship level,
    /// and keeps their rows on their faults.
    private func prefetch(_ keyPaths: [String], of objects: [ManagedObject], entityName: String, generation: Int64) throws {
        guard parent == nil, !objects.isEmpty else { return }
        for keyPath in keyPaths {
            var sources = objects, entity = entityName
            for name in keyPath.split(separator: ".").map(String.init) {
                guard let owner = model.entity(named: entity), let relationship = model.relationship(named: name, in: owner) else {
                    let known = model.entity(named: entity).map { model.allRelationships(of: $0).map(\.name) } ?? []
                    throw FetchRequestError("prefetch key path '\(keyPath)': \(entity) has no relationship '\(name)'\(didYouMean(name, among: known))")
                }
                let reached = try relationship.isToMany
                    ? prefetchMembers(of: relationship, for: sources, ownerEntity: entity, generation: generation)
                    : prefetchDestinations(of: relationship, for: sources, generation: generation)
                // Many sources share destinations: each is followed once at the next level.
                var seen: Set<ObjectID> = []
                sources = reached.filter { seen.insert($0.objectID).inserted }
                entity = relationship.destinationEntityName
            }
        }
    }

    private func prefetchDestinations(of relationship: RelationshipDescription, for sources: [ManagedObject], generation: Int64) throws -> [ManagedObject] {
        var destinations: [ObjectID] = []
        for source in sources {
            if case .toOne(let id?) = try source.propertyValue(relationship.name) { destinations.append(id) }
        }
        let missing = Set(destinations.filter { registered[$0].map { $0.isFault && $0.prefetchedRow?.generation != generation } ?? true }.compactMap(\.primaryKey))
        if !missing.isEmpty {
            let rows = try store.withConnection {
                try store.rows(relationship.destinationEntityName, where: "Z_PK IN (SELECT value FROM json_each(?))", [.keyList(missing.sorted())])
            }
            for row in rows { keep(row, generation: generation) }
        }
        return destinations.map { object(with: $0) }
    }

    private func prefetchMembers(
        of relationship: RelationshipDescription, for sources: [ManagedObject], ownerEntity: String, generation: Int64
    ) throws -> [ManagedObject] {
        // Changes recorded against a to-many not read apply to the members read here.
        let unread = sources.filter {
            $0.objectID.primaryKey != nil && !$0.hasReadToMany(relationship.name)
        }
        if !unread.isEmpty {
            let members = try store.withConnection {
                try store.toManyRows(ownerEntity, relationship.name, owners: unread.compactMap(\.objectID.primaryKey), readsValues: true)
            }
            for source in unread {
                let rows = members[source.objectID.primaryKey ?? 0] ?? []
                source.committedValues[relationship.name] = .toMany(rows.map { keep($0, generation: generation).objectID })
            }
        }
        var members: [ManagedObject] = []
        for source in sources {
            if case .toMany(let ids) = try source.propertyValue(relationship.name) { members += ids.map { object(with: $0) } }
        }
        return members
    }

    /// The object of a prefetched row, which keeps the row when it is a fault.
    @discardableResult
    private func keep(_ row: RowSnapshot, generation: Int64) -> ManagedObject {
        let object = object(with: permanentID(entityName: row.entityName, primaryKey: row.primaryKey))
        if object.isFault, object.prefetchedRow?.generation != generation { object.prefetchedRow = (row, generation) }
        return object
    }
}

/// Faults a batched fetch returned together: the first one used loads them all.
final class FaultBatch {
    let entityName: String
    let ids: [ObjectID]

    init(entityName: String, ids: [ObjectID]) {
        self.entityName = entityName
        self.ids = ids
    }
}

/// A fetched object with what orders it: its sort key values, then its place in the store
/// (saved rows by key, inserted objects after them in insertion order).
private struct SortEntry {
    let id: ObjectID
    let row: RowSnapshot?
    let sortValues: [DatabaseValue]
    let rank: (Int, Int64)

    static func precedes(_ a: SortEntry, _ b: SortEntry, keys: [FetchPlan.SortKey]) -> Bool {
        for (index, key) in keys.enumerated() {
            var order = a.sortValues[index].sortOrder(b.sortValues[index], caseInsensitive: key.descriptor.caseInsensitive)
            if !key.descriptor.ascending { order = order == .orderedAscending ? .orderedDescending : order == .orderedDescending ? .orderedAscending : order }
            if order != .orderedSame { return order == .orderedAscending }
        }
        return a.rank < b.rank
    }
}
