import Foundation

/// How a stored attribute's values change when its type changes: only in ways that lose
/// nothing but a Float's precision. Core Data's lightweight migration converts between numeric
/// types; Strata also turns any value into text.
///
/// ```swift
/// AttributeConversion(from: .integer16, to: .integer64)   // .copy
/// AttributeConversion(from: .date, to: .string)           // .text(from: .date): "2024-05-01T10:30:15Z"
/// AttributeConversion(from: .double, to: .integer32)      // nil: values would be lost
/// ```
public enum AttributeConversion: Sendable, Equatable {
    /// The column's values carry over as they are.
    case copy
    /// The values carry over when each fits the new type: integers into a floating point type
    /// whose precision holds them exactly, Doubles into Float's range. The limit is the
    /// largest magnitude that fits.
    case checkedCopy(limit: Double)
    /// Each value becomes its text: numbers in their shortest exact form, booleans `true` or
    /// `false`, dates ISO 8601 in UTC, UUIDs in their usual form, binary data base64.
    case text(from: AttributeType)

    /// The conversion from `source` to `destination`, or `nil` when some values would be lost.
    public init?(from source: AttributeType, to destination: AttributeType) {
        if source == destination { self = .copy; return }
        let integers: [AttributeType] = [.boolean, .integer16, .integer32, .integer64]
        switch (source, destination) {
        case (_, .string):
            guard source != .transformable, source != .objectID, source != .undefined else { return nil }
            self = source == .uri ? .copy : .text(from: source)
        case (.float, .double), (.binary, .transformable), (.transformable, .binary):
            self = .copy
        case (.double, .float):
            // Both are REAL columns: the stored values stay as they were, and a Float reads
            // them rounded to its precision, as Core Data's lightweight migration leaves them.
            self = .checkedCopy(limit: Double(Float.greatestFiniteMagnitude))
        case _ where integers.contains(source) && integers.contains(destination):
            // Widening only: each integer type's range holds the ranges before it.
            guard integers.firstIndex(of: source)! < integers.firstIndex(of: destination)! else { return nil }
            self = .copy
        case _ where integers.contains(source) && [.float, .double, .decimal].contains(destination):
            // Float holds integers up to 2^24 exactly, Double to 2^53; Decimal columns store
            // 15 significant digits (see AttributeValue+Database.swift).
            let limit: Int64 = destination == .float ? 1 << 24 : destination == .double ? 1 << 53 : 999_999_999_999_999
            let largest: Int64 = source == .boolean ? 1 : source == .integer16 ? Int64(Int16.max) + 1 : source == .integer32 ? Int64(Int32.max) + 1 : .max
            self = largest <= limit ? .copy : .checkedCopy(limit: Double(limit))
        default:
            return nil
        }
    }

    /// The SQL expression of the new value, given the expression of the stored one.
    func expression(of column: String) -> String {
        switch self {
        case .copy, .checkedCopy: column
        case .text(let type): "\(Self.textFunction)(\(column), '\(type.rawValue)')"
        }
    }

    // MARK: - Values as text

    /// The SQL function the migration's connection defines for ``text(from:)``.
    static let textFunction = "strata_migration_text"

    /// `value`, as a column of an attribute of `type` holds it, as text; `nil` for NULL.
    static func text(of value: DatabaseValue, type: AttributeType) -> String? {
        guard let attributeValue = AttributeValue(value, type: type) else {
            // A value the type cannot take (another tool wrote it): its own text, if it has one.
            return value.stringValue ?? value.int64Value.map(String.init) ?? value.doubleValue.map { "\($0)" }
        }
        switch attributeValue {
        case .integer(let integer): return String(integer)
        case .double(let double): return "\(double)"
        case .decimal(let decimal): return NSDecimalNumber(decimal: decimal).stringValue
        case .string(let string): return string
        case .boolean(let bool): return bool ? "true" : "false"
        case .date(let date): return date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
        case .binary(let data): return data.base64EncodedString()
        case .uuid(let uuid): return uuid.uuidString
        case .uri(let url): return url.absoluteString
        }
    }
}

extension AttributeConversion {
    /// The SQL function the migration's connection defines to read a value of an attribute
    /// that allowed external storage as its data: `(value, Z_PK, 'Entity.attribute')`.
    static let externalDataFunction = "strata_migration_external_data"

    /// `read` (the expression of the stored value, already converted) as the destination
    /// column holds it when the attribute comes to allow external storage or stops allowing
    /// it: behind Core Data's inline marker (as Core Data's own migrations write it, with
    /// `NSCoreDataPrependExternalReferenceMarker`), or the data itself, read from the row or
    /// its file.
    static func externalForm(
        of column: String, source: AttributeDescription, sourceEntity: String, destination: AttributeDescription, conversion: AttributeConversion
    ) -> String {
        switch (source.allowsExternalBinaryDataStorage, destination.allowsExternalBinaryDataStorage) {
        case (true, true): return column
        case (true, false):
            let place = "\(sourceEntity).\(source.name)".replacingOccurrences(of: "'", with: "''")
            return conversion.expression(of: "\(externalDataFunction)(\(column), Z_PK, '\(place)')")
        case (false, true):
            let converted = conversion.expression(of: column)
            return "NSCoreDataPrependExternalReferenceMarker(length(\(converted)), \(converted))"
        case (false, false): return conversion.expression(of: column)
        }
    }
}

extension Database {
    /// Defines the functions that ``AttributeConversion/text(from:)`` and
    /// ``AttributeConversion/externalForm(of:source:sourceEntity:destination:conversion:)``
    /// call; `externalFolder` is the store's folder of external data files.
    func defineMigrationFunctions(externalFolder: String?) throws(DatabaseError) {
        try defineFunction(AttributeConversion.textFunction, arity: 2) { arguments in
            guard let type = arguments[1].stringValue.flatMap(AttributeType.init(rawValue:)) else { return .null }
            return AttributeConversion.text(of: arguments[0], type: type).map(DatabaseValue.text) ?? .null
        }
        let storage = ExternalBinaryStorage(folder: externalFolder)
        try defineFunction(AttributeConversion.externalDataFunction, arity: 3, isDeterministic: false) { arguments throws(ExternalDataError) -> DatabaseValue in
            guard case .blob(let stored) = arguments[0] else { return arguments[0] }
            let place = (arguments[2].stringValue ?? "a value") + (arguments[1].int64Value.map { " of p\($0)" } ?? "")
            return .blob(try storage.data(ofStored: stored, place: place))
        }
    }
}
