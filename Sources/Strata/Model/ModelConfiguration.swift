/// A named subset of a model's entities, which a store can be limited to.
public struct ModelConfiguration: Sendable, Equatable {
    /// The configuration's name, by which a store is limited to it.
    public var name: String
    /// The names of the entities in the configuration (`memberEntity`), in model order; validation
    /// checks that the model has each.
    public var entityNames: [String]
    /// Whether Xcode marks the configuration for CloudKit.
    public var isUsedWithCloudKit: Bool = false

    /// A configuration named `name` holding the entities named in `entityNames`.
    public init(name: String, entityNames: [String]) {
        self.name = name
        self.entityNames = entityNames
    }
}
