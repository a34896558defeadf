import Foundation

/// Follows one object in its context: told when a save, a merge or a child's save changes it
/// or deletes it (CoreStore's `ObjectMonitor`, for a detail view).
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
    public enum Change: Sendable, Equatable {
        /// The object's values changed; it is the object with this ID.
        case updated(ObjectID)
        /// The object was deleted.
        case deleted(ObjectID)
    }

    public let context: ObjectContext
    /// The object's ID, permanent once a save gave it one.
    public private(set) var objectID: ObjectID
    /// Called with each change.
    public var onChange: ((Change) -> Void)?
    private var observation: DidSaveObservation?
    private let streams = Locked<[UUID: AsyncStream<Change>.Continuation]>([:])

    /// A monitor of `object`, which must be in a context.
    ///
    /// - Throws: ``ContextError/foreignObject(_:)`` for an object no context holds.
    public init(_ object: ManagedObject) throws(ContextError) {
        guard let context = object.managedObjectContext else { throw .foreignObject(object.objectID) }
        self.context = context
        objectID = object.objectID
        observation = context.addObjectsDidChangeObserver { [weak self] change in
            self?.take(change)
        }
    }

    deinit {
        observation?.cancel()
        finishStreams()
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
        let (stream, continuation) = AsyncStream<Change>.makeStream()
        let token = UUID()
        streams.withLock { $0[token] = continuation }
        continuation.onTermination = { [weak self] _ in _ = self?.streams.withLock { $0.removeValue(forKey: token) } }
        return stream
    }

    private func take(_ change: ObjectsDidChange) {
        let previous = objectID
        if let permanent = change.permanentIDs[objectID] { objectID = permanent }
        if change.deleted.contains(previous) || change.deleted.contains(objectID) {
            observation?.cancel()
            observation = nil
            deliver(.deleted(objectID))
            finishStreams()
        } else if change.updated.contains(previous) || change.updated.contains(objectID) {
            deliver(.updated(objectID))
        }
    }

    /// Ends the sequences; ending one calls back into `streams`, so they are taken out first.
    private func finishStreams() {
        let continuations = streams.withLock { streams in
            defer { streams = [:] }
            return Array(streams.values)
        }
        continuations.forEach { $0.finish() }
    }

    private func deliver(_ change: Change) {
        onChange?(change)
        for continuation in streams.withLock({ Array($0.values) }) { continuation.yield(change) }
    }
}
