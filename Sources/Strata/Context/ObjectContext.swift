import Dispatch
import Foundation
import Synchronization

/// A scratch pad of managed objects over a store: Core Data's `NSManagedObjectContext`.
///
/// A context and its objects are used on the context's queue only, through ``perform(_:)``,
/// its `async` form, or the re-entrant ``performAndWait(_:)``. In debug builds, touching an
/// object off its context's queue stops the program, as Core Data's `ConcurrencyDebug` does.
///
/// ```swift
/// let context = ObjectContext(store: store)
/// try await context.perform {
///     let tag = try context.insert("Tag")
///     try tag.setValue("fantasy", forKey: "name")
///     try context.save()          // one BEGIN IMMEDIATE transaction
/// }
/// ```
///
/// One object stands for one row per context (the identity map). Changes stay in the context
/// until ``save()``, which validates them, applies delete rules, checks each row's `Z_OPT`
/// against the version read, and writes everything in one transaction or nothing.
public final class ObjectContext: @unchecked Sendable {
    /// Which queue the context runs its work on.
    public enum ConcurrencyType: Sendable {
        /// A serial queue of the context's own.
        case privateQueue
        /// The main queue, for objects shown in a user interface.
        case mainQueue
    }

    /// The store at the root of the context's chain.
    public var store: PersistentStore { parent?.store ?? rootStore!.withLock { $0 } }
    /// A context on the store holds it here; children ask their parent.
    private let rootStore: Locked<PersistentStore>?
    /// The context this one reads from and saves into; `nil` for a context on the store.
    public let parent: ObjectContext?
    /// The store's model. Kept here, not asked of the store each time: property access looks
    /// it up for every value, and a stack's reset moves the context to a store of the same model.
    public let model: ObjectModel
    /// Whether the context runs its work on a private queue or on the main queue.
    public let concurrencyType: ConcurrencyType
    /// A name for the context in logs and descriptions.
    public var name: String? {
        get { settings.withLock { $0.name } }
        set { settings.withLock { $0.name = newValue } }
    }
    /// How a save resolves rows that another context or process saved since this one read
    /// them; ``MergePolicy/error`` by default.
    public var mergePolicy: MergePolicy {
        get { settings.withLock { $0.mergePolicy } }
        set { settings.withLock { $0.mergePolicy = newValue } }
    }
    private let settings: Locked<(name: String?, mergePolicy: MergePolicy)>
    /// Who this context's saves to the store are recorded for in the store's persistent
    /// history (Core Data's `transactionAuthor`); `nil` by default. Apps set it to tell their
    /// own saves from those of an extension, a widget or a script.
    ///
    /// ```swift
    /// context.transactionAuthor = "importer"
    /// ```
    public var transactionAuthor: String? {
        get { author.withLock { $0 } }
        set { author.withLock { $0 = newValue } }
    }
    private let author = Locked<String?>(nil)

    let queue: DispatchQueue
    /// What marks the context's queue as held: the main queue's token for a main-queue
    /// context (several share that queue), the context's own otherwise.
    let queueToken: QueueToken

    // The state below is the context's own, read and written on its queue only. Swift checks
    // each access to a class's stored property for overlap at run time; here, with those of
    // ``ManagedObject``, the checks cost 8 to 13% of inserting, fetching or updating 100,000
    // objects (cases 1, 2 and 4 of `scripts/bench`), and the test suite ran clean with them
    // on before they were turned off.

