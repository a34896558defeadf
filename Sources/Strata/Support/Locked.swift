import Foundation

/// A value shared between threads, read and written under a lock.
///
/// It uses a pthread mutex (through `NSLock`), which ThreadSanitizer understands, so that the
/// sanitizer run of the concurrency tests reports real races only. The standard library's
/// `Mutex` is not one: on Linux its lock is outside the sanitized code, and the sanitizer saw
/// two threads holding one `Mutex` as a race (`strata run`'s status line, which the command
/// line tool shares this type for).
package final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with the value, no other thread touching it meanwhile.
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
