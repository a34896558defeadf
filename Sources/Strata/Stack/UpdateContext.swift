import Dispatch

/// A context for one update (CoreDataMonk's `beginUpdate`): its changes reach the store only
/// through ``commit()``; whatever is not committed is discarded when the update ends, that is
/// when nothing holds it any more.
///
/// ```swift
/// stack.beginUpdate { update in
///     let book = try update.use(bookOnScreen)      // the same object, in the update's context
///     try book.setValue(5.0, forKey: "rating")
///     try update.commit()
/// }
/// ```
///
/// An update may outlive its block: a callback that holds it goes on later with
/// ``perform(_:completion:)``, the block's uncommitted changes still there (CoreDataMonk's
/// nested update):
///
/// ```swift
/// stack.beginUpdate { update in
///     let author = try update.insert("Author")
///     fetchBiography { text in
///         update.perform { update in
///             try author.setValue(text, forKey: "biography")
///             try update.commit()
///         }
///     }
/// }
/// ```
public final class UpdateContext: @unchecked Sendable {
    /// The worker context the update runs in.
    public let context: ObjectContext

    init(context: ObjectContext) {
        self.context = context
    }

    deinit {
        let context = context
        context.perform { context.rollback() }
    }

    /// Inserts a new object of `entityName` into the update.
    ///
    /// - Throws: what ``ObjectContext/insert(_:)`` throws: an unknown or abstract entity.
    @discardableResult
    public func insert(_ entityName: String) throws(ContextError) -> ManagedObject {
        try context.insert(entityName)
    }

    /// The update's own instance of `object`, which may belong to any context of the stack
    /// (see ``ObjectContext/use(_:)-(Object)``).
    ///
    /// - Throws: what ``ObjectContext/use(_:)-(Object)`` throws: the object is not saved where
    ///   the update can read it, or not of the class the update hands out.
    public func use<Object: ManagedObject>(_ object: Object) throws(ContextError) -> Object {
        try context.use(object)
    }

    /// The update's own instances of `objects`, in order.
    ///
    /// - Throws: what ``use(_:)-(Object)`` throws for the first object it cannot give.
    public func use<Object: ManagedObject>(_ objects: [Object]) throws(ContextError) -> [Object] {
        try context.use(objects)
    }

    /// Saves the update through every parent to the store.
    ///
    /// - Throws: what ``ObjectContext/commit()`` throws; nothing is saved then.
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

    /// Runs `body` with the update, later, on its queue: a callback's way back into an update
    /// whose block has returned. `completion`, if given, is called on the main queue with the
    /// error `body` threw; without it, the error is logged (`strata.update`).
    public func perform(_ body: @escaping @Sendable (UpdateContext) throws -> Void, completion: (@Sendable (Error?) -> Void)? = nil) {
        context.perform {
            let failure = Self.outcome { try body(self) }
            Self.report(failure, to: completion)
        }
    }

    /// What `body` threw, if anything.
    static func outcome(_ body: () throws -> Void) -> Error? {
        do {
            try body()
            return nil
        } catch {
            return error
        }
    }

    /// Hands an update's outcome to `completion` on the main queue, or logs a failure no one
    /// would hear otherwise.
    static func report(_ failure: Error?, to completion: (@Sendable (Error?) -> Void)?) {
        if let completion {
            DispatchQueue.main.async { completion(failure) }
        } else if let failure {
            StrataLog.logger(label: "strata.update").error("update failed: \(failure)")
        }
    }
}

extension DataStack {
    /// Runs `body` with a new update, later, on the update's queue. Uncommitted changes are
    /// discarded when the update ends: when `body` returns, or later if something (a callback
    /// that calls ``UpdateContext/perform(_:completion:)``) still holds the update. With
    /// ``Options/runsUpdatesSerially``, each update's `body` starts once the one before has
    /// returned (what callbacks do later runs on the update's own queue, outside that order).
    /// `completion`, if given, is called on the main queue with the error `body` threw;
    /// without it, the error is logged (`strata.update`).
    public func beginUpdate(
        _ body: @escaping @Sendable (UpdateContext) throws -> Void, completion: (@Sendable (Error?) -> Void)? = nil
    ) {
        let update = beginUpdateContext()
        guard options.runsUpdatesSerially else {
            update.perform(body, completion: completion)
            return
        }
        updateQueue.async {
            let failure = update.perform { UpdateContext.outcome { try body(update) } }
            UpdateContext.report(failure, to: completion)
        }
    }

    /// Runs `body` with a new update and waits for it; uncommitted changes are discarded when
    /// the update ends. Inside another update of a serial stack it runs at once, nested, rather
    /// than wait for the update that waits for it.
    ///
    /// - Throws: what `body` throws.
    public func beginUpdateAndWait<T>(_ body: (UpdateContext) throws -> T) throws -> T {
        func work() throws -> T {
            let update = beginUpdateContext()
            return try update.perform { try body(update) }
        }
        guard options.runsUpdatesSerially, !updateQueueToken.isHeldByThisThread else { return try work() }
        return try QueueToken.sync(updateQueue, token: updateQueueToken, work)
    }

    /// A new update for several steps; call ``UpdateContext/commit()`` when done.
    public func beginUpdateContext() -> UpdateContext {
        UpdateContext(context: newWorkerContext(name: "update"))
    }
}
