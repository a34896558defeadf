import Foundation

/// An object of an entity, living in one ``ObjectContext``: Core Data's `NSManagedObject`.
///
/// Values are read and written by key, on the context's queue:
///
/// ```swift
/// try context.performAndWait {
///     let book = try context.insert("Book")
///     try book.setValue("The Hobbit", forKey: "title")
///     try book.setValue(author, forKey: "author")      // author.books now holds book too
///     book["author.name"] as? String                   // key paths through to-one relationships
/// }
/// ```
///
/// An object fetched by ID starts as a fault and loads its row on first access. Relationships
/// are kept in step from both sides: setting a to-one updates the destination's inverse, and
/// adding to a to-many sets the added object's inverse.
///
/// An object may be handed to another thread or task (closures given to `perform` or
/// `beginUpdate` capture objects), but its values are read and written on its context's queue
/// only: debug builds stop otherwise. Another context takes it with ``ObjectContext/use(_:)-(Object)``.
open class ManagedObject: CustomStringConvertible, @unchecked Sendable {
    // The state below is read and written on the context's queue only (see ``ObjectContext``'s
    // own state), so it is not checked for exclusive access at run time.

    /// The object's identity: temporary until its first save, then permanent.
    @exclusivity(unchecked) public internal(set) var objectID: ObjectID
    /// The object's entity.
    public var entity: EntityDescription { binding.entity }
    /// The context the object lives in; `nil` once that context is gone.
    public var managedObjectContext: ObjectContext? {
        isDetached ? nil : binding.link.context?.takeUnretainedValue()
    }
    /// The entity, the link to the context (not a weak reference: see ``ContextLink``) and the
    /// values' slots, which the context's objects of the entity share.
    let binding: ObjectBinding
    /// The numbers of the entity's properties in the object's saved values and its changes.
    var slots: PropertySlots { binding.slots }

    /// Whether the object was inserted and not yet saved.
    public var isInserted: Bool { isPendingInsert && managedObjectContext != nil }
    /// Whether the object was deleted and the deletion not yet saved.
    public var isDeleted: Bool { managedObjectContext?.deletedIDs.contains(objectID) ?? false }

    /// Values as last loaded from or saved to the store, by property name, in ``slots``.
    var committedValues: PropertyValues {
        get { PropertyValues(slots: binding.slots, storage: committedStorage) }
        set { committedStorage = newValue.storage(numberedBy: binding.slots) }
        _modify {
            // The storage is taken out for the write, so that the values written hold the only
            // reference to it and do not copy it.
            var values = PropertyValues(slots: binding.slots, storage: committedStorage.take())
            defer { committedStorage = values.storage(numberedBy: binding.slots) }
            yield &values
        }
    }
    /// Values with this context's changes, by property name, in ``slots``; a property absent
    /// here is read from ``committedValues`` (to-many relationships load on first use). A
    /// write lists the object among its context's changed ones.
    var changedValues: PropertyValues {
        get { PropertyValues(slots: binding.slots, storage: changedStorage) }
        set {
            changedStorage = newValue.storage(numberedBy: binding.slots)
            trackChange()
        }
        _modify {
            var values = PropertyValues(slots: binding.slots, storage: changedStorage.take())
            defer {
                changedStorage = values.storage(numberedBy: binding.slots)
                trackChange()
            }
            yield &values
        }
    }

    /// Sets the slot `number` of the changes in place, without forming the values around
    /// their storage, and lists the object as changed: what attributes' setters write through.
    func setChangedValue(_ value: PropertyValue?, inSlot number: Int) {
        PropertyValues.setValue(value, inSlot: number, of: &changedStorage, slotCount: binding.slots.names.count)
        trackChange()
    }

    /// Whether the object holds a saved value, read without forming the values.
    var holdsCommittedValues: Bool { !PropertyValues.isEmpty(committedStorage) }
    /// Whether the object holds a change, read without forming the values.
    var holdsChanges: Bool { !PropertyValues.isEmpty(changedStorage) }

    /// Drops the changes without listing the object among its context's changed ones: what a
    /// save does once the changes became the saved values.
    func dropChangesUntracked() {
        changedStorage = nil
    }

    private func trackChange() {
        if !isTracked { managedObjectContext?.track(self) }
    }

