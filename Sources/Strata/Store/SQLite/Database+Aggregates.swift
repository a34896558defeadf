import CSQLite
import Foundation

// Aggregates that SQLite lacks and Core Data's fetches offer (`NSExpression`'s `stddev:`,
// `median:` and `mode:`), registered on every connection for dictionary fetches and predicates.

extension Database {
    func registerStrataAggregates() throws(DatabaseError) {
        // strata_stddev(x): the population standard deviation of the non-NULL numbers, by
        // Welford's running mean and sum of squares, which stays exact for large values.
        try defineAggregate(AggregateFunction.stddev.sqlFunction) { () -> ([DatabaseValue]) -> DatabaseValue? in
            var count = 0.0, mean = 0.0, squares = 0.0
            return { arguments in
                guard let arguments = arguments.first else { return count == 0 ? .null : .real((squares / count).squareRoot()) }
                guard let value = arguments.doubleValue else { return nil }
                count += 1
                let delta = value - mean
                mean += delta / count
                squares += delta * (value - mean)
                return nil
            }
        }
        // strata_median(x) and strata_mode(x) need every value: they collect them and apply
        // ExpressionFunction's median: and mode: (a JSON array), as a predicate in memory does.
        for aggregate in [AggregateFunction.median, .mode] {
            let function = ExpressionFunction.aggregate(aggregate)
            try defineAggregate(aggregate.sqlFunction) { () -> ([DatabaseValue]) -> DatabaseValue? in
                var values: [DatabaseValue] = []
                return { arguments in
                    guard let argument = arguments.first else { return function.apply(values) }
                    // Both read numbers alone; anything else need not be kept.
                    if argument.doubleValue != nil { values.append(argument) }
                    return nil
                }
            }
        }
    }

    /// Registers a one-argument aggregate. `makeAccumulator` is called once per group; the
    /// closure it returns is called with `[value]` for each row and with `[]` at the end of
    /// the group, when it returns the result.
    func defineAggregate(_ name: String, _ makeAccumulator: @escaping () -> ([DatabaseValue]) -> DatabaseValue?) throws(DatabaseError) {
        let box = Unmanaged.passRetained(AggregateBox(makeAccumulator)).toOpaque()
        let code = sqlite3_create_function_v2(
            handle, name, 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, box, nil,
            { context, _, values in
                guard let accumulator = AggregateBox.accumulator(context, creating: true) else { return }
                _ = accumulator.body([DatabaseValue(sqliteValue: values?[0])])
            },
            { context in
                let accumulator = AggregateBox.accumulator(context, creating: true)
                sqlite3_result(context, accumulator?.body([]) ?? .null)
                AggregateBox.release(context)
            },
            { box in box.map { Unmanaged<AggregateBox>.fromOpaque($0).release() } })
        guard code == SQLITE_OK else { throw error(code: code) }
    }
}

private final class AggregateBox {
    let makeAccumulator: () -> ([DatabaseValue]) -> DatabaseValue?
    init(_ makeAccumulator: @escaping () -> ([DatabaseValue]) -> DatabaseValue?) { self.makeAccumulator = makeAccumulator }

    final class Accumulator {
        let body: ([DatabaseValue]) -> DatabaseValue?
        init(_ body: @escaping ([DatabaseValue]) -> DatabaseValue?) { self.body = body }
    }

    /// The group's accumulator, kept in SQLite's per-group memory as a retained pointer.
    static func accumulator(_ context: OpaquePointer?, creating: Bool) -> Accumulator? {
        let size = Int32(MemoryLayout<UnsafeMutableRawPointer?>.size)
        guard let slot = sqlite3_aggregate_context(context, creating ? size : 0)?.assumingMemoryBound(to: UnsafeMutableRawPointer?.self) else {
            return nil
        }
        if let existing = slot.pointee { return Unmanaged<Accumulator>.fromOpaque(existing).takeUnretainedValue() }
        let box = Unmanaged<AggregateBox>.fromOpaque(sqlite3_user_data(context)).takeUnretainedValue()
        let accumulator = Accumulator(box.makeAccumulator())
        slot.pointee = Unmanaged.passRetained(accumulator).toOpaque()
        return accumulator
    }

    static func release(_ context: OpaquePointer?) {
        guard let slot = sqlite3_aggregate_context(context, 0)?.assumingMemoryBound(to: UnsafeMutableRawPointer?.self),
            let pointer = slot.pointee
        else { return }
        Unmanaged<Accumulator>.fromOpaque(pointer).release()
        slot.pointee = nil
    }
}
