import Foundation

/// Follows one object in its context: told when a save, a merge or a child's save changes it
/// or deletes it, or a reset of the context takes it away (a stack's ``DataStack/resetStore()``,
/// an unsaved object), as CoreStore's `ObjectMonitor` for a detail view.
///
/// ```swift
/// let monitor = ObjectMonitor(book)
/// monitor.onChange = { change in
///     if case .deleted = change { dismiss() } else { show(book) }
/// }
/// ```
///
/// Use it on the object's context's queue, where its changes are delivered.
public final class ObjectMonitor: @unchecked Sendable {
    /// What happened to the monitored object.
    public enum Change: Sendable, Equatable {
        /// The object's values changed; it is the object with this ID, and `keys` names the
        /// properties that changed (empty where a batch request, a reset or another process
        /// changed it, which say no more).
        case updated(ObjectID, keys: Set<String>)
        /// The object was deleted.
        case deleted(ObjectID)
    }

    /// The context whose changes the monitor follows.
    public let context: ObjectContext
    /// The object's ID, permanent once a save gave it one.
    public private(set) var objectID: ObjectID
    /// Called with each change.
    public var onChange: ((Change) -> Void)?
    private var observation: DidSaveObservation?
    private let streams = ChangeStreams<Change>()

    /// A monitor of `object`, which must be in a context.
    ///
    /// - Throws: ``ContextError/foreignObject(_:)`` for an object no context holds.
    public init(_ object: ManagedObject) throws(ContextError) {
        guard let context = object.managedObjectContext else { throw .foreignObject(object.objectID) }
        self.context = context
        objectID = object.objectID
        context.noteExternalDataVersion()
        observation = context.addObjectsDidChangeObserver { [weak self] change in
            self?.take(change)
        }
    }

    deinit {
        observation?.cancel()
        streams.finishAll()
    }

    /// The object, or `nil` once it is deleted.
    public var object: ManagedObject? {
        context.assertOnQueue()
        guard observation != nil else { return nil }
        return context.object(with: objectID)
    }

    /// The changes to come, as an asynchronous sequence; it ends when the object is deleted
    /// or the monitor goes.
    public var changes: AsyncStream<Change> {
        streams.makeStream()
    }

    private func take(_ change: ObjectsDidChange) {
        let previous = objectID
        if let permanent = change.permanentIDs[objectID] { objectID = permanent }
        if change.deleted.contains(previous) || change.deleted.contains(objectID) || change.isReset && !objectStillExists {
            observation?.cancel()
            observation = nil
            deliver(.deleted(objectID))
            streams.finishAll()
        } else if change.isReset || change.updated.contains(previous) || change.updated.contains(objectID) {
            deliver(.updated(objectID, keys: change.changedKeys[objectID] ?? change.changedKeys[previous] ?? []))
        }
    }

    /// Whether the object can still be had after a reset of its context: not when it was never
    /// saved, nor when a stack's reset replaced the store its ID names.
    private var objectStillExists: Bool {
        guard !objectID.isTemporary else { return false }
        return (try? context.checkStore(of: objectID)) != nil
    }

    private func deliver(_ change: Change) {
        onChange?(change)
        streams.yield(change)
    }
}
