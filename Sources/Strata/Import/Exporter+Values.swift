import Foundation

// MARK: - Values

/// Attribute values as JSON, and the warnings of Transformable values JSON cannot show.
extension Exporter {
    /// The JSON of `value` of `attribute` of an object of `entityName`: by the attribute's
    /// `dateFormat`, a Transformable attribute's in the form of its ``TransformableValue``,
    /// which notes a warning when it holds what JSON cannot show as a value.
    func json(_ value: AttributeValue, of attribute: AttributeDescription, in entityName: String) -> JSONValue {
        guard attribute.type == .transformable, case .binary(let data) = value else {
            return json(value, dateFormat: attribute.userInfo["dateFormat"])
        }
        let transformable = attribute.transformableValue(storedData: data)
        let classNames = transformable.archivedClassNames
        var isBytes = false
        if case .bytes = transformable { isBytes = true }
        if isBytes || !classNames.isEmpty {
            pendingWarnings.append((ExportWarning(entity: entityName, attribute: attribute.name, valueTransformerName: attribute.valueTransformerName), classNames, isBytes))
        }
        return transformable.jsonValue()
    }

    /// Adds the warnings of the record just made to ``warnings`` when it is `written`, else
    /// forgets them.
    func settleWarnings(written: Bool) {
        defer { pendingWarnings.removeAll() }
        guard written else { return }
        for (warning, classNames, isBytes) in pendingWarnings {
            let key = warning.entity + "." + warning.attribute
            let position = warningPositions[key] ?? warnings.count
            if position == warnings.count {
                warningPositions[key] = position
                warnings.append(warning)
            }
            warnings[position].count(classNames: classNames, isBytes: isBytes)
        }
    }

    func json(_ value: AttributeValue, dateFormat: String?) -> JSONValue {
        guard case .date(let date) = value, let dateFormat else { return value.jsonValue }
        let formatter = formatters[dateFormat] ?? DateFormatter()
        if formatters[dateFormat] == nil {
            (formatter.locale, formatter.timeZone, formatter.dateFormat) = (Locale(identifier: "en_US_POSIX"), TimeZone(identifier: "UTC"), dateFormat)
            formatters[dateFormat] = formatter
        }
        return .string(formatter.string(from: date))
    }

    /// A date as ISO 8601 text in UTC that ``ISO8601Text`` reads back exactly, with the fewest
    /// fraction digits that do (`2024-05-01T10:30:15Z`, `2024-05-01T10:30:15.25Z`); else as
    /// Unix seconds when those read back exactly (a year outside 1–9999), else the nearest text
    /// (a fraction finer than the time of day's precision, just before 2001).
    static func json(_ date: Date) -> JSONValue {
        let seconds = date.timeIntervalSinceReferenceDate
        let whole = seconds.rounded(.down)
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        let parts = utc.dateComponents([.era, .year, .month, .day, .hour, .minute, .second], from: Date(timeIntervalSinceReferenceDate: whole))
        var nearest: (text: String, error: Double)?
        if parts.era == 1, let year = parts.year, (1...9999).contains(year) {
            let base = String(format: "%04ld-%02ld-%02ldT%02ld:%02ld:%02ld", year, parts.month ?? 1, parts.day ?? 1, parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0)
            for digits in 0...17 {
                let fraction = String(format: "%.\(digits)f", seconds - whole)
                guard digits == 0 ? fraction == "0" : fraction.hasPrefix("0.") else { continue }
                let text = base + fraction.dropFirst(1) + "Z"
                guard let back = ISO8601Text.date(from: text) else { continue }
                if back == date { return .string(text) }
                let error = abs(back.timeIntervalSince(date))
                if error < nearest?.error ?? .infinity { nearest = (text, error) }
            }
        }
        let unix = JSONValue.number(date.timeIntervalSince1970)
        if let number = unix.doubleValue, Date(timeIntervalSince1970: number) == date || nearest == nil { return unix }
        return .string(nearest?.text ?? "")
    }
}
