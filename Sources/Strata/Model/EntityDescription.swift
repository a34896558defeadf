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
    /// The entity's name, unique in the model. It enters the version hash, and for a root entity
    /// it names the store table (`Z` + the uppercased name).
    public var name: String
    /// The class Xcode generates or names for the entity's objects.
    public var className: String?
    /// The parent entity's name, for a sub-entity.
    public var superentityName: String?
    /// An abstract entity has no objects of its own, only those of its sub-entities.
    public var isAbstract: Bool = false
    /// The attributes the entity declares itself, in model order; see
    /// ``ObjectModel/allAttributes(of:)`` for inherited ones too.
    public var attributes: [AttributeDescription] = []
    /// The relationships the entity declares itself, in model order; see
    /// ``ObjectModel/allRelationships(of:)`` for inherited ones too.
    public var relationships: [RelationshipDescription] = []
    /// The fetched properties the entity declares, in model order. They have no store column and
    /// are not part of the version hash.
    public var fetchedProperties: [FetchedPropertyDescription] = []
    /// Sets of property names whose values together must be unique among the entity's objects.
    public var uniquenessConstraints: [[String]] = []
    /// The indexes the store keeps on the entity's table for fetches (`fetchIndex`), each named
    /// `Z_<Entity>_<index name>` in the store.
    public var fetchIndexes: [FetchIndexDescription] = []
    /// Indexes from models made before fetch indexes existed: each a list of property names.
    public var compoundIndexes: [[String]] = []
    /// Free-form key–value pairs from the model editor's User Info; not part of the version hash.
    /// `strata.verbose` set to `YES` logs the entity and its sub-entities at info level.
    public var userInfo: [String: String] = [:]
    /// The renaming identifier: the name this entity had in an earlier model version.
    public var renamingIdentifier: String?
    /// Text mixed into the entity's version hash (`versionHashModifier`), so that a store sees a
    /// new model version even when nothing else in the hash changed.
    public var versionHashModifier: String?
    /// Xcode settings that Strata keeps as written but gives no meaning (`codeGenerationType`, …).
    public var xcodeSettings: [String: String] = [:]

    /// A concrete entity named `name`, with no parent entity and no properties.
    public init(name: String) {
        self.name = name
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
