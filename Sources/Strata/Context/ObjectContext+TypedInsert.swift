import Synchronization

extension ObjectContext {
    /// The entity `entityName` for a new object of the typed subclass `objectClass`, which
    /// the context then hands out for the entity: what ``ManagedObject/init(context:)`` asks
    /// for each object it inserts. `nil` when the model has no such entity.
    ///
    /// A loop inserting objects of one class registers the class once, not per object (a lock
    /// and a dictionary write keyed by the entity's name each time): while no registration was
    /// made since this class's own, from any thread, the class still stands for the entity.
    func entity(inserting objectClass: ManagedObject.Type, named entityName: String) -> EntityDescription? {
        if let recent = recentInsertedClass, recent.objectClass == ObjectIdentifier(objectClass),
           recent.entity.name == entityName, recent.registrations == classRegistrations.load(ordering: .acquiring) {
            return recent.entity
        }
        guard let entity = model.entity(named: entityName) else { return nil }
        let registrations = registerCounted(objectClass, for: entityName)
        recentInsertedClass = (ObjectIdentifier(objectClass), entity, registrations)
        return entity
    }
}