    /// The identity map: every object the context holds, by ID.
    @exclusivity(unchecked) var registered = IdentityMap()
    /// Inserted objects in the order of insertion, so that saved keys follow it.
    @exclusivity(unchecked) var inserted = InsertedObjects()
    @exclusivity(unchecked) var deletedIDs: Set<ObjectID> = []
    /// Objects whose unsaved values changed since the context last looked at them.
    @exclusivity(unchecked) var recentlyChanged: [ManagedObject] = []
    /// Saved objects that may hold unsaved changes, in the order they were first changed:
    /// finding the changed objects walks these forward, not every object held, nor a hash
    /// table in its own order (objects changed in the order of a fetch come out in ID order,
    /// so a save's sort finds them sorted). A place is emptied (`nil`) when its object leaves
    /// the list (``ObjectContext/unlistAsChanged(_:)``): a listed object is a registered one.
    @exclusivity(unchecked) var changedSavedObjects: [ManagedObject?] = []
    /// Inserted objects by the values of the attributes fetches look them up by.
    @exclusivity(unchecked) var pendingIndex = PendingIndex()
    /// Objects inserted and deleted again before a save: gone from the context at the save.
    @exclusivity(unchecked) var pendingDroppedInserts: Set<ObjectID> = []
    /// The unsaved values of objects whose change observers heard of them when a child pushed
    /// them here: this context's own save of the same values tells them nothing new.
    @exclusivity(unchecked) var announcedChanges: [ObjectID: PropertyValues] = [:]
    /// The change notices held while a commit passes through the context (see
    /// ``holdChangeNotices()``); `nil` when they are told as they come.
    @exclusivity(unchecked) var heldChange: ObjectsDidChange?
    /// Whether the context's save is a step of a ``commit()``, which holds its parent's
    /// change notices until the commit has the permanent IDs.
    @exclusivity(unchecked) var isCommitting = false
    /// A commit's push into the parent, finished in this context once every level saved.
    @exclusivity(unchecked) var pendingPush: PushedChanges?
    /// Whether a push into the parent leaves this context's changes pending: it is the
    /// context a ``commit()`` started from.
    @exclusivity(unchecked) var defersPushFinish = false
    /// Objects whose validation saves leave to a later one: an import saving batch after batch
    /// inside one transaction, whose links to records of later batches are not in yet.
    @exclusivity(unchecked) var deferredValidation: Set<ObjectID> = []
    /// The permanent IDs the last save to the store gave inserted objects, by temporary ID.
    @exclusivity(unchecked) var lastPermanentIDs: PermanentIDs = [:]
    /// The store's `PRAGMA data_version` when ``mergeExternalChanges()`` last looked.
    @exclusivity(unchecked) var externalDataVersion: Int64?
    /// The store's last history transaction when ``mergeExternalChanges()`` last looked.
    @exclusivity(unchecked) var externalHistoryToken: PersistentHistoryToken?
    /// The temporary IDs of objects this context pushed to its parent, until it learns their
    /// permanent ones: a save up the chain gives them, and reads take them on the way.
    @exclusivity(unchecked) var awaitingPermanentIDs: Set<ObjectID> = []
    /// How many permanent IDs the parent knew when this context last looked for those.
    @exclusivity(unchecked) var parentAliasCountSeen = -1
    /// Every temporary ID this context has seen become permanent: a child that still holds
    /// the temporary ID of a saved object finds it through this.
    @exclusivity(unchecked) var permanentAliases: PermanentIDs = [:]
    /// Each entity's parsed `strata.invalidIf` (`nil` for none), by entity name.
    @exclusivity(unchecked) var invalidIfRules: [String: ObjectPredicate?] = [:]
    /// The values a new object of each entity starts with, by entity name: made once, so
    /// that inserting many objects does not read the model's defaults once per object.
    @exclusivity(unchecked) var insertionTemplates: [String: InsertionTemplate] = [:]
    /// The last template used, found without hashing the entity's name: a loop inserts one
    /// entity's objects in a run.
    @exclusivity(unchecked) var recentTemplate: InsertionTemplate?
    /// Caches of look-ups made per object: see ``idScope(for:)`` and ``binding(for:)``.
    @exclusivity(unchecked) private var idScopes: [String: ObjectIDScope] = [:]
    @exclusivity(unchecked) private var recentIDScope: ObjectIDScope?
    @exclusivity(unchecked) private var bindings: [String: ObjectBinding] = [:]
    @exclusivity(unchecked) private var recentBinding: ObjectBinding?
    /// The class ``ManagedObject/init(context:)`` registered last, its entity, and the count
    /// of registrations when it did (see ``entity(inserting:named:)``).
    @exclusivity(unchecked) var recentInsertedClass: (objectClass: ObjectIdentifier, entity: EntityDescription, registrations: Int)?

