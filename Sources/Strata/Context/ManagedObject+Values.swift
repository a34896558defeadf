import Foundation

extension ManagedObject {
    // MARK: - Reading

    /// The value of `key`: an attribute's Swift value (`String`, `Int64`, `Double`, `Bool`,
    /// `Date`, `Data`, `UUID`, `URL`, `Decimal`), a to-one's object, a to-many's objects (in
    /// order for an ordered one), or a fetched property's objects (see
    /// ``fetchedObjects(forProperty:)``). A dotted key path follows to-one relationships:
    /// `"author.name"`.
    ///
    /// - Throws: ``ContextError/store(_:)`` holding
    ///   ``StoreError/unknownProperty(path:entity:property:known:)`` for a key the entity lacks
    ///   (after its fetched properties); ``ContextError/forgottenObject(_:)`` when the object's
    ///   context forgot it; ``ContextError/objectNotFound(_:)`` when its row, read to fill a fault,
    ///   is gone.
    public func value(forKey key: String) throws(ContextError) -> Any? {
        if let dot = key.firstIndex(of: ".") {
            guard let next = try value(forKey: String(key[..<dot])) as? ManagedObject else { return nil }
            return try next.value(forKey: String(key[key.index(after: dot)...]))
        }
        let context = try requireContext()
        let value: PropertyValue
        do {
            value = try propertyValue(key)
        } catch .store(.unknownProperty) {
            // Fetched properties have no slot among the values: looked for only when all else fails.
            guard context.model.fetchedProperty(named: key, in: self.entity) != nil else { throw .unknown(property: key, of: entity, in: context) }
            return try fetchedObjects(forProperty: key)
        }
        switch value {
        case .attribute(let value): return value?.swiftValue
        case .toOne(let id): return id.map(context.object(with:))
        case .toMany(let ids): return ids.map(context.object(with:))
        case .toManyChanges: preconditionFailure("propertyValue(_:) applies a to-many's changes before it returns")
        }
    }

    /// The attribute `key` as an ``AttributeValue``; `nil` when it is not set.
    ///
    /// - Throws: ``ContextError/store(_:)`` holding
    ///   ``StoreError/unknownProperty(path:entity:property:known:)`` for a key the entity lacks;
    ///   ``ContextError/forgottenObject(_:)`` when the object's context forgot it;
    ///   ``ContextError/objectNotFound(_:)`` when its row, read to fill a fault, is gone.
    public func attributeValue(forKey key: String) throws(ContextError) -> AttributeValue? {
        // The common read first: an attribute of a loaded object, straight from its slots.
        if !isFault, !isDetached, let number = slots.number(of: key), let value = loadedAttributeValue(at: number) {
            return value
        }
        guard case .attribute(let value) = try propertyValue(key) else {
            throw .wrongType(entity: entity.name, property: key, value: "a read of an attribute", expected: "a relationship read")
        }
        return value
    }

    /// ``attributeValue(forKey:)`` for the name a typed property keeps: the slot is found by
    /// the address of the name's bytes, which are read only the first time the entity's slots
    /// meet that address, or to take the long way.
    @usableFromInline
    func attributeValue(named name: PropertyName) throws(ContextError) -> AttributeValue? {
        if !isDetached {
            // An address met before is found in a copy of the table, without the slots, so
            // that they are not retained around the probe (a retain and a release on each
            // read, 2% of a fetch's time).
            let numbers = slots.numbersByAddress
            let number = numbers.number(at: name.utf8Start) ?? slots.number(of: name)
            if let number {
                if !isFault {
                    if let value = loadedAttributeValue(at: number) { return value }
                } else if !holdsChanges {
                    // The name is one of the entity's properties, so a fault only needs filling,
                    // as the long way would fill it; then it is read as a loaded object. A fault
                    // that kept changes (refreshed merging them) takes the long way, which
                    // answers a changed value without filling the fault.
                    let context = try requireContext()
                    context.assertOnQueue()
                    try context.fireFault(self)
                    if !isFault { return try attributeValue(named: name) }
                }
            }
        }
        return try attributeValue(forKey: name.string)
    }

