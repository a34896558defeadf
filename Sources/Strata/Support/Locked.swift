import Foundation

/// A value shared between threads, read and written under a lock.
///
/// It uses a pthread mutex (through `NSLock`), which ThreadSanitizer understands, so that the
/// sanitizer run of the concurrency tests reports real races only. The standard library's
/// `Mutex` is not one: the sanitizer reported two threads that each held one `Mutex` as a
/// race (`strata run`'s status line, which is why the command-line tool uses this type too).
/// Inferred, not confirmed: a contended `Mutex` waits in its library's futex code, which is
/// not built with the sanitizer, so the sanitizer never sees that lock taken.
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
