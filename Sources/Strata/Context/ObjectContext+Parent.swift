extension ObjectContext {
    /// A child's save: its inserted, changed and deleted objects become the parent's pending
    /// changes, with the same IDs. Inverses and delete rules were applied in the child, so
    /// the parent takes the values as they are.
    ///
    /// Inside a ``commit()`` the child keeps its changes as pending until every level saved
    /// (see ``PushedChanges``): a level above that fails takes the push back.
    func pushToParent() throws(ContextError) {
        guard let parent else { return }
        let inserted = self.inserted.objects
        let updated = updatedObjects
        let deleted = deletedObjects
        let insertedValues = inserted.map { ($0.objectID, $0.committedValues.merging($0.changedValues).unshared()) }
        // To-many changes travel as what was added and removed, so that the parent's own
        // unsaved changes to the same relationship stay.
        let changes = updated.map { object in
            let values = object.effectiveChanges
            var deltas: [String: ToManyChanges] = [:]
            for (key, value) in values {
                switch (value, object.committedValues[key]) {
                case (.toMany(let now), .toMany(let before)?):
                    deltas[key] = ToManyChanges(from: before, to: now)
                case (.toManyChanges(let changes), _):
                    deltas[key] = changes
                default:
                    break
                }
            }
            return (object.objectID, values, deltas)
        }
        let deletedObjectIDs = deleted.map(\.objectID)
        let holdsParentsNotices = isCommitting
        var parentBefore: Savepoint?
        try parent.performAndWait { () throws(ContextError) in
            if holdsParentsNotices {
                parent.holdChangeNotices()
                parentBefore = parent.savepoint()
            }
            for (id, values) in insertedValues {
                let object = parent.object(with: id)
                object.isFault = false
                object.changedValues = values
                parent.inserted.insert(object)
            }
            for (id, values, deltas) in changes {
                let object = parent.object(with: id)
                try parent.fireFault(object)
                for (key, value) in values {
                    if let changes = deltas[key] {
                        try object.changeMembers(ofToMany: key, by: changes)
                    } else {
                        object.changedValues[key] = value
                    }
                }
            }
            for id in deletedObjectIDs {
                if let object = parent.registered[id], parent.inserted.remove(object) {
                    parent.pendingDroppedInserts.insert(id)
                } else {
                    try parent.fireFault(parent.object(with: id))
                    parent.deletedIDs.insert(id)
                }
            }
            // When a commit goes on to save the parent to the store, that save tells the
            // parent's other children, under permanent IDs.
            if !(holdsParentsNotices && parent.parent == nil) { parent.announceToChildren(except: self) }
            if parent.hasChangeObservers {
                var change = ObjectsDidChange(inserted: Set(insertedValues.map(\.0)), deleted: Set(deletedObjectIDs))
                for (id, values, _) in changes {
                    change.updated.insert(id)
                    change.changedKeys[id] = Set(values.keys)
                }
                for id in change.inserted.union(change.updated) {
                    parent.announcedChanges[id] = parent.object(with: id).changedValues
                }
                parent.objectsDidChange(change)
            }
        }
        var pushed = PushedChanges(inserted: inserted, updated: updated, deleted: deleted, parentBefore: parentBefore, isFinished: false)
        // The context a commit started from keeps its changes pending until the store saved
        // them: its queue is the commit's own. A context between it and the store takes them
        // as saved at once, as others use it meanwhile, and is put right if the commit fails.
        if parentBefore == nil || !defersPushFinish {
            finishPush(pushed)
            pushed.isFinished = true
        }
        if parentBefore != nil { pendingPush = pushed }
    }

    /// What a child's save pushed into its parent, and the parent's unsaved changes before the
    /// push. A ``commit()`` finishes the push in the child (its changes become saved there)
    /// only once every level above saved; when one fails, the parent goes back to what it had,
    /// so that the store's refusal (a uniqueness clash, a conflict) leaves no trace above the
    /// context the commit started from, whose changes stay pending, to be fixed or rolled back.
    struct PushedChanges {
        let inserted: [ManagedObject]
        let updated: [ManagedObject]
        let deleted: [ManagedObject]
        let parentBefore: Savepoint?
        /// Whether the child took its pushed changes as saved already.
        var isFinished: Bool
    }

    /// The child's side of a push: its pushed changes become its saved state, and it tells
    /// its listeners.
    private func finishPush(_ pushed: PushedChanges) {
        let (inserted, updated, deleted) = (pushed.inserted, pushed.updated, pushed.deleted)
        let newlyInserted = Set(inserted.map(\.objectID))
        awaitingPermanentIDs.formUnion(newlyInserted)
        let change = changeToAnnounce(inserted: inserted, updated: updated, deleted: deleted)
        let unreadToManyChanges = commitSaved(inserted: inserted, updated: updated, versions: nil, deleted: deleted)
        objectsDidChange(change)
        announce(didSaveNotification(
            saved: inserted + updated, inserted: newlyInserted, deleted: Set(deleted.map(\.objectID)), permanentIDs: [:],
            unreadToManyChanges: unreadToManyChanges))
    }

    /// Ends a commit's pending push: `succeeded`, the child takes its changes as saved;
    /// otherwise the parent goes back to its unsaved changes of before the push.
    private func settlePendingPush(succeeded: Bool) {
        guard let pushed = pendingPush else { return }
        pendingPush = nil
        if succeeded {
            if !pushed.isFinished { finishPush(pushed) }
            return
        }
        if let parent, let before = pushed.parentBefore {
            parent.performAndWait { parent.rollback(to: before) }
        }
        // The values it took as saved are read again from the parent, which no longer has them.
        if pushed.isFinished {
            for object in pushed.updated where registered[object.objectID] === object { refresh(object, mergeChanges: true) }
        }
    }

    /// Runs `read` while this thread holds the queues of this context and of every ancestor,
    /// once each context of the chain took the permanent IDs that a save to the store gave the
    /// objects it pushed. A read that looks at the parents' pending changes and then at the
    /// store sees both as of one moment: a save landing in between would show an object both
    /// as a parent's pending insert and as a stored row.
    func readingWithAncestorsHeld<T>(_ read: () throws -> T) rethrows -> T {
        guard let parent else { return try read() }
        return try parent.performAndWait {
            try parent.readingWithAncestorsHeld {
                adoptPermanentIDs()
                return try read()
            }
        }
    }

    /// Rekeys the objects this context pushed to its parent with the permanent IDs the
    /// parent (already up to date, its queue held) knows for them.
    private func adoptPermanentIDs() {
        // The parent's aliases only grow (a reset empties them): unchanged, they hold nothing new.
        guard let parent, !awaitingPermanentIDs.isEmpty, parent.permanentAliases.count != parentAliasCountSeen else { return }
        parentAliasCountSeen = parent.permanentAliases.count
        awaitingPermanentIDs = awaitingPermanentIDs.filter { registered[$0] != nil }
        var found: PermanentIDs = [:]
        for id in awaitingPermanentIDs {
            if let permanent = parent.permanentAliases[id] { found[id] = permanent }
        }
        rekey(found)
    }

    /// After a child pushed into this context, its other children that merge automatically
    /// merge the pushed state.
    private func announceToChildren(except pusher: ObjectContext) {
        let changed = registered.values.filter { $0.hasChanges && !deletedIDs.contains($0.objectID) }
        let notification = didSaveNotification(
            saved: changed, inserted: Set(inserted.objects.map(\.objectID)), deleted: deletedIDs, permanentIDs: [:])
        for child in mergingChildren() where child !== pusher {
            child.perform { child.mergeChanges(fromContextDidSave: notification) }
        }
    }

    /// Saves this context and each parent up to the store, in order (KarthVader's `commit`).
    /// Afterwards the context's inserted objects have their permanent IDs.
    ///
    /// - Throws: what ``save()`` throws at the first level that fails. Nothing is saved then:
    ///   each parent takes back what was pushed into it, and this context keeps its changes.
    public func commit() throws(ContextError) {
        _ = try commitChain()
    }

    /// ``commit()`` from any thread (KarthVader's `commit(wait:)`): with `wait`, on the
    /// context's queue while the caller waits, throwing what the commit threw; without, later
    /// on the context's queue, a failure logged at error level (`strata.context`) since no
    /// one is left to hear it; use ``commit(wait:completion:)`` to hear it.
    public func commit(wait: Bool) throws(ContextError) {
        if wait {
            try performAndWait { () throws(ContextError) in try commit() }
        } else {
            commit(wait: false) { failure in
                guard let failure else { return }
                StrataLog.logger(label: "strata.context").error("commit of context \(self.name ?? "unnamed") failed: \(failure)")
            }
        }
    }

    /// ``commit()`` from any thread, calling `completion` with the error (`nil` when every
    /// level saved): with `wait`, on the context's queue while the caller waits; without, later
    /// (KarthVader's `commit { … }`). `completion` runs on the context's queue, so it may use
    /// the committed objects, which have their permanent IDs.
    ///
    /// ```swift
    /// context.commit { error in
    ///     if let error { print("not saved: \(error)") }
    /// }
    /// ```
    public func commit(wait: Bool = false, completion: @escaping @Sendable (ContextError?) -> Void) {
        let work: @Sendable () -> Void = {
            do throws(ContextError) {
                try self.commit()
                completion(nil)
            } catch {
                completion(error)
            }
        }
        if wait { performAndWait(work) } else { perform(work) }
    }

    /// ``commit()``: saves this context, then each ancestor in turn, each on its own queue and
    /// one level at a time (no queue is held while another's save runs), and hands the store
    /// save's permanent IDs back down the chain.
    ///
    /// Each context of the chain holds its change notices from the moment the commit reaches it
    /// until its objects have their permanent IDs, then tells them in one notice: an object
    /// saved in the background appears once in a list, under its permanent ID.
    private func commitChain() throws(ContextError) -> PermanentIDs {
        var chain: [ObjectContext] = []
        var next = parent
        while let context = next {
            chain.append(context)
            next = context.parent
        }
        holdChangeNotices()
        var permanent: PermanentIDs = [:]
        do throws(ContextError) {
            defersPushFinish = true
            defer { defersPushFinish = false }
            try committingStep { () throws(ContextError) in try save() }
            permanent = parent == nil ? lastPermanentIDs : [:]
            for context in chain {
                let saved = try context.performAndWait { () throws(ContextError) -> PermanentIDs in
                    try context.committingStep { () throws(ContextError) in try context.save() }
                    guard context.parent == nil else { return [:] }
                    context.releaseChangeNotices()
                    return context.lastPermanentIDs
                }
                permanent.merge(saved)
            }
        } catch {
            // Nothing is saved unless the store saved it: each level takes back what was pushed
            // into it, the top first, and this context keeps its changes pending.
            for context in chain.dropLast().reversed() { context.performAndWait { context.settlePendingPush(succeeded: false) } }
            settlePendingPush(succeeded: false)
            releaseChangeNotices()
            for context in chain { context.performAndWait { context.releaseChangeNotices() } }
            throw error
        }
        settlePendingPush(succeeded: true)
        for context in chain.dropLast() { context.performAndWait { context.settlePendingPush(succeeded: true) } }
        if !permanent.isEmpty { rekey(permanent) }
        releaseChangeNotices()
        for context in chain.dropLast() {
            context.performAndWait {
                if !permanent.isEmpty { context.rekey(permanent) }
                context.releaseChangeNotices()
            }
        }
        return permanent
    }

    /// Runs `save` as a step of a commit, which holds the parent's notices (see ``commitChain()``).
    private func committingStep(_ save: () throws(ContextError) -> Void) throws(ContextError) {
        isCommitting = true
        defer { isCommitting = false }
        try save()
    }

    /// Gives `objects` (inserted into this context on the store) their permanent IDs now,
    /// before the save: the keys are taken from `Z_MAX` in a transaction of their own.
    ///
    /// - Throws: ``ContextError/needsContextOnStore(operation:)`` in a child context;
    ///   ``ContextError/store(_:)`` when the store cannot hand out keys.
    public func obtainPermanentIDs(for objects: [ManagedObject]) throws(ContextError) {
        assertOnQueue()
        guard parent == nil else { throw .needsContextOnStore(operation: "obtainPermanentIDs") }
        let temporary = objects.filter(\.objectID.isTemporary)
        guard !temporary.isEmpty else { return }
        var map: PermanentIDs = [:]
        do {
            try store.withConnection {
                try store.database.inTransaction {
                    for object in temporary {
                        let key = try store.allocatePrimaryKeys(for: object.objectID.entityName).lowerBound
                        map[object.objectID] = permanentID(entityName: object.objectID.entityName, primaryKey: key)
                    }
                }
            }
        } catch {
            throw ContextError(storeFailure: error)
        }
        rekey(map)
    }
}