    let observers = Locked<[UUID: @Sendable (ContextDidSave) -> Void]>([:])
    /// What ``addObjectsDidChangeObserver(_:)`` registered.
    let changeObservers = Locked<[UUID: @Sendable (ObjectsDidChange) -> Void]>([:])
    private let children = Locked<[WeakContext]>([])
    private let mergesFromParent = Locked(false)
    private let objectClasses = Locked<[String: ManagedObject.Type]>([:])
    /// How many classes were registered in the context: a registration from any thread
    /// counts, so that the cache of ``entity(inserting:named:)`` sees that its class may be
    /// replaced.
    let classRegistrations = Atomic<Int>(0)
    /// What the context's objects reach it through (see ``ContextLink``).
    let link = ContextLink()

    /// Whether saves into the parent (by the parent or by a sibling) are merged into this
    /// context on its queue, as they happen.
    public var automaticallyMergesChangesFromParent: Bool {
        get { mergesFromParent.withLock { $0 } }
        set { mergesFromParent.withLock { $0 = newValue } }
    }

    /// A context on `store` with its own queue (or the main queue).
    public convenience init(store: PersistentStore, concurrencyType: ConcurrencyType = .privateQueue, name: String? = nil) {
        self.init(store: store, parent: nil, concurrencyType: concurrencyType, name: name)
    }

    /// A child of `parent`: it reads through the parent, and its saves push its changes into
    /// the parent, which the store sees when the parent chain saves.
    public convenience init(parent: ObjectContext, concurrencyType: ConcurrencyType = .privateQueue, name: String? = nil) {
        self.init(store: nil, parent: parent, concurrencyType: concurrencyType, name: name)
        parent.children.withLock { $0.append(WeakContext(self)) }
        let inherited = parent.objectClasses.withLock { $0 }
        objectClasses.withLock { $0 = inherited }
    }

    private init(store: PersistentStore?, parent: ObjectContext?, concurrencyType: ConcurrencyType, name: String?) {
        rootStore = store.map(Locked.init)
        model = store?.model ?? parent!.model
        settings = Locked((name, .error))
        self.parent = parent
        self.concurrencyType = concurrencyType
        queue = concurrencyType == .mainQueue ? .main : DispatchQueue(label: "strata.context.\(name ?? "private")")
        queueToken = concurrencyType == .mainQueue ? .mainQueue : .next()
        QueueToken.mark(queue, with: queueToken)
        link.attach(self)
    }

    deinit {
        // Objects that outlive the context read it as gone from now on.
        ManagedObject.ownershipLock.withLock { link.clearLocked() }
    }

    /// The live children that merge their parent's saves.
    func mergingChildren() -> [ObjectContext] {
        children.withLock { list in
            list.removeAll { $0.context == nil }
            return list.compactMap(\.context).filter(\.automaticallyMergesChangesFromParent)
        }
    }

    // MARK: - Objects

    /// Makes the context hand out instances of `objectClass` for `entityName` (typed subclasses);
    /// child contexts made afterwards inherit the registration.
    public func register(_ objectClass: ManagedObject.Type, for entityName: String) {
        _ = registerCounted(objectClass, for: entityName)
    }

    /// ``register(_:for:)``, returning the count of registrations made in the context with
    /// this one: an insert that finds the count unchanged since its class's own registration
    /// knows that the class still stands (see ``entity(inserting:named:)``).
    func registerCounted(_ objectClass: ManagedObject.Type, for entityName: String) -> Int {
        objectClasses.withLock {
            $0[entityName] = objectClass
            return classRegistrations.add(1, ordering: .releasing).newValue
        }
    }

