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

/// A named index over one or more properties, for the store to speed up fetches.
public struct FetchIndexDescription: Sendable, Equatable {
    /// One indexed property of a ``FetchIndexDescription``.
    public struct Element: Sendable, Equatable {
        public var property: String
        /// `Binary` (a B-tree) or `R-Tree`, as Xcode writes it.
        public var kind: String = "Binary"
        public var isAscending: Bool = true

        public init(property: String, kind: String = "Binary", isAscending: Bool = true) {
            self.property = property
            self.kind = kind
            self.isAscending = isAscending
        }
    }

    public var name: String
    public var elements: [Element]

    public init(name: String, elements: [Element]) {
        self.name = name
        self.elements = elements
    }
}

/// A property whose value is the result of a fetch request, evaluated on access.
public struct FetchedPropertyDescription: Sendable, Equatable {
    public var name: String
    public var isOptional: Bool = true
    /// The request whose results are the property's value.
    public var fetchRequest: FetchRequestTemplate
    public var userInfo: [String: String] = [:]
    public var xcodeSettings: [String: String] = [:]

    public init(name: String, fetchRequest: FetchRequestTemplate) {
        self.name = name
        self.fetchRequest = fetchRequest
    }
}