    /// The attribute in the slot `number` of a loaded object, changed or saved; `nil` when the
    /// slot holds no attribute's value and the read must take the long way.
    @inline(__always)
    private func loadedAttributeValue(at number: Int) -> AttributeValue?? {
        assert(managedObjectContext?.isOnQueue ?? true, "attributeValue(forKey:) used off its context's queue: wrap it in perform or performAndWait")
        // Read in place from the storage: forming the values would retain it and the slots.
        let value = PropertyValues.value(inSlot: number, of: changedStorage) ?? PropertyValues.value(inSlot: number, of: committedStorage)
        guard case .attribute(let attribute)? = value else { return nil }
        return .some(attribute)
    }

    /// The value the attribute `key` had when the object was last in a context: what a typed
    /// property of a forgotten object reads. `nil` when it was never loaded.
    @usableFromInline
    func lastSeenAttributeValue(forKey key: String) -> AttributeValue? {
        guard let number = slots.number(of: key),
              case .attribute(let value)? = changedValues[slot: number] ?? committedValues[slot: number]
        else { return nil }
        return value
    }

    /// The objects the to-many relationship `key` holds.
    ///
    /// - Throws: ``ContextError/wrongType(entity:property:value:expected:)`` when `key` is not a
    ///   to-many; ``ContextError/store(_:)`` holding
    ///   ``StoreError/unknownProperty(path:entity:property:known:)`` for a key the entity lacks;
    ///   ``ContextError/forgottenObject(_:)`` when the object's context forgot it;
    ///   ``ContextError/objectNotFound(_:)`` when its row, read to fill a fault, is gone.
    public func objects(forKey key: String) throws(ContextError) -> [ManagedObject] {
        let context = try requireContext()
        guard case .toMany(let ids) = try propertyValue(key) else {
            throw .wrongType(entity: entity.name, property: key, value: "a to-many read", expected: "a to-one or attribute read")
        }
        return ids.map(context.object(with:))
    }

    /// The value by key, as ``value(forKey:)``; stops the program on an unknown key, as Core
    /// Data raises. Set through ``setValue(_:forKey:)`` to be told about a wrong type.
    public subscript(key: String) -> Any? {
        do {
            return try value(forKey: key)
        } catch .forgottenObject {
            // A view may still show an object its context forgot (a reset at logout): it reads
            // as nothing, as Core Data's inaccessible objects do, rather than stopping the app.
            return nil
        } catch {
            preconditionFailure(error.description)
        }
    }

    // MARK: - Writing

    /// Sets `key` to `value`: a Swift value of the attribute's type (integers, floating point,
    /// `Bool`, `String`, `Date`, `Data`, `UUID`, `URL`, `Decimal`, or an ``AttributeValue``;
    /// for a Transformable attribute, its archive's bytes or a ``TransformableRepresentable``
    /// value, such as a ``TransformableValue`` or `[String]`, which is archived),
    /// an object for a to-one, an array of objects for a to-many, or `nil`. Relationships keep
    /// their inverse in step. A wrong type is an error naming entity, property and value.
    ///
    /// - Throws: ``ContextError/wrongType(entity:property:value:expected:)`` for a value of the
    ///   wrong type; ``ContextError/derivedAttribute(entity:attribute:derivation:)`` for a derived
    ///   attribute; ``ContextError/foreignObject(_:)`` for an object of another context;
    ///   ``ContextError/store(_:)`` holding
    ///   ``StoreError/unknownProperty(path:entity:property:known:)`` for a key the entity lacks;
    ///   ``ContextError/forgottenObject(_:)`` when the object's context forgot it.
    public func setValue(_ value: Any?, forKey key: String) throws(ContextError) {
        let context = try requireContext()
        context.assertOnQueue()
        let model = context.model
        if let attribute = model.attribute(named: key, in: entity) {
            if attribute.isDerived {
                throw .derivedAttribute(entity: entity.name, attribute: key, derivation: attribute.derivationExpression ?? "")
            }
            try set(.attribute(try attributeValue(value, for: attribute)), forKey: key)
        } else if let relationship = model.relationship(named: key, in: entity) {
            if relationship.isToMany {
                guard let objects = value.map({ $0 as? [ManagedObject] }) ?? [] else {
                    throw .wrongType(entity: entity.name, property: key, value: describe(value), expected: "an array of \(relationship.destinationEntityName) objects")
                }
                try replaceToMany(key, with: objects)
            } else {
                guard value == nil || value is ManagedObject else {
                    throw .wrongType(entity: entity.name, property: key, value: describe(value), expected: "a \(relationship.destinationEntityName) object")
                }
                try setToOne(key, to: value as? ManagedObject)
            }
        } else if let property = model.fetchedProperty(named: key, in: entity) {
            throw .fetchedProperty(FetchedPropertyError(
                entity: entity.name, property: key, destination: property.fetchRequest.entityName,
                predicate: property.fetchRequest.predicate, reason: .readOnly))
        } else {
            throw .unknown(property: key, of: entity, in: try requireContext())
        }
    }

