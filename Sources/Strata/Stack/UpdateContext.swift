import Dispatch

/// A context for one update (CoreDataMonk's `beginUpdate`): its changes reach the store only
/// through ``commit()``; whatever is not committed is discarded when the update ends.
///
/// ```swift
/// stack.beginUpdate { update in
///     let book = try update.use(bookOnScreen)      // the same object, in the update's context
///     try book.setValue(5.0, forKey: "rating")
///     try update.commit()
/// }
/// ```
public final class UpdateContext: @unchecked Sendable {
    /// The worker context the update runs in.
    public let context: ObjectContext

    init(context: ObjectContext) {
        self.context = context
    }

    /// Inserts a new object of `entityName` into the update.
    @discardableResult
    public func insert(_ entityName: String) throws(ContextError) -> ManagedObject {
        try context.insert(entityName)
    }

    /// The update's own instance of `object`, which may belong to any context of the stack.
    public func use<Object: ManagedObject>(_ object: Object) throws(ContextError) -> Object {
        // The ID is read on the owner's queue: a merge there may be making it permanent.
        let id = object.managedObjectContext.map { owner in owner.performAndWait { object.objectID } } ?? object.objectID
        guard let own = try context.existingObject(with: id) as? Object else {
            throw .wrongType(
                entity: object.objectID.entityName, property: "class", value: "\(type(of: object))",
                expected: "the class registered for \(object.objectID.entityName)")
        }
        return own
    }

    /// Saves the update through every parent to the store.
    public func commit() throws(ContextError) {
        try context.commit()
    }

    /// Drops every change not committed.
    public func discard() {
        context.rollback()
    }

    /// Runs `body` on the update's queue and waits for it (for multi-step updates).
    public func perform<T>(_ body: () throws -> T) rethrows -> T {
        try context.performAndWait(body)
    }
}

extension DataStack {
    /// Runs `body` with a new update, later, on the update's queue (one update after another
    /// when ``Options/runsUpdatesSerially``); uncommitted changes are discarded. `completion`,
    /// if given, is called on the main queue with the error `body` threw, if any.
    public func beginUpdate(
        _ body: @escaping @Sendable (UpdateContext) throws -> Void, completion: (@Sendable (Error?) -> Void)? = nil
    ) {
        let update = beginUpdateContext()
        let run: @Sendable () -> Void = {
            let failure = update.perform { () -> Error? in
                defer { update.discard() }
                do {
                    try body(update)
                    return nil
                } catch {
                    return error
                }
            }
            if let completion {
                DispatchQueue.main.async { completion(failure) }
            }
        }
        if options.runsUpdatesSerially { updateQueue.async(execute: run) } else { update.context.perform(run) }
    }

    /// Runs `body` with a new update and waits for it; uncommitted changes are discarded.
    public func beginUpdateAndWait<T>(_ body: (UpdateContext) throws -> T) throws -> T {
        let update = beginUpdateContext()
        func work() throws -> T {
            try update.perform {
                defer { update.discard() }
                return try body(update)
            }
        }
        return try options.runsUpdatesSerially ? updateQueue.sync(execute: work) : work()
    }

    /// A new update for several steps; call ``UpdateContext/commit()`` when done.
    public func beginUpdateContext() -> UpdateContext {
        UpdateContext(context: newWorkerContext(name: "update"))
    }
}
