/// What takes the place of an entity mapping's custom `NSEntityMigrationPolicy` class, whose
/// Objective-C code Strata cannot run: the hooks a migration calls for the entity mappings
/// the policy ``handles(_:)``, as Core Data calls the class's overrides.
///
/// A step whose mapping model names a policy class for an entity mapping that no policy
/// handles is refused, naming the class and the entity mapping. The Lua policy of
/// `strata migrate --policy FILE` is one (`LuaMigrationPolicy` in StrataLua).
///
/// ```swift
/// final class AuthorsFromNames: MigrationPolicy, @unchecked Sendable {
///     func handles(_ mapping: MappingModel.EntityMapping) -> Bool { mapping.name == "BookToBook" }
///     func createDestinationInstances(forSource book: ManagedObject, mapping: MappingModel.EntityMapping, manager: MigrationManager) throws {
///         let copy = try manager.createDefaultDestinationInstance(forSource: book, mapping: mapping)
///         let author = try manager.insertDestinationObject("Author")
///         try author.setValue(book.value(forKey: "authorName"), forKey: "name")
///         try copy.add(author, toKey: "authors")
///     }
/// }
/// ```
public protocol MigrationPolicy: AnyObject, Sendable {
    /// Whether the policy takes the place of `mapping`'s policy class.
    func handles(_ mapping: MappingModel.EntityMapping) -> Bool

    /// Makes the destination objects of `source` (Core Data's
    /// `createDestinationInstances(forSource:in:manager:)`): objects made with
    /// ``MigrationManager/insertDestinationObject(_:)`` and associated with
    /// ``MigrationManager/associate(source:destination:mapping:)`` get the mapping's
    /// relationships afterwards. Throwing stops the migration; the store stays as it was.
    func createDestinationInstances(forSource source: ManagedObject, mapping: MappingModel.EntityMapping, manager: MigrationManager) throws

    /// Sets the relationships of `destination`, an object associated with a source object
    /// (Core Data's `createRelationships(forDestination:in:manager:)`).
    func createRelationships(forDestination destination: ManagedObject, mapping: MappingModel.EntityMapping, manager: MigrationManager) throws
}

extension MigrationPolicy {
    /// The mapping's own value expressions, as `NSEntityMigrationPolicy` does.
    public func createRelationships(forDestination destination: ManagedObject, mapping: MappingModel.EntityMapping, manager: MigrationManager) throws {
        try manager.createDefaultRelationships(forDestination: destination, mapping: mapping)
    }
}
