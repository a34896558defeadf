import Dispatch
import Foundation
import Synchronization

// MARK: - Running on the context's queue

extension ObjectContext {
    /// Whether the caller runs on the context's queue: inside one of its blocks, on the main
    /// queue for a main-queue context, or in a block of another context that this context's
    /// queue is waiting for (a child saving into its parent runs the parent's work while the
    /// child's caller waits, and that work may call back into the child).
    public var isOnQueue: Bool {
        queueToken.isHeldByThisThread
    }

    /// Runs `body` on the context's queue and waits for it; runs it at once when the caller
    /// already holds the queue, so calls nest without deadlock.
    ///
    /// Safe from any thread, task or actor, including the main actor of an `async` main
    /// (where Linux runs the main queue on a worker thread). A context waits only for its
    /// ancestors (a child's fetch or save waits for its parent, never the other way round), so
    /// blocks that wait for contexts of one chain cannot deadlock each other.
    ///
    /// The error `body` throws comes out with its type: a body that throws only a
    /// ``ContextError`` makes a call that throws only a ``ContextError``, and one that throws
    /// nothing needs no `try`.
    ///
    /// ```swift
    /// let count = try context.performAndWait { try context.count(for: FetchRequest(entityName: "Book")) }
    /// ```
    public func performAndWait<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        if queueToken.isHeldByThisThread { return try body() }
        // The queue's `sync` rethrows untyped: the typed error crosses it as a value.
        let result = QueueToken.sync(queue, token: queueToken) { () -> Result<T, E> in
            do throws(E) {
                return .success(try body())
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Runs `body` on the context's queue, later.
    public func perform(_ body: @escaping @Sendable () -> Void) {
        queue.async(execute: body)
    }

    /// Runs `body` on the context's queue and returns its result.
    ///
    /// - Throws: what `body` throws.
    public func perform<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try body() }) }
        }
    }

    /// Stops an unoptimized build when the caller is not on the context's queue. An `assert`
    /// rather than `#if DEBUG`: the check holds in every build without optimization, such as the
    /// one scripts/test builds without `DEBUG`, and costs nothing in an optimized one.
    func assertOnQueue(_ function: StaticString = #function) {
        assert(isOnQueue, "\(function) used off its context's queue: wrap it in perform or performAndWait")
    }
}

// MARK: - Queue tokens

/// What a thread holds while it runs a context's work: one token per private queue, one for
/// the main queue. The queue a block runs on says which token it holds; blocks that other
/// blocks wait for inherit their waiters' tokens through a thread-local list.
struct QueueToken: Hashable, Sendable {
    private let number: UInt64

    private init(number: UInt64) {
        self.number = number
    }

    /// Numbers are never reused, unlike object addresses: a queue kept alive by its pending
    /// blocks after its context is gone must not share a token with a new context.
    private static let lastNumber = Atomic<UInt64>(0)

    /// A token for a new private queue.
    static func next() -> QueueToken {
        QueueToken(number: lastNumber.add(1, ordering: .relaxed).newValue)
    }

    /// The main queue's token, whichever thread runs the main queue.
    static let mainQueue = QueueToken(number: 0)

    /// Names the token a queue's blocks hold: read back on the queue, and on any queue that
    /// targets it, by ``heldByThisThread()``.
    private static let queueKey = DispatchSpecificKey<QueueToken>()

    static func mark(_ queue: DispatchQueue, with token: QueueToken) {
        queue.setSpecific(key: queueKey, value: token)
    }

    /// Whether the calling thread holds this token: ``heldByThisThread()`` without the list.
    var isHeldByThisThread: Bool {
        DispatchQueue.getSpecific(key: Self.queueKey) == self
            || (self == .mainQueue && Thread.isMainThread)
            || HeldTokens.current.tokens.contains(self)
    }

    /// The tokens the calling thread holds: the queue it runs on, the main queue on the main
    /// thread (its code is the main queue's as long as the main thread runs, as on Darwin),
    /// and the tokens of the blocks waiting for this one.
    static func heldByThisThread() -> [QueueToken] {
        var held = HeldTokens.current.tokens
        if let token = DispatchQueue.getSpecific(key: queueKey) { held.append(token) }
        if Thread.isMainThread { held.append(.mainQueue) }
        return held
    }

    /// Runs `body` on `queue`, marked `token`, and waits for it, the tokens this thread holds
    /// passed on to the block (which may run on another thread), so that it may call back
    /// into the queues its caller holds.
    static func sync<T>(_ queue: DispatchQueue, token: QueueToken, _ body: () throws -> T) rethrows -> T {
        let held = heldByThisThread()
        return try queue.sync { try holding(held + [token], body) }
    }

    /// Runs `body` with `tokens` recorded as held by this thread.
    static func holding<T>(_ tokens: [QueueToken], _ body: () throws -> T) rethrows -> T {
        let list = HeldTokens.current
        let outer = list.tokens
        list.tokens = tokens
        defer { list.tokens = outer }
        return try body()
    }
}

/// The tokens a thread holds on behalf of blocks waiting for it, one list per thread.
private final class HeldTokens {
    var tokens: [QueueToken] = []

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key) { pointer in
            if let pointer { Unmanaged<HeldTokens>.fromOpaque(pointer).release() }
        }
        precondition(status == 0, "pthread_key_create failed: \(status)")
        return key
    }()

    static var current: HeldTokens {
        if let pointer = pthread_getspecific(key) { return Unmanaged<HeldTokens>.fromOpaque(pointer).takeUnretainedValue() }
        let list = HeldTokens()
        pthread_setspecific(key, Unmanaged.passRetained(list).toOpaque())
        return list
    }
}