    /// Registers typed subclasses, each for its ``ManagedObject/entityName``.
    public func register(_ objectClasses: [ManagedObject.Type]) {
        for objectClass in objectClasses { register(objectClass, for: objectClass.entityName) }
    }

    /// The object with `id`: the one the context holds, else a fault that loads its row on
    /// first access (and fails then if the row is gone).
    public func object(with id: ObjectID) -> ManagedObject {
        assertOnQueue()
        let id = id.isTemporary ? permanentAliases[id] ?? id : id
        if let object = registered[id] { return object }
        if !id.isTemporary, !awaitingPermanentIDs.isEmpty {
            // Perhaps one of the objects this context pushed has been saved with this ID.
            readingWithAncestorsHeld {}
            if let object = registered[id] { return object }
        }
        let entity = model.entity(named: id.entityName) ?? EntityDescription(name: id.entityName)
        return makeObject(entity: entity, id: id, isFault: true)
    }

    /// ``object(with:)`` for one of the many IDs of a read: `recent` keeps the entity and class
    /// of the last object made, so that making objects of one entity looks them up once.
    func object(with id: ObjectID, recent: inout RecentKind?) -> ManagedObject {
        guard !id.isTemporary, awaitingPermanentIDs.isEmpty else { return object(with: id) }
        if recent?.scope !== id.scope {
            let entity = model.entity(named: id.entityName) ?? EntityDescription(name: id.entityName)
            recent = RecentKind(scope: id.scope, entity: entity, objectClass: objectClasses.withLock { $0[entity.name] } ?? ManagedObject.self)
        }
        // One probe of the identity map for an object it holds and for one it does not. The
        // kind is read where it is rather than copied out, which retained its scope and entity.
        return registered.object(forKey: id) { recent!.objectClass.init(entity: recent!.entity, objectID: id, context: self, isFault: true) }
    }

    /// The entity and class of the objects of one store and entity.
    struct RecentKind {
        let scope: ObjectIDScope
        let entity: EntityDescription
        let objectClass: ManagedObject.Type
    }

    /// The object with `id`, loaded: fails when the store has no such row.
    ///
    /// - Throws: ``ContextError/objectNotFound(_:)`` when no row has the ID (or the object was
    ///   deleted); ``ContextError/store(_:)`` for a failure of the store.
    public func existingObject(with id: ObjectID) throws(ContextError) -> ManagedObject {
        let object = self.object(with: id)
        guard !deletedIDs.contains(id) else { throw .objectNotFound(id) }
        try fireFault(object)
        return object
    }

    /// This context's instance of `object`, which may belong to any context on the same store
    /// (CoreDataMonk's `use`): the object itself when it is this context's, else the one with
    /// its ID, loaded. Call it on this context's queue, whichever queue `object`'s is.
    ///
    /// ```swift
    /// try worker.performAndWait {
    ///     let book = try worker.use(bookOnScreen)     // bookOnScreen belongs to the main context
    ///     try book.setValue(5.0, forKey: "rating")
    ///     try worker.commit()
    /// }
    /// ```
    ///
    /// - Throws: ``ContextError/objectNotFound(_:)`` when the object is not saved where this
    ///   context can see it (inserted in an unrelated context, or deleted);
    ///   ``ContextError/wrongType(entity:property:value:expected:)`` when this context hands out
    ///   another class for the entity.
    public func use<Object: ManagedObject>(_ object: Object) throws(ContextError) -> Object {
        assertOnQueue()
        // Read without waiting for the owner's queue: the owner may be a child that waits for
        // this context's.
        let (owner, id) = object.ownership
        if owner == Unmanaged.passUnretained(self).toOpaque() { return object }
        let own = try existingObject(with: id)
        guard let typed = own as? Object else {
            throw .wrongType(
                entity: id.entityName, property: "class", value: "\(type(of: own))",
                expected: "\(Object.self), which this context hands out only once registered (register(_:), or the stack's)")
        }
        return typed
    }

