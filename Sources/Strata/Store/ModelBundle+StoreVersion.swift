import Foundation

extension ModelBundle {
    /// The version of the bundle that made a store: the one whose entity version hashes are
    /// those the store's metadata records, as Core Data finds the model of a store among an
    /// app's versions.
    ///
    /// ```swift
    /// let store = try PersistentStore.open(at: "App.sqlite", configuration: .readOnly)
    /// bundle.version(thatMade: store.metadata, storeModel: store.model)?.name   // "App 3"
    /// ```
    ///
    /// - Parameters:
    ///   - metadata: the store's metadata.
    ///   - storeModel: the model the store keeps in `Z_MODELCACHE`, if read: it settles the
    ///     entities whose hash Strata does not reproduce (see
    ///     ``StoreMetadata/comparison(with:storeModel:)``).
    /// - Returns: the first version that matches, or `nil` when none does.
    public func version(thatMade metadata: StoreMetadata, storeModel: ObjectModel? = nil) -> Version? {
        versions.first { metadata.comparison(with: $0.model, storeModel: storeModel).isMatch }
    }
}
