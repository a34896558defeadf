extension ObjectContext {
    /// Inserts a new object of `entityName` (of its registered subclass, if any), with the
    /// model's default values.
    ///
    /// Which insert to use: this one for objects a program makes one at a time, named by
    /// entity; a generated subclass's ``ManagedObject/init(context:)`` for the same with typed
    /// properties; a ``BatchInsertRequest`` for many rows of one entity written in SQL without
    /// objects (attribute values only: no relationships, no validation, no merge); an
    /// ``ImportSession`` or ``StreamingImport`` for records that may exist already (found by
    /// identity, then updated or created).
    ///
    /// ```swift
    /// let book = try context.insert("Book")
    /// try book.setValue("Dune", forKey: "title")
    /// try context.save()
    /// ```
    ///
    /// - Throws: ``StoreError/unknownEntity(path:name:known:)`` inside ``ContextError/store(_:)``, or ``ContextError/abstractEntity(_:subentities:)``
    ///   for an abstract entity, whose objects are always of a sub-entity.
    @discardableResult
    public func insert(_ entityName: String) throws(ContextError) -> ManagedObject {
        assertOnQueue()
        guard let entity = model.entity(named: entityName) else { throw .unknown(entity: entityName, in: self) }
        guard !entity.isAbstract else {
            throw .abstractEntity(entityName, subentities: model.allSubentities(of: entity).filter { !$0.isAbstract }.map(\.name))
        }
        let object = makeObject(entity: entity, id: newTemporaryID(for: entityName), isFault: false)
        registerInserted(object)
        return object
    }

    func newTemporaryID(for entityName: String) -> ObjectID {
        .newTemporary(in: idScope(for: entityName))
    }

    /// Records a new object as inserted, with the model's default values.
    func registerInserted(_ object: ManagedObject) {
        assertOnQueue()
        registered[object.objectID] = object
        // The template's values are read where they are: a copy of the whole template went
        // through the run time's generic copy of a tuple, once per object.
        if recentTemplate?.entityName != object.entity.name { recentTemplate = insertionTemplate(for: object.entity) }
        object.committedValues = recentTemplate!.committed
        inserted.insert(object)
        object.changedValues = recentTemplate!.changed
    }

    /// A new object's values: nothing saved, and the model's default values as changes.
    private func insertionTemplate(for entity: EntityDescription) -> InsertionTemplate {
        if let template = insertionTemplates[entity.name] { return template }
        var committed = PropertyValues(slots: model.propertySlots(of: entity)), changed = committed
        for attribute in model.allAttributes(of: entity) {
            committed[attribute.name] = .attribute(nil)
            if let value = attribute.defaultAttributeValue {
                changed[attribute.name] = .attribute(value)
            }
        }
        for relationship in model.allRelationships(of: entity) {
            committed[relationship.name] = relationship.isToMany ? .toMany([]) : .toOne(nil)
        }
        let template = InsertionTemplate(entityName: entity.name, committed: committed, changed: changed)
        insertionTemplates[entity.name] = template
        return template
    }
}

/// The values a new object of one entity starts with (see ``ObjectContext/insertionTemplates``).
struct InsertionTemplate {
    let entityName: String
    /// Nothing saved: every stored property empty.
    let committed: PropertyValues
    /// The model's default values, as changes.
    let changed: PropertyValues
}