    /// This context's instances of `objects`, in order (see ``use(_:)-(Object)``).
    ///
    /// - Throws: what ``use(_:)-(Object)`` throws for the first object it cannot give.
    public func use<Object: ManagedObject>(_ objects: [Object]) throws(ContextError) -> [Object] {
        var own: [Object] = []
        own.reserveCapacity(objects.count)
        for object in objects { own.append(try use(object)) }
        return own
    }

    /// How many objects the context holds: ``registeredObjects``' count, without the array.
    public var registeredObjectCount: Int {
        assertOnQueue()
        return registered.count
    }

    /// The objects the context holds.
    public var registeredObjects: [ManagedObject] {
        assertOnQueue()
        return Array(registered.values)
    }

    /// The class registered for `entityName`'s objects, if any.
    func registeredClass(for entityName: String) -> ManagedObject.Type? {
        objectClasses.withLock { $0[entityName] }
    }

    func makeObject(entity: EntityDescription, id: ObjectID, isFault: Bool, objectClass: ManagedObject.Type? = nil) -> ManagedObject {
        let objectClass = objectClass ?? objectClasses.withLock { $0[entity.name] } ?? ManagedObject.self
        let object = objectClass.init(entity: entity, objectID: id, context: self, isFault: isFault)
        registered[id] = object
        return object
    }

    /// Loads a fault's values: from the parent context, or the store's row.
    func fireFault(_ object: ManagedObject) throws(ContextError) {
        guard object.isFault else { return }
        if let parent {
            let id = object.objectID
            let snapshot = try parent.performAndWait { () throws(ContextError) -> (PropertyValues, Int64) in
                let source = parent.object(with: id)
                guard !parent.deletedIDs.contains(id) else { throw .objectNotFound(id) }
                try parent.fireFault(source)
                return (source.committedValues.merging(source.changedValues).unshared(), source.version)
            }
            object.committedValues = snapshot.0
            object.version = snapshot.1
            object.isFault = false
            return
        }
        if let kept = object.prefetchedRow {
            object.prefetchedRow = nil
            if kept.generation >= 0, (try? store.writeGeneration) == kept.generation {
                load(kept.row, into: object)
                return
            }
        }
        if let batch = object.faultBatch {
            try load(batch)
            if !object.isFault { return }
        }
        guard let primaryKey = object.objectID.primaryKey else { throw .objectNotFound(object.objectID) }
        try checkStore(of: object.objectID)
        let row: RowSnapshot?
        do {
            row = try store.withConnection { try store.row(object.objectID.entityName, primaryKey: primaryKey) }
        } catch {
            throw ContextError(storeFailure: error)
        }
        guard let row else { throw .objectNotFound(object.objectID) }
        load(row, into: object)
    }

    /// Replaces an object's committed values with a row read from the store.
    func load(_ row: RowSnapshot, into object: ManagedObject) {
        load(values(of: row, for: object.entity, in: object.slots), version: row.version, into: object)
    }

    /// Replaces an object's committed values with `loaded`, read at `version`.
    func load(_ loaded: PropertyValues, version: Int64, into object: ManagedObject) {
        if !object.holdsCommittedValues {
            object.committedValues = loaded
        } else {
            object.committedValues.merge(loaded)
        }
        object.version = version
        object.isFault = false
    }

    /// The ID of a row of this context's store.
    func objectID(for reference: RowReference) -> ObjectID {
        permanentID(entityName: reference.entityName, primaryKey: reference.primaryKey)
    }

    /// The permanent ID of the row `primaryKey` of `entityName` in this context's store.
    func permanentID(entityName: String, primaryKey: Int64) -> ObjectID {
        ObjectID(scope: idScope(for: entityName), key: .permanent(primaryKey))
    }

