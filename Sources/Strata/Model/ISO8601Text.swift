import Foundation

/// ISO 8601 dates as APIs write them: `2024-05-01`, `2024-05-01T12:30`, `2024-05-01T12:30:15`,
/// with a fraction of seconds, and `Z` or an offset (`+02:00`, `+0200`); no zone means UTC.
enum ISO8601Text {
    /// Made once: a calendar is costly to make and dates are read by the million.
    private static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()

    static func date(from text: String) -> Date? {
        let scalars = Array(text.utf8)
        var index = 0
        func number(_ digits: Int) -> Int? {
            guard index + digits <= scalars.count else { return nil }
            var value = 0
            for byte in scalars[index..<(index + digits)] {
                guard (48...57).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            index += digits
            return value
        }
        func skip(_ byte: UInt8) -> Bool {
            guard index < scalars.count, scalars[index] == byte else { return false }
            index += 1
            return true
        }
        guard let year = number(4), skip(45), let month = number(2), skip(45), let day = number(2) else { return nil }
        var hour = 0, minute = 0, second = 0.0, offset = 0
        if skip(84) || skip(116) || skip(32) {
            guard let h = number(2), skip(58), let m = number(2) else { return nil }
            (hour, minute) = (h, m)
            if skip(58) {
                guard let s = number(2) else { return nil }
                second = Double(s)
                if skip(46) || skip(44) {
                    let start = index
                    while index < scalars.count, (48...57).contains(scalars[index]) { index += 1 }
                    guard index > start, let fraction = Double("0." + String(decoding: scalars[start..<index], as: UTF8.self)) else { return nil }
                    second += fraction
                }
            }
            if skip(90) || skip(122) {
                offset = 0
            } else if index < scalars.count, scalars[index] == 43 || scalars[index] == 45 {
                let sign = scalars[index] == 45 ? -1 : 1
                index += 1
                guard let h = number(2) else { return nil }
                _ = skip(58)
                let m = number(2) ?? 0
                // Zones lie within ±18:00, as Foundation's TimeZone and java.time allow:
                // +99:00 is a typing error, not a date 99 hours away.
                guard m < 60, h * 60 + m <= 18 * 60 else { return nil }
                offset = sign * (h * 3600 + m * 60)
            }
        }
        guard index == scalars.count, (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61 else { return nil }
        guard let midnight = calendar.date(from: DateComponents(year: year, month: month, day: day)),
            calendar.component(.day, from: midnight) == day
        else { return nil }
        return midnight.addingTimeInterval(Double(hour * 3600 + minute * 60) + second - Double(offset))
    }
}