    /// Sets the attribute `key` to `value`, as ``setValue(_:forKey:)`` does for an
    /// ``AttributeValue``, without going through `Any`: what typed subclasses' properties call.
    @usableFromInline
    func setAttribute(_ value: AttributeValue?, forKey key: String) throws(ContextError) {
        let context = try requireContext()
        context.assertOnQueue()
        guard let type = slots.attributeType(named: key) ?? context.model.attributeType(named: key, in: entity) else {
            if context.model.relationship(named: key, in: entity) != nil {
                throw .wrongType(entity: entity.name, property: key, value: describe(value), expected: "an object or objects")
            }
            throw .unknown(property: key, of: entity, in: try requireContext())
        }
        try setAttribute(value, ofType: type, slot: slots.number(of: key), key: key, in: context)
    }

    /// ``setAttribute(_:forKey:)`` for the name a typed property keeps: the slot is found by
    /// the address of the name's bytes, which are read only the first time the entity's slots
    /// meet that address.
    @usableFromInline
    func setAttribute(_ value: AttributeValue?, named name: PropertyName) throws(ContextError) {
        // An address met before is found without a call, as in `attributeValue(named:)`.
        let numbers = slots.numbersByAddress
        guard let number = numbers.number(at: name.utf8Start) ?? slots.number(of: name),
              let type = slots.attributeType(at: number)
        else {
            return try setAttribute(value, forKey: name.string)
        }
        let context = try requireContext()
        context.assertOnQueue()
        try setAttribute(value, ofType: type, slot: number, key: slots.names[number], in: context)
    }

    /// Sets the attribute of type `type`, in the slot `slot` of the object's values when the
    /// entity's slots hold it (else by `key`), once `value` is checked against the type and the
    /// attribute found not to be derived: what both setters end in.
    ///
    /// An object's saved values and its changes are kept in the same slots, its binding's
    /// (``ObjectBinding``): values assigned in other slots are renumbered as they are kept.
    @inline(__always)
    private func setAttribute(_ value: AttributeValue?, ofType type: AttributeType, slot: Int?, key: @autoclosure () -> String,
                              in context: ObjectContext) throws(ContextError) {
        if let value, !AttributeValue.fits(value, type) {
            throw .wrongType(entity: entity.name, property: key(), value: describe(value), expected: "a \(type.rawValue) value")
        }
        if !slots.derivations.isEmpty, let derivation = slots.derivations[key()] {
            throw .derivedAttribute(entity: entity.name, attribute: key(), derivation: derivation)
        }
        // The key is known to be an attribute: only the fault needs firing, for the saved
        // values and version the change is judged against.
        try context.fireFault(self)
        if let slot {
            setChangedValue(.attribute(value), inSlot: slot)
        } else {
            changedValues[key()] = .attribute(value)
        }
    }

    /// Adds `object` to the to-many `key` (at the end of an ordered one) and sets its inverse.
    ///
    /// - Throws: ``ContextError/foreignObject(_:)`` for an object of another context;
    ///   ``ContextError/wrongType(entity:property:value:expected:)`` when `key` is not a to-many or
    ///   `object` not of its destination; ``ContextError/store(_:)`` holding
    ///   ``StoreError/unknownProperty(path:entity:property:known:)`` for a key the entity lacks.
    public func add(_ object: ManagedObject, toKey key: String) throws(ContextError) {
        try checkSameContext(object)
        var ids = try toManyIDs(key)
        guard !ids.contains(object.objectID) else { return }
        ids.append(object.objectID)
        try replaceToMany(key, with: try ids.map { id throws(ContextError) in try requireContext().object(with: id) })
    }

    /// Removes `object` from the to-many `key` and clears its inverse.
    ///
    /// - Throws: ``ContextError/foreignObject(_:)`` for an object of another context;
    ///   ``ContextError/wrongType(entity:property:value:expected:)`` when `key` is not a to-many;
    ///   ``ContextError/store(_:)`` holding
    ///   ``StoreError/unknownProperty(path:entity:property:known:)`` for a key the entity lacks.
    public func remove(_ object: ManagedObject, fromKey key: String) throws(ContextError) {
        try checkSameContext(object)
        let ids = try toManyIDs(key).filter { $0 != object.objectID }
        try replaceToMany(key, with: try ids.map { id throws(ContextError) in try requireContext().object(with: id) })
    }

