import Foundation

/// A value as SQLite stores it: one of its five storage classes.
///
/// ```swift
/// try database.execute("INSERT INTO ZTAG (Z_PK, ZNAME) VALUES (?, ?)", [.integer(1), .text("fantasy")])
/// ```
public enum DatabaseValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)

    public var isNull: Bool { self == .null }

    /// The value as an integer, when it is one (reals with no fraction count too).
    public var int64Value: Int64? {
        switch self {
        case .integer(let value): value
        case .real(let value) where value.rounded() == value && abs(value) < 9.2e18: Int64(value)
        default: nil
        }
    }

    /// The value as a floating-point number, when it is numeric.
    public var doubleValue: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .real(let value): value
        default: nil
        }
    }

    public var stringValue: String? {
        if case .text(let value) = self { return value }
        return nil
    }

    public var dataValue: Data? {
        if case .blob(let value) = self { return value }
        return nil
    }
}

extension DatabaseValue: CustomStringConvertible {
    /// The value as SQL would write it: `NULL`, `42`, `'text'`, `X'0A0B'`.
    public var description: String {
        switch self {
        case .null: "NULL"
        case .integer(let value): String(value)
        case .real(let value): String(value)
        case .text(let value): "'\(value.replacingOccurrences(of: "'", with: "''"))'"
        case .blob(let value): "X'\(value.hexString.uppercased())'"
        }
    }
}
