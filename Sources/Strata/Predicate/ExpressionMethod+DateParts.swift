import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Parts of a date, for grouping and filtering by year, month, day, weekday or hour:
///
/// ```text
/// FUNCTION(published, 'year') == 2024
/// FUNCTION(published, 'weekday') IN {1, 7}
/// FUNCTION(published, 'strftime:', '%Y-%m') == '2024-03'
/// ```
///
/// Foundation's dates have no such methods (Core Data would raise for them); they are Strata's
/// own, spelled as `FUNCTION` calls so that they read like the rest of Core Data's format
/// syntax. Every part is taken in **UTC**, not the machine's time zone: a store's dates are
/// instants (seconds since 2001-01-01 00:00 UTC), and an answer that changed with the `TZ` of
/// whoever ran the query could not be relied on. `weekday` counts from 1 for Sunday to 7 for
/// Saturday, as Foundation's `DateComponents.weekday` does (SQLite's `%w` counts from 0).
///
/// `strftime:` takes a C `strftime` format (`%Y`, `%m`, `%d`, `%H`, `%M`, `%S`, `%j`, `%u`,
/// `%V`, `%a`, `%b`, …) and writes the names of days and months in English. The parts are
/// computed here, in Swift, both in memory and in SQL (through `strata_function`), so a
/// fetch answers alike from the store and from a context's unsaved objects.
extension ExpressionMethod {
    /// The part of the date stored as `seconds` since 2001-01-01 00:00 UTC; nil for a date
    /// out of the calendar's range, or a format that writes nothing or more than 256 bytes.
    func datePart(ofStoredDate seconds: Double, _ arguments: [DatabaseValue]) -> DatabaseValue {
        let unix = (seconds + Date.timeIntervalBetween1970AndReferenceDate).rounded(.down)
        guard unix.isFinite, let whole = Int(exactly: unix) else { return .null }
        var time = time_t(whole)
        var parts = tm()
        guard gmtime_r(&time, &parts) != nil else { return .null }
        switch self {
        case .year: return .integer(Int64(parts.tm_year) + 1900)
        case .month: return .integer(Int64(parts.tm_mon) + 1)
        case .day: return .integer(Int64(parts.tm_mday))
        case .weekday: return .integer(Int64(parts.tm_wday) + 1)
        case .hour: return .integer(Int64(parts.tm_hour))
        case .minute: return .integer(Int64(parts.tm_min))
        case .second: return .integer(Int64(parts.tm_sec))
        case .formatted:
            guard let format = arguments.first?.stringValue, !format.isEmpty else { return .null }
            var buffer = [CChar](repeating: 0, count: 257)
            // strftime's names of days and months follow LC_TIME, which Strata never sets: the C locale's English.
            let count = strftime(&buffer, buffer.count, format, &parts)
            guard count > 0 else { return .null }
            return .text(String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self))
        default: return .null
        }
    }
}
