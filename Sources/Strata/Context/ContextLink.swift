/// What a context's objects reach it through: one link per context, shared by its objects
/// and cleared by the context as it goes, so that an object outliving its context reads
/// `nil` for it (see ``ManagedObject/managedObjectContext``).
///
/// Objects held their context weakly. A weak reference gives the context a side table of
/// reference counts, after which every retain and release of the context goes through it, and
/// each object formed, read and destroyed a weak reference of its own: 16% of the Swift side
/// of fetching 100,000 objects (retain and release, and the slow reference-counting paths).
/// Through a link, an object retains the link once, and reads its context without counting.
final class ContextLink: @unchecked Sendable {
    /// The context, not retained: `nil` once it is gone. Set once the context is made, cleared
    /// by its `deinit` under ``ManagedObject/ownershipLock``, so that ``ManagedObject/ownership``
    /// never reads a context being freed.
    @exclusivity(unchecked) private(set) var context: Unmanaged<ObjectContext>?

    func attach(_ context: ObjectContext) {
        self.context = .passUnretained(context)
    }

    /// Called by the context's `deinit`, under ``ManagedObject/ownershipLock``.
    func clearLocked() {
        context = nil
    }
}
