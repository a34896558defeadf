/// A named subset of a model's entities, which a store can be limited to.
public struct ModelConfiguration: Sendable, Equatable {
    public var name: String
    public var entityNames: [String]
    /// Whether Xcode marks the configuration for CloudKit.
    public var isUsedWithCloudKit: Bool = false

    public init(name: String, entityNames: [String]) {
        self.name = name
        self.entityNames = entityNames
    }
}
