/// An entity of a model: a kind of object, its properties, and how the store indexes it.
///
/// An entity holds only the properties it declares; those it inherits from its
/// ``superentityName`` are found through the ``ObjectModel``.
///
/// ```swift
/// var book = EntityDescription(name: "Book")
/// book.attributes = [AttributeDescription(name: "title", type: .string)]
/// book.uniquenessConstraints = [["isbn"]]
/// ```
public struct EntityDescription: Sendable, Equatable {
    /// The fields, shared by copies until one of them changes: every object holds its entity,
    /// and a copy then costs one reference rather than one per field.
    private final class Storage: @unchecked Sendable {
        var name: String
        var className: String? = nil
        var superentityName: String? = nil
        var isAbstract: Bool = false
        var attributes: [AttributeDescription] = []
        var relationships: [RelationshipDescription] = []
        var fetchedProperties: [FetchedPropertyDescription] = []
        var uniquenessConstraints: [[String]] = []
        var fetchIndexes: [FetchIndexDescription] = []
        var compoundIndexes: [[String]] = []
        var userInfo: [String: String] = [:]
        var renamingIdentifier: String? = nil
        var versionHashModifier: String? = nil
        var xcodeSettings: [String: String] = [:]

        init(name: String) {
            self.name = name
        }

        init(copying other: Storage) {
            name = other.name
            className = other.className
            superentityName = other.superentityName
            isAbstract = other.isAbstract
            attributes = other.attributes
            relationships = other.relationships
            fetchedProperties = other.fetchedProperties
            uniquenessConstraints = other.uniquenessConstraints
            fetchIndexes = other.fetchIndexes
            compoundIndexes = other.compoundIndexes
            userInfo = other.userInfo
            renamingIdentifier = other.renamingIdentifier
            versionHashModifier = other.versionHashModifier
            xcodeSettings = other.xcodeSettings
        }
    }

    private var storage: Storage

    /// The storage, copied first when another description shares it.
    private mutating func uniqueStorage() -> Storage {
        if !isKnownUniquelyReferenced(&storage) { storage = Storage(copying: storage) }
        return storage
    }

    /// The entity's name, unique in the model. It enters the version hash, and for a root entity
    /// it names the store table (`Z` + the uppercased name).
    public var name: String {
        get { storage.name }
        set { uniqueStorage().name = newValue }
    }

    /// The class Xcode generates or names for the entity's objects.
    public var className: String? {
        get { storage.className }
        set { uniqueStorage().className = newValue }
    }

    /// The parent entity's name, for a sub-entity.
    public var superentityName: String? {
        get { storage.superentityName }
        set { uniqueStorage().superentityName = newValue }
    }

    /// An abstract entity has no objects of its own, only those of its sub-entities.
    public var isAbstract: Bool {
        get { storage.isAbstract }
        set { uniqueStorage().isAbstract = newValue }
    }

    /// The attributes the entity declares itself, in model order; see
    /// ``ObjectModel/allAttributes(of:)`` for inherited ones too.
    public var attributes: [AttributeDescription] {
        get { storage.attributes }
        set { uniqueStorage().attributes = newValue }
    }

    /// The relationships the entity declares itself, in model order; see
    /// ``ObjectModel/allRelationships(of:)`` for inherited ones too.
    public var relationships: [RelationshipDescription] {
        get { storage.relationships }
        set { uniqueStorage().relationships = newValue }
    }

    /// The fetched properties the entity declares, in model order. They have no store column and
    /// are not part of the version hash.
    public var fetchedProperties: [FetchedPropertyDescription] {
        get { storage.fetchedProperties }
        set { uniqueStorage().fetchedProperties = newValue }
    }

    /// Sets of property names whose values together must be unique among the entity's objects.
    public var uniquenessConstraints: [[String]] {
        get { storage.uniquenessConstraints }
        set { uniqueStorage().uniquenessConstraints = newValue }
    }

    /// The indexes the store keeps on the entity's table for fetches (`fetchIndex`), each named
    /// `Z_<Entity>_<index name>` in the store.
    public var fetchIndexes: [FetchIndexDescription] {
        get { storage.fetchIndexes }
        set { uniqueStorage().fetchIndexes = newValue }
    }

    /// Indexes from models made before fetch indexes existed: each a list of property names.
    public var compoundIndexes: [[String]] {
        get { storage.compoundIndexes }
        set { uniqueStorage().compoundIndexes = newValue }
    }

    /// Free-form key–value pairs from the model editor's User Info; not part of the version hash.
    /// `strata.verbose` set to `YES` logs the entity and its sub-entities at info level.
    public var userInfo: [String: String] {
        get { storage.userInfo }
        set { uniqueStorage().userInfo = newValue }
    }

    /// The renaming identifier: the name this entity had in an earlier model version.
    public var renamingIdentifier: String? {
        get { storage.renamingIdentifier }
        set { uniqueStorage().renamingIdentifier = newValue }
    }

    /// Text mixed into the entity's version hash (`versionHashModifier`), so that a store sees a
    /// new model version even when nothing else in the hash changed.
    public var versionHashModifier: String? {
        get { storage.versionHashModifier }
        set { uniqueStorage().versionHashModifier = newValue }
    }

    /// Xcode settings that Strata keeps as written but gives no meaning (`codeGenerationType`, …).
    public var xcodeSettings: [String: String] {
        get { storage.xcodeSettings }
        set { uniqueStorage().xcodeSettings = newValue }
    }

    // Inlined, so that comparing an entity with itself, as contexts do for every object they
    // make, retains nothing; the comparison of the parts is a function of its own.
    @inline(__always)
    public static func == (lhs: EntityDescription, rhs: EntityDescription) -> Bool {
        lhs.storage === rhs.storage || partsEqual(lhs, rhs)
    }

    private static func partsEqual(_ lhs: EntityDescription, _ rhs: EntityDescription) -> Bool {
        lhs.name == rhs.name && lhs.className == rhs.className && lhs.superentityName == rhs.superentityName && lhs.isAbstract == rhs.isAbstract && lhs.attributes == rhs.attributes && lhs.relationships == rhs.relationships && lhs.fetchedProperties == rhs.fetchedProperties && lhs.uniquenessConstraints == rhs.uniquenessConstraints && lhs.fetchIndexes == rhs.fetchIndexes && lhs.compoundIndexes == rhs.compoundIndexes && lhs.userInfo == rhs.userInfo && lhs.renamingIdentifier == rhs.renamingIdentifier && lhs.versionHashModifier == rhs.versionHashModifier && lhs.xcodeSettings == rhs.xcodeSettings
    }

    /// A concrete entity named `name`, with no parent entity and no properties.
    public init(name: String) {
        storage = Storage(name: name)
    }

    /// The attribute named `name` that this entity declares itself.
    public func attribute(named name: String) -> AttributeDescription? {
        attributes.first { $0.name == name }
    }

    /// The relationship named `name` that this entity declares itself.
    public func relationship(named name: String) -> RelationshipDescription? {
        relationships.first { $0.name == name }
    }

    /// The names of every property the entity declares: attributes, relationships, fetched properties.
    public var declaredPropertyNames: [String] {
        attributes.map(\.name) + relationships.map(\.name) + fetchedProperties.map(\.name)
    }
}
