import Foundation

/// The difference between the entity version hashes a store records and those of a model:
/// what a migration has to bridge.
public struct HashComparison: Sendable, Equatable {
    /// Entities the store has and the model does not.
    public var onlyInStore: [String]
    /// Entities the model has and the store does not.
    public var onlyInModel: [String]
    /// Entities both have, with different hashes.
    public var changed: [String]

    /// Compares hashes by entity name: `store` as the store records them in
    /// `NSStoreModelVersionHashes`, `model` as computed from the model. Each list is sorted by name.
    public init(store: [String: Data], model: [String: Data]) {
        onlyInStore = store.keys.filter { model[$0] == nil }.sorted()
        onlyInModel = model.keys.filter { store[$0] == nil }.sorted()
        changed = store.keys.filter { model[$0] != nil && model[$0] != store[$0] }.sorted()
    }

    /// Whether the store was made with the model.
    public var isMatch: Bool { onlyInStore.isEmpty && onlyInModel.isEmpty && changed.isEmpty }

    /// `entities that differ: Book (changed), Tag (only in the model)`.
    public var summary: String {
        let parts = changed.map { "\($0) (changed)" } + onlyInModel.map { "\($0) (only in the model)" }
            + onlyInStore.map { "\($0) (only in the store)" }
        return parts.isEmpty ? "the model matches the store" : "entities that differ: " + parts.joined(separator: ", ")
    }
}
