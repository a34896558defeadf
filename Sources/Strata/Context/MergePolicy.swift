/// How a save resolves a conflict: an object whose row another context or process saved
/// since this context read it (its `Z_OPT` moved on). Core Data's merge policies.
public enum MergePolicy: Sendable, Equatable {
    /// The save fails with ``ContextError/conflict(object:expectedVersion:storeVersion:)``
    /// and writes nothing (`NSErrorMergePolicy`, the default).
    case error
    /// Properties this context changed win; the others take the store's values
    /// (`NSMergeByPropertyObjectTrumpMergePolicy`).
    case mergeByPropertyObjectTrump
    /// Properties the store changed win; this context's changes to the others are kept
    /// (`NSMergeByPropertyStoreTrumpMergePolicy`).
    case mergeByPropertyStoreTrump
    /// This context's whole object is written over the store's (`NSOverwriteMergePolicy`).
    case overwrite
    /// This context's changes to the object are dropped for the store's values
    /// (`NSRollbackMergePolicy`).
    case rollback
}