    // MARK: - Properties and relationships

    func requireContext() throws(ContextError) -> ObjectContext {
        guard let context = managedObjectContext else { throw .forgottenObject(objectID) }
        return context
    }

    /// The current value of property `key`, loading the row or the to-many as needed.
    func propertyValue(_ key: String) throws(ContextError) -> PropertyValue {
        let context = try requireContext()
        context.assertOnQueue()
        // The common cases first, one look-up each: a changed value, then a loaded one.
        if holdsChanges, let value = changedValues[key] {
            guard case .toManyChanges(let changes) = value else { return value }
            return try members(applying: changes, forKey: key)
        }
        if !isFault, let value = committedValues[key] { return value }
        guard let description = property(key) else { throw .unknown(property: key, of: entity, in: try requireContext()) }
        try context.fireFault(self)
        if let value = changedValues[key] ?? committedValues[key] { return value }
        if case .relationship(let relationship) = description, relationship.isToMany {
            let value = PropertyValue.toMany(try context.storedToMany(self, key))
            committedValues[key] = value
            return value
        }
        return description.isRelationship ? .toOne(nil) : .attribute(nil)
    }

    /// Reads the to-many `key`, which has changes recorded against it, and makes the members
    /// with the changes made its unsaved value.
    private func members(applying changes: ToManyChanges, forKey key: String) throws(ContextError) -> PropertyValue {
        let context = try requireContext()
        try context.fireFault(self)
        let stored: [ObjectID]
        if case .toMany(let ids)? = committedValues[key] {
            stored = ids
        } else {
            stored = try context.storedToMany(self, key)
            committedValues[key] = .toMany(stored)
        }
        let value = PropertyValue.toMany(changes.applied(to: stored))
        changedValues[key] = value
        return value
    }

    /// Sets a property without touching inverses.
    func set(_ value: PropertyValue, forKey key: String) throws(ContextError) {
        _ = try propertyValue(key)
        changedValues[key] = value
    }

    private func toManyIDs(_ key: String) throws(ContextError) -> [ObjectID] {
        guard case .toMany(let ids) = try propertyValue(key) else { throw .unknown(property: key, of: entity, in: try requireContext()) }
        return ids
    }

    /// The relationship `key` of this entity, or its inverse's name when there is one.
    private func relationship(_ key: String) throws(ContextError) -> RelationshipDescription {
        guard let relationship = try requireContext().model.relationship(named: key, in: entity) else {
            throw .unknown(property: key, of: entity, in: try requireContext())
        }
        return relationship
    }

    /// Sets a to-one and keeps both the old and the new destination's inverse in step.
    func setToOne(_ key: String, to destination: ManagedObject?) throws(ContextError) {
        let relationship = try relationship(key)
        if let destination { try checkLinkable(destination, by: relationship) }
        guard case .toOne(let old) = try propertyValue(key), old != destination?.objectID else { return }
        try set(.toOne(destination?.objectID), forKey: key)
        guard let inverse = relationship.inverseName else { return }
        let context = try requireContext()
        if let old { try context.object(with: old).unlinkInverse(inverse, of: self) }
        if let destination { try destination.linkInverse(inverse, to: self) }
    }

    /// Replaces a to-many's objects, keeping every added and removed object's inverse in step.
    func replaceToMany(_ key: String, with objects: [ManagedObject]) throws(ContextError) {
        let relationship = try relationship(key)
        for object in objects { try checkLinkable(object, by: relationship) }
        let old = try toManyIDs(key)
        var seen: Set<ObjectID> = []
        let new = objects.map(\.objectID).filter { seen.insert($0).inserted }
        try set(.toMany(new), forKey: key)
        guard let inverse = relationship.inverseName else { return }
        let context = try requireContext()
        let added = Set(new).subtracting(old), removed = Set(old).subtracting(new)
        for id in old where removed.contains(id) { try context.object(with: id).unlinkInverse(inverse, of: self) }
        for id in new where added.contains(id) { try context.object(with: id).linkInverse(inverse, to: self) }
    }

