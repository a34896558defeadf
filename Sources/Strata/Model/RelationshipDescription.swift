/// A relationship from one entity to another: to-one, to-many, or ordered to-many.
///
/// ``minCount`` and ``maxCount`` are kept exactly as the model file writes them, because they
/// enter the version hash that way: a to-many without an upper bound has `maxCount` 0, and
/// Xcode writes `maxCount="1"` on a to-one.
///
/// ```swift
/// var pages = RelationshipDescription(name: "pages", destination: "Page", isToMany: true)
/// pages.inverseName = "book"
/// pages.isOrdered = true
/// pages.deleteRule = .cascade
/// ```
public struct RelationshipDescription: Sendable, Equatable {
    public var name: String
    /// The name of the entity at the other end.
    public var destinationEntityName: String
    /// The relationship on the destination that points back, if the model names one.
    public var inverseName: String?
    /// The entity Xcode records for the inverse; normally equal to the destination.
    public var inverseEntityName: String?
    public var isToMany: Bool
    /// Whether a to-many keeps its objects in an order.
    public var isOrdered: Bool = false
    public var minCount: Int = 0
    public var maxCount: Int
    public var deleteRule: DeleteRule = .nullify
    public var isOptional: Bool = true
    public var isTransient: Bool = false
    public var userInfo: [String: String] = [:]
    /// The renaming identifier: the name this relationship had in an earlier model version.
    public var renamingIdentifier: String?
    public var versionHashModifier: String?
    /// Xcode settings that Strata keeps as written but gives no meaning.
    public var xcodeSettings: [String: String] = [:]

    /// A relationship to `destination`; a to-one gets `maxCount` 1, a to-many 0 (no limit).
    public init(name: String, destination: String, isToMany: Bool = false) {
        self.name = name
        self.destinationEntityName = destination
        self.isToMany = isToMany
        self.maxCount = isToMany ? 0 : 1
    }
}