    /// What ``committedValues`` and ``changedValues`` hold besides the slots, which the binding
    /// keeps once for all the objects of the entity.
    @exclusivity(unchecked) private(set) var committedStorage: PropertyValues.Storage?
    @exclusivity(unchecked) private(set) var changedStorage: PropertyValues.Storage?
    /// Whether the object's values have not been loaded from the store yet. Declared beside
    /// the other flags so that they share one word: between two references it took a word of
    /// its own, and each object 16 bytes more of the allocator.
    @exclusivity(unchecked) public internal(set) var isFault: Bool
    /// Whether the object's context let it go (it was deleted and saved, or the context reset):
    /// reads then fail as they do for an object of no context. Reads check this flag rather
    /// than loading the weak reference to the context, which costs more than the read.
    @exclusivity(unchecked) var isDetached = false
    /// Whether the object waits in its context's list of objects changed since it last looked
    /// (see ``ObjectContext/absorbChanges()``).
    @exclusivity(unchecked) var isTracked = false
    /// Whether the object is among its context's inserted objects (see ``InsertedObjects``,
    /// which alone sets it). Declared with the flags above, in a byte their word left free.
    @exclusivity(unchecked) var isPendingInsert = false
    /// The object's place in its context's ``ObjectContext/changedSavedObjects``, or -1. A
    /// place rather than a flag: the context takes the object off the list without searching
    /// it, so that the list never holds an object the context let go of. 32 bits fit beside
    /// the flags above without making the object larger.
    @exclusivity(unchecked) var changeListPosition: Int32 = -1
    /// Whether the object is in its context's ``ObjectContext/changedSavedObjects``.
    var isListedAsChanged: Bool { changeListPosition >= 0 }
    /// `Z_OPT` of the row when it was read: a save checks that no one else saved since.
    @exclusivity(unchecked) var version: Int64 = 0
    /// The row a fetch read for this fault, loaded on first access without a query unless the
    /// store's connection has written since (``PersistentStore/writeGeneration``).
    var prefetchedRow: (row: RowSnapshot, generation: Int64)? {
        get {
            guard case .prefetchedRow(let kept)? = loadShortcut else { return nil }
            return kept.row
        }
        set {
            if let newValue {
                guard !holdsFetchedResults else { return }
                loadShortcut = .prefetchedRow(PrefetchedRow(newValue))
            } else if case .prefetchedRow? = loadShortcut {
                loadShortcut = nil
            }
        }
    }
    /// The faults a batched fetch returned together with this one: the first access loads them all.
    var faultBatch: FaultBatch? {
        get {
            guard case .faultBatch(let batch)? = loadShortcut else { return nil }
            return batch
        }
        set {
            if let newValue {
                guard !holdsFetchedResults else { return }
                loadShortcut = .faultBatch(newValue)
            } else if case .faultBatch? = loadShortcut {
                loadShortcut = nil
            }
        }
    }
    /// The results of the fetched properties read since the object was last refreshed, by
    /// property name (see ``fetchedObjects(forProperty:)``). Never dropped for a prefetched
    /// row or a fault batch, which are refused while results are kept.
    var fetchedResults: [String: [ObjectID]] {
        get {
            guard case .fetchedResults(let results)? = loadShortcut else { return [:] }
            return results.byName
        }
        set {
            if !newValue.isEmpty {
                loadShortcut = .fetchedResults(FetchedPropertyResults(byName: newValue))
            } else if case .fetchedResults? = loadShortcut {
                loadShortcut = nil
            }
        }
    }
    /// ``prefetchedRow``, ``faultBatch`` or ``fetchedResults`` (see ``LoadShortcut``).
    @exclusivity(unchecked) private var loadShortcut: LoadShortcut?

    private var holdsFetchedResults: Bool {
        if case .fetchedResults? = loadShortcut { return true }
        return false
    }

    /// Creates an object of `entity` registered in `context`; contexts call it, and typed
    /// subclasses through ``init(context:)``.
    required public init(entity: EntityDescription, objectID: ObjectID, context: ObjectContext, isFault: Bool) {
        self.objectID = objectID
        binding = context.binding(for: entity)
        self.isFault = isFault
    }

    /// The entity a typed subclass stands for: by default the class's own name. Generated
    /// subclasses (`strata model codegen`) override it with the entity's name.
    open class var entityName: String { String(describing: self) }

    /// Inserts a new object of the subclass's entity into `context`, with the model's default
    /// values; the context then hands out this subclass for the entity.
    ///
    /// ```swift
    /// let book = try Book(context: context)
    /// book.title = "The Lord of the Rings"
    /// ```
    ///
    /// - Throws: ``ContextError/store(_:)`` holding ``StoreError/unknownEntity(path:name:known:)``
    ///   when the context's model has no entity ``entityName``;
    ///   ``ContextError/abstractEntity(_:subentities:)`` for an abstract one.
    public convenience init(context: ObjectContext) throws(ContextError) {
        let entityName = Self.entityName
        guard let entity = context.entity(inserting: Self.self, named: entityName) else { throw .unknown(entity: entityName, in: context) }
        self.init(entity: entity, objectID: context.newTemporaryID(for: entityName), context: context, isFault: false)
        context.registerInserted(self)
    }