    /// Makes this object's relationship `key` (the inverse of one on `owner`) hold `owner`.
    private func linkInverse(_ key: String, to owner: ManagedObject) throws(ContextError) {
        let relationship = try relationship(key)
        if relationship.isToMany {
            try insertMember(owner.objectID, intoToMany: key, isOrdered: relationship.isOrdered)
        } else {
            guard case .toOne(let previous) = try propertyValue(key), previous != owner.objectID else { return }
            try set(.toOne(owner.objectID), forKey: key)
            // One-to-one: the owner this object leaves loses it; one-to-many: it leaves that owner's set.
            if let previous, let back = relationship.inverseName {
                try requireContext().object(with: previous).unlinkInverse(back, of: self)
            }
        }
    }

    /// Adds `id` to the to-many `key`: in place when its members are loaded, else as a change
    /// applied when they are read (see ``ToManyChanges``); an ordered one is read first.
    private func insertMember(_ id: ObjectID, intoToMany key: String, isOrdered: Bool) throws(ContextError) {
        // The row is read all the same: a save checks the version it had.
        try requireContext().fireFault(self)
        switch changedValues[key] ?? committedValues[key] {
        case .toManyChanges(var changes)?:
            changedValues[key] = nil
            changes.insert(id)
            changedValues[key] = changes.isEmpty ? nil : .toManyChanges(changes)
        case .toMany(var ids)?:
            // An unsaved member cannot be in the set yet (both sides change together), which
            // spares a scan of a set that an import may grow to many thousands.
            if !id.isTemporary, ids.contains(id) { return }
            // Taken out first, the set is copied once, not on every append.
            changedValues[key] = nil
            ids.append(id)
            changedValues[key] = .toMany(ids)
        case nil where !isOrdered:
            changedValues[key] = .toManyChanges(ToManyChanges(added: [id], removed: []))
        default:
            _ = try propertyValue(key)
            try insertMember(id, intoToMany: key, isOrdered: isOrdered)
        }
    }

    /// Makes `changes` to the to-many `key` without touching inverses, reading it only when it is
    /// loaded or ordered.
    func changeMembers(ofToMany key: String, by changes: ToManyChanges) throws(ContextError) {
        let isOrdered = try relationship(key).isOrdered
        for id in changes.removed { try removeMember(id, fromToMany: key, isOrdered: isOrdered) }
        for id in changes.added { try insertMember(id, intoToMany: key, isOrdered: isOrdered) }
    }

    /// Takes `id` out of the to-many `key`, as ``insertMember(_:intoToMany:isOrdered:)`` adds it.
    private func removeMember(_ id: ObjectID, fromToMany key: String, isOrdered: Bool) throws(ContextError) {
        try requireContext().fireFault(self)
        switch changedValues[key] ?? committedValues[key] {
        case .toManyChanges(var changes)?:
            changes.remove(id)
            changedValues[key] = changes.isEmpty ? nil : .toManyChanges(changes)
        case nil where !isOrdered:
            changedValues[key] = .toManyChanges(ToManyChanges(added: [], removed: [id]))
        default:
            try set(.toMany(try toManyIDs(key).filter { $0 != id }), forKey: key)
        }
    }

    /// Makes this object's relationship `key` (the inverse of one on `owner`) let go of `owner`.
    func unlinkInverse(_ key: String, of owner: ManagedObject) throws(ContextError) {
        let relationship = try relationship(key)
        if relationship.isToMany {
            try removeMember(owner.objectID, fromToMany: key, isOrdered: relationship.isOrdered)
        } else if case .toOne(owner.objectID) = try propertyValue(key) {
            try set(.toOne(nil), forKey: key)
        }
    }

    private func checkSameContext(_ object: ManagedObject) throws(ContextError) {
        guard object.managedObjectContext === managedObjectContext else { throw .foreignObject(object.objectID) }
    }

    /// Refuses what `relationship` cannot hold: an object of another context, or of an entity
    /// other than the destination and its sub-entities (the row would store a key of another
    /// table, which the store then reads as a different object).
    private func checkLinkable(_ object: ManagedObject, by relationship: RelationshipDescription) throws(ContextError) {
        try checkSameContext(object)
        try requireContext().checkStore(of: object.objectID)
        guard object.entity.name != relationship.destinationEntityName else { return }
        let model = try requireContext().model
        guard let destination = model.entity(named: relationship.destinationEntityName), model.entity(object.entity, isKindOf: destination) else {
            throw .wrongType(
                entity: entity.name, property: relationship.name, value: "a \(object.entity.name) object (\(object.objectID))",
                expected: "a \(relationship.destinationEntityName) object")
        }
    }