    /// Refuses a permanent ID of another store than this context's: its key would open
    /// whichever row of this store has the same number.
    func checkStore(of id: ObjectID) throws(ContextError) {
        guard !id.isTemporary, id.scope !== idScope(for: id.entityName) else { return }
        throw .objectOfAnotherStore(id, contextStore: store.metadata.uuid)
    }

    /// The scope of this context's store and `entityName`, found without the process-wide
    /// table's lock after the first time.
    func idScope(for entityName: String) -> ObjectIDScope {
        if let recent = recentIDScope, recent.entityName == entityName { return recent }
        let scope = idScopes[entityName] ?? ObjectIDScope.named(entityName, inStore: store.metadata.uuid)
        idScopes[entityName] = scope
        recentIDScope = scope
        return scope
    }

    /// What this context's objects of `entity` share, made once per entity and found without
    /// hashing for a run of objects of one entity.
    func binding(for entity: EntityDescription) -> ObjectBinding {
        // Compared in place: binding the recent one to a constant would retain it.
        if recentBinding?.entity == entity { return recentBinding.unsafelyUnwrapped }
        let binding: ObjectBinding
        if let known = bindings[entity.name], known.entity == entity {
            binding = known
        } else {
            // The model's own description when it is equal, so that later objects of the
            // model's entity find the binding by identity rather than comparing every part.
            let modelEntity = model.entity(named: entity.name)
            let isModels = modelEntity == entity
            binding = ObjectBinding(link: link, entity: isModels ? modelEntity.unsafelyUnwrapped : entity, slots: model.propertySlots(of: entity))
            // An entity the model lacks, or one unlike the model's of its name, gets a binding
            // of its own rather than the one objects of the model's entity share.
            if bindings[entity.name] == nil || isModels { bindings[entity.name] = binding }
        }
        recentBinding = binding
        return binding
    }

    /// The IDs a to-many holds in the store, loaded on first use.
    func storedToMany(_ object: ManagedObject, _ relationship: String) throws(ContextError) -> [ObjectID] {
        if let parent {
            let id = object.objectID
            return try parent.performAndWait { () throws(ContextError) -> [ObjectID] in
                guard case .toMany(let ids) = try parent.object(with: id).propertyValue(relationship) else { return [] }
                return ids
            }
        }
        guard let primaryKey = object.objectID.primaryKey else { return [] }
        do {
            return try store.withConnection { try store.toManyReferences(object.objectID.entityName, relationship, primaryKey: primaryKey) }
                .map(objectID(for:))
        } catch {
            throw ContextError(storeFailure: error)
        }
    }

    // MARK: - Changes

    /// Whether any object has changes not saved yet.
    public var hasChanges: Bool {
        assertOnQueue()
        return !inserted.isEmpty || !deletedIDs.isEmpty || !updatedObjects.isEmpty
    }

    /// The objects inserted since the last save, in the order they were inserted.
    public var insertedObjects: [ManagedObject] {
        assertOnQueue()
        return inserted.objects
    }
    /// The objects deleted since the last save.
    public var deletedObjects: [ManagedObject] {
        assertOnQueue()
        return deletedIDs.compactMap { registered[$0] }
    }
    /// The saved objects changed since the last save.
    public var updatedObjects: [ManagedObject] {
        assertOnQueue()
        absorbChanges()
        var updated: [ManagedObject] = []
        for case let object? in changedSavedObjects where isUpdated(object) {
            // Whatever lets an object go takes it off the list (see ``unlistAsChanged(_:)``).
            assert(registered[object.objectID] === object, "a listed object is registered")
            updated.append(object)
        }
        return updated
    }

    /// Whether `object` is saved and changed: not inserted, deleted, or inserted and deleted again.
    func isUpdated(_ object: ManagedObject) -> Bool {
        holdsSavedChanges(object) && object.hasChangedValues
    }

