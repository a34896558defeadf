import CSQLite

extension Database {
    /// Has SQLite ask `shouldStop` every `steps` steps of its virtual machine while this
    /// connection runs a statement, and end the statement with `SQLITE_INTERRUPT` when the
    /// answer is `true`: the one way to bound a single long statement (a scan with a costly
    /// predicate), which nothing outside SQLite can stop part-way. As `sqlite3_interrupt`
    /// does, a write ended so rolls back the transaction it was in, so nothing half-done stays.
    ///
    /// ```swift
    /// database.stopStatements(when: { Date() > deadline })
    /// defer { database.stopStatements(when: nil) }
    /// ```
    ///
    /// - Parameters:
    ///   - steps: the virtual-machine steps between two questions; a step is a few
    ///     nanoseconds, so the default asks about every ten microseconds.
    ///   - shouldStop: asked on the thread that runs the statement; `nil` removes the check.
    package func stopStatements(every steps: Int32 = 1000, when shouldStop: (() -> Bool)?) {
        guard let shouldStop else {
            sqlite3_progress_handler(handle, 0, nil, nil)
            statementStop = nil
            return
        }
        let stop = StatementStop(shouldStop)
        statementStop = stop
        sqlite3_progress_handler(handle, steps, { context in
            Unmanaged<StatementStop>.fromOpaque(context!).takeUnretainedValue().shouldStop() ? 1 : 0
        }, Unmanaged.passUnretained(stop).toOpaque())
    }
}

/// The question ``Database/stopStatements(every:when:)`` hands SQLite, boxed for its C callback.
final class StatementStop {
    let shouldStop: () -> Bool

    init(_ shouldStop: @escaping () -> Bool) {
        self.shouldStop = shouldStop
    }
}
