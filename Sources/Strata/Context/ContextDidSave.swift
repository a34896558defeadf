/// What a context's save changed: the IDs inserted, updated and deleted, and the saved values,
/// so that other contexts can merge the save without fetching (Core Data's
/// `NSManagedObjectContextDidSave` notification).
public struct ContextDidSave: Sendable {
    /// The name of the context that saved.
    public let contextName: String?
    /// The objects the save inserted, by their permanent IDs when the save reached the store.
    public let insertedObjectIDs: Set<ObjectID>
    /// The objects whose values the save changed.
    public let updatedObjectIDs: Set<ObjectID>
    /// The objects the save deleted.
    public let deletedObjectIDs: Set<ObjectID>
    /// The permanent IDs temporary objects received in this save (a save to the store), by
    /// their temporary ID.
    public let permanentIDs: PermanentIDs
    /// The saved values of inserted and updated objects, and their row versions.
    let savedObjects: [ObjectID: SavedObject]
    /// The context that saved, so that it does not merge its own save.
    let source: ObjectIdentifier
    /// Whether the notification stands for writes of another connection found by comparing
    /// rows, not by history: objects inserted there are not listed, so lists fetch again.
    var storeChangedElsewhere = false

    struct SavedObject: Sendable {
        var values: PropertyValues
        var version: Int64
    }
}

/// A registration for a context's did-save notifications; it ends with ``cancel()`` or when
/// the observation is released.
public final class DidSaveObservation: Sendable {
    private let onCancel: @Sendable () -> Void

    init(onCancel: @escaping @Sendable () -> Void) {
        self.onCancel = onCancel
    }

    /// Stops the notifications.
    public func cancel() {
        onCancel()
    }

    deinit {
        onCancel()
    }
}