    /// Why the object is invalid, or `nil` when it is valid (DKDBManager's `invalidReason`): the
    /// model's rules it breaks and its entity's `strata.invalidIf` predicate, as
    /// ``ObjectContext/invalidReason(of:)`` words them. A typed subclass overrides it to add
    /// rules of its own (calling `super` keeps the model's; ``ObjectContext/invalidReason(of:)``
    /// would ask the override again); imports, ``deleteIfInvalid()``,
    /// ``ObjectContext/deleteInvalidObjects(_:activity:)`` and `strata prune` ask it.
    ///
    /// ```swift
    /// override func invalidReason() throws -> String? {
    ///     try super.invalidReason() ?? (pages.isEmpty ? "a book without pages" : nil)
    /// }
    /// ```
    ///
    /// - Throws: ``InvalidIfError`` when the entity's `strata.invalidIf` does not parse;
    ///   ``ContextError`` when the object cannot be read.
    open func invalidReason() throws -> String? {
        guard let context = managedObjectContext else { throw ContextError.objectNotFound(objectID) }
        return try context.modelInvalidReason(of: self)
    }

    /// Guards the writes of ``objectID`` and ``managedObjectContext``, which the object's
    /// context makes on its queue, so that another context's ``ObjectContext/use(_:)-(Object)``
    /// may read them from its own queue without waiting for this one's.
    static let ownershipLock = NSLock()

    /// The object's context and ID, read from any thread. The context is given by address,
    /// compared without being retained: on another thread it may be on its way out.
    var ownership: (context: UnsafeMutableRawPointer?, id: ObjectID) {
        Self.ownershipLock.withLock { (isDetached ? nil : binding.link.context?.toOpaque(), objectID) }
    }

    /// Takes the object out of its context; call it under ``ownershipLock``.
    func detachLocked() {
        isDetached = true
    }

    /// Whether the object has changes not saved yet (or is inserted or deleted).
    public var hasChanges: Bool {
        isInserted || isDeleted || hasChangedValues
    }

    /// Whether a property holds a value other than its saved one.
    var hasChangedValues: Bool {
        changedValues.contains(differingFrom: committedValues)
    }

    /// The names of the properties changed since the last save.
    public var changedKeys: Set<String> {
        Set(effectiveChanges.keys)
    }

    /// The unsaved values that differ from the saved ones: setting a property to its saved
    /// value is no change.
    var effectiveChanges: PropertyValues {
        changedValues.filter { committedValues[$0.key] != $0.value }
    }

    /// `<Book p12 {title="The Hobbit", rating=4.7}>`, the loaded attributes in name order.
    public var description: String {
        let attributes = (managedObjectContext?.model.allAttributes(of: entity) ?? entity.attributes)
            .compactMap { attribute -> String? in
                guard case .attribute(let value?)? = changedValues[attribute.name] ?? committedValues[attribute.name] else { return nil }
                return "\(attribute.name)=\(value.displayText)"
            }
        return "<\(objectID.entityName) \(objectID.description.dropFirst(objectID.entityName.count + 2).dropLast())\(isFault ? " fault" : "")\(attributes.isEmpty ? "" : " {\(attributes.joined(separator: ", "))}")>"
    }
}

/// What saves an object a query of its own, one at a time, in one field: few objects have
/// any, and three references in each object took 16 bytes more of the allocator for every
/// object a fetch makes (a `Person` of the benchmarks in 192-byte blocks instead of 208; see
/// BENCHMARKS.md, the stop after c82f73e).
///
/// A prefetched row and a fault batch only spare a query: either replaces the other, and
/// losing one costs the query it would have spared. Fetched results are an answer the object
/// keeps until it is refreshed, as Core Data's are: they replace a row or a batch, and no row
/// or batch replaces them (the object then reads its row by a query of its own when it needs
/// it). They may be kept on an object not read yet, when the property's predicate does not
/// name the source.
enum LoadShortcut {
    case prefetchedRow(PrefetchedRow)
    case faultBatch(FaultBatch)
    case fetchedResults(FetchedPropertyResults)
}

/// The results of an object's fetched properties, by property name.
final class FetchedPropertyResults {
    let byName: [String: [ObjectID]]

    init(byName: [String: [ObjectID]]) {
        self.byName = byName
    }
}

/// A row a fetch read for a fault, and the store's write generation it was read at.
final class PrefetchedRow {
    let row: (row: RowSnapshot, generation: Int64)

    init(_ row: (row: RowSnapshot, generation: Int64)) {
        self.row = row
    }
}

/// A property's value in an object: an attribute value, or the IDs a relationship holds.
enum PropertyValue: Equatable, Sendable {
    case attribute(AttributeValue?)
    case toOne(ObjectID?)
    /// In order for an ordered relationship; for an unordered one the order means nothing.
    case toMany([ObjectID])
    /// Changes to an unordered to-many not read yet, as unsaved values only (never committed).
    /// Boxed: in place its three collections made every value, and so every slot of every
    /// object's values, 8 bytes larger (32 bytes where the other cases fit in 24).
    indirect case toManyChanges(ToManyChanges)
}
