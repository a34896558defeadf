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
    /// The relationship's name, unique among the entity's properties including inherited ones.
    public var name: String
    /// The name of the entity at the other end.
    public var destinationEntityName: String
    /// The relationship on the destination that points back, if the model names one.
    public var inverseName: String?
    /// The entity Xcode records for the inverse; normally equal to the destination.
    public var inverseEntityName: String?
    /// Whether the relationship holds any number of objects (`toMany`) rather than at most one.
    public var isToMany: Bool
    /// Whether a to-many keeps its objects in an order.
    public var isOrdered: Bool = false
    /// The fewest objects the relationship must hold, as the model file writes it (`minCount`);
    /// 0 when absent. Enters the version hash.
    public var minCount: Int = 0
    /// The most objects the relationship may hold, as the model file writes it (`maxCount`): 1 on
    /// a to-one, 0 on a to-many without a limit. Enters the version hash.
    public var maxCount: Int
    /// What deleting the source object does to the objects the relationship holds
    /// (`deletionRule`); defaults to ``DeleteRule/nullify``. Not part of the version hash.
    public var deleteRule: DeleteRule = .nullify
    /// Whether a saved object may leave the relationship empty; defaults to `true`.
    public var isOptional: Bool = true
    /// Transient relationships are kept in memory only; the store has no column or join table
    /// for them.
    public var isTransient: Bool = false
    /// Free-form key–value pairs from the model editor's User Info. Not part of the version hash.
    public var userInfo: [String: String] = [:]
    /// The renaming identifier: the name this relationship had in an earlier model version.
    public var renamingIdentifier: String?
    /// Text mixed into the relationship's version hash (`versionHashModifier`), so that a store
    /// sees a new model version even when nothing else in the hash changed.
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
