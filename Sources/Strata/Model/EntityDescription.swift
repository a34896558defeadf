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
    public var name: String
    /// The class Xcode generates or names for the entity's objects.
    public var className: String?
    /// The parent entity's name, for a sub-entity.
    public var superentityName: String?
    /// An abstract entity has no objects of its own, only those of its sub-entities.
    public var isAbstract: Bool = false
    public var attributes: [AttributeDescription] = []
    public var relationships: [RelationshipDescription] = []
    public var fetchedProperties: [FetchedPropertyDescription] = []
    /// Sets of property names whose values together must be unique among the entity's objects.
    public var uniquenessConstraints: [[String]] = []
    public var fetchIndexes: [FetchIndexDescription] = []
    /// Indexes from models made before fetch indexes existed: each a list of property names.
    public var compoundIndexes: [[String]] = []
    public var userInfo: [String: String] = [:]
    /// The renaming identifier: the name this entity had in an earlier model version.
    public var renamingIdentifier: String?
    public var versionHashModifier: String?
    /// Xcode settings that Strata keeps as written but gives no meaning (`codeGenerationType`, …).
    public var xcodeSettings: [String: String] = [:]

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