    private enum Property {
        case attribute(AttributeDescription)
        case relationship(RelationshipDescription)
        var isRelationship: Bool {
            if case .relationship = self { return true }
            return false
        }
    }

    private func property(_ key: String) -> Property? {
        guard let model = managedObjectContext?.model else { return nil }
        if let attribute = model.attribute(named: key, in: entity) { return .attribute(attribute) }
        return model.relationship(named: key, in: entity).map(Property.relationship)
    }

    // MARK: - Values

    private func attributeValue(_ value: Any?, for attribute: AttributeDescription) throws(ContextError) -> AttributeValue? {
        guard let value else { return nil }
        if let converted = AttributeValue(swiftValue: value, type: attribute.type) { return converted }
        // A Transformable attribute also takes the values its archive holds, archived here.
        if attribute.type == .transformable, let transformable = (value as? TransformableRepresentable)?.transformableValue {
            do {
                return .binary(try attribute.storedData(for: transformable))
            } catch {
                throw .transformableValue(entity: entity.name, property: attribute.name, error)
            }
        }
        throw .wrongType(entity: entity.name, property: attribute.name, value: describe(value), expected: "a \(attribute.type.rawValue) value")
    }

    private func describe(_ value: Any?) -> String {
        guard let value else { return "nil" }
        if let object = value as? ManagedObject { return object.objectID.description }
        return "\(type(of: value)) \(String(describing: value).prefix(40))"
    }
}

extension AttributeValue {
    /// The Swift value an attribute hands out.
    public var swiftValue: Any {
        switch self {
        case .integer(let value): value
        case .double(let value): value
        case .decimal(let value): value
        case .string(let value): value
        case .boolean(let value): value
        case .date(let value): value
        case .binary(let value): value
        case .uuid(let value): value
        case .uri(let value): value
        }
    }

    /// The attribute value of a Swift `value` for an attribute of `type`, or `nil` when the
    /// value does not fit the type (a string for an integer, 70000 for Integer 16, …).
    public init?(swiftValue value: Any, type: AttributeType) {
        if let value = value as? AttributeValue {
            guard AttributeValue.fits(value, type) else { return nil }
            self = value
            return
        }
        switch (type, value) {
        case (.integer16, _), (.integer32, _), (.integer64, _):
            guard let integer = Self.integer(value), AttributeValue.integerRange(of: type).contains(integer) else { return nil }
            self = .integer(integer)
        case (.double, _), (.float, _):
            switch value {
            case let double as Double: self = .double(double)
            case let float as Float: self = .double(Double(float))
            default:
                guard let integer = Self.integer(value) else { return nil }
                self = .double(Double(integer))
            }
        case (.decimal, let decimal as Decimal): self = .decimal(decimal)
        case (.decimal, let double as Double): self = .decimal(Decimal(double))
        case (.decimal, _):
            guard let integer = Self.integer(value) else { return nil }
            self = .decimal(Decimal(integer))
        case (.boolean, let bool as Bool): self = .boolean(bool)
        case (.string, let string as String): self = .string(string)
        case (.date, let date as Date): self = .date(date)
        case (.binary, let data as Data), (.transformable, let data as Data): self = .binary(data)
        case (.uuid, let uuid as UUID): self = .uuid(uuid)
        case (.uri, let url as URL): self = .uri(url)
        default: return nil
        }
    }

    private static func integer(_ value: Any) -> Int64? {
        switch value {
        case let value as Int: Int64(value)
        case let value as Int64: value
        case let value as Int32: Int64(value)
        case let value as Int16: Int64(value)
        case let value as Int8: Int64(value)
        case let value as UInt8: Int64(value)
        case let value as UInt16: Int64(value)
        case let value as UInt32: Int64(value)
        default: nil
        }
    }

    static func fits(_ value: AttributeValue, _ type: AttributeType) -> Bool {
        switch (value, type) {
        case (.integer(let integer), _) where type.isInteger: AttributeValue.integerRange(of: type).contains(integer)
        case (.double, .double), (.double, .float), (.decimal, .decimal), (.string, .string), (.boolean, .boolean),
            (.date, .date), (.binary, .binary), (.binary, .transformable), (.uuid, .uuid), (.uri, .uri):
            true
        default: false
        }
    }
}