    /// Whether `object` is saved (not inserted, deleted, or inserted and deleted again) and
    /// holds unsaved values, which may still equal its saved ones.
    func holdsSavedChanges(_ object: ManagedObject) -> Bool {
        // Most registered objects have no changes: that test costs no look-up.
        guard object.holdsChanges else { return false }
        let id = object.objectID
        return !object.isPendingInsert && (deletedIDs.isEmpty || !deletedIDs.contains(id))
            && (pendingDroppedInserts.isEmpty || !pendingDroppedInserts.contains(id))
    }

    /// Throws away every unsaved change: inserted objects leave the context, deleted ones come
    /// back, and changed ones return to their saved values.
    public func rollback() {
        assertOnQueue()
        for object in inserted.objects { registered[object.objectID] = nil }
        for id in pendingDroppedInserts { registered[id] = nil }
        inserted.removeAll()
        deletedIDs = []
        pendingDroppedInserts = []
        for object in registered.values { object.changedValues.removeAll() }
        clearChangeTracking()
    }

    /// Moves a context on a store to `store` (a stack's reset): call it after ``reset()``, on
    /// the context's queue. Its children follow, since they read through it.
    func replaceStore(with store: PersistentStore) {
        assertOnQueue()
        assert(store.model == model, "a context moves only to a store of its model")
        rootStore?.withLock { $0 = store }
    }

    /// Forgets every object, saved or not. Objects the caller still holds read as they were
    /// last seen (the faults among them are loaded first) and refuse changes with
    /// ``ContextError/forgottenObject(_:)``.
    public func reset() {
        assertOnQueue()
        loadHeldFaults()
        ManagedObject.ownershipLock.withLock {
            for object in registered.values { object.detachLocked() }
        }
        registered.removeAll()
        permanentAliases = [:]
        awaitingPermanentIDs = []
        parentAliasCountSeen = -1
        lastPermanentIDs = [:]
        inserted.removeAll()
        deletedIDs = []
        pendingDroppedInserts = []
        announcedChanges = [:]
        // IDs made from now on name the store the context reads now, which a stack's reset
        // has replaced.
        idScopes = [:]
        recentIDScope = nil
        clearChangeTracking()
        objectsDidChange(ObjectsDidChange(isReset: true))
    }

    /// Lets go of the saved objects without unsaved changes that nothing outside the context
    /// holds, as Core Data's contexts hold such objects weakly, so that a long read runs in
    /// bounded memory. An object asked for again is read again from the store. It looks at
    /// every object the context holds: call it once per batch, not per object.
    public func releaseUnheldObjects() {
        releaseUnheldObjects(among: Array(registered.keys))
    }

    /// ``releaseUnheldObjects()`` for the objects `ids` only: a loop over batches lets go of
    /// the batch it finished without looking again at every object the context holds, which
    /// keeps a pass that changes every object linear.
    public func releaseUnheldObjects(among ids: some Sequence<ObjectID>) {
        assertOnQueue()
        absorbChanges()
        for id in ids where !id.isTemporary {
            guard var object = registered.removeValue(forKey: id) else { continue }
            let hasChanges = object.hasChanges
            // Changes made and undone leave the object listed as changed, which holds it.
            if !hasChanges { unlistAsChanged(object) }
            if hasChanges || !isKnownUniquelyReferenced(&object) { registered[id] = object }
        }
    }

    /// Reloads `object` from the store on next access; with `mergeChanges`, its unsaved changes
    /// stay on top of the fresh values, else they are thrown away. Its fetched properties are
    /// fetched again when next read, as Core Data evaluates them anew after a refresh.
    public func refresh(_ object: ManagedObject, mergeChanges: Bool) {
        assertOnQueue()
        object.fetchedResults = [:]
        guard !object.objectID.isTemporary else { return }
        object.prefetchedRow = nil
        object.committedValues.removeAll()
        object.isFault = true
        if !mergeChanges { object.changedValues.removeAll() }
    }
}

/// A context held weakly, so that children do not outlive their owners through their parent.
private struct WeakContext: @unchecked Sendable {
    weak var context: ObjectContext?

    init(_ context: ObjectContext) {
        self.context = context
    }
}
