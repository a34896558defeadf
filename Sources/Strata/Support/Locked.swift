import Foundation

/// A value shared between threads, read and written under a lock.
///
/// It uses a pthread mutex (through `NSLock`), which ThreadSanitizer understands, so that the
/// sanitizer run of the concurrency tests reports real races only.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with the value, no other thread touching it meanwhile.
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
