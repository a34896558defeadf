import CSQLite
import Foundation

// Aggregates that SQLite lacks and Core Data's fetches offer (`NSExpression`'s `stddev:` and
// `median:`), registered on every connection for dictionary fetches.

extension Database {
    func registerStrataAggregates() throws(DatabaseError) {
        // strata_stddev(x): the population standard deviation of the non-NULL numbers, by
        // Welford's running mean and sum of squares, which stays exact for large values.
        try defineAggregate("strata_stddev") { () -> ([DatabaseValue]) -> DatabaseValue? in
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
        // strata_median(x): the middle non-NULL number; the mean of the two middle ones for an
        // even count.
        try defineAggregate("strata_median") { () -> ([DatabaseValue]) -> DatabaseValue? in
            var values: [Double] = []
            return { arguments in
                guard let argument = arguments.first else {
                    guard !values.isEmpty else { return .null }
                    values.sort()
                    let middle = values.count / 2
                    return .real(values.count % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2)
                }
                if let value = argument.doubleValue { values.append(value) }
                return nil
            }
        }
        // strata_mode(x): the most frequent numbers, as ExpressionFunction's mode: gives them (a
        // JSON array).
        try defineAggregate("strata_mode") { () -> ([DatabaseValue]) -> DatabaseValue? in
            var values: [DatabaseValue] = []
            return { arguments in
                guard let argument = arguments.first else { return ExpressionFunction.mode.apply(values) }
                values.append(argument)
                return nil
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
