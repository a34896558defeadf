import Foundation

/// The asynchronous sequences a controller or monitor hands its changes to: made on demand,
/// each fed every change from then on, all ended together.
final class ChangeStreams<Change: Sendable>: Sendable {
    private let continuations = Locked<[UUID: AsyncStream<Change>.Continuation]>([:])

    /// A new sequence of the changes to come.
    func makeStream() -> AsyncStream<Change> {
        let (stream, continuation) = AsyncStream<Change>.makeStream()
        let token = UUID()
        continuations.withLock { $0[token] = continuation }
        continuation.onTermination = { [weak self] _ in _ = self?.continuations.withLock { $0.removeValue(forKey: token) } }
        return stream
    }

    func yield(_ change: Change) {
        for continuation in continuations.withLock({ Array($0.values) }) { continuation.yield(change) }
    }

    /// Ends every sequence. Ending one calls back into the table, so they are taken out first.
    func finishAll() {
        let ended = continuations.withLock { continuations in
            defer { continuations = [:] }
            return Array(continuations.values)
        }
        ended.forEach { $0.finish() }
    }
}
