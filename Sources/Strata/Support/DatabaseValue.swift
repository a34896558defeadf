import Foundation

/// A value as SQLite stores it: one of its five storage classes.
///
/// ```swift
/// try database.execute("INSERT INTO ZTAG (Z_PK, ZNAME) VALUES (?, ?)", [.integer(1), .text("fantasy")])
/// ```
public enum DatabaseValue: Sendable, Hashable {
    /// SQL `NULL`: an optional attribute without a value, or a to-one relationship set to nil.
    case null
    /// A 64-bit signed integer: Integer 16/32/64 and Boolean (0 or 1) attributes, and the
    /// `Z_PK`, `Z_ENT`, `Z_OPT` and to-one key columns.
    case integer(Int64)
    /// A 64-bit floating-point number: Double and Float attributes, and Date attributes as
    /// seconds since 2001-01-01 00:00 UTC.
    case real(Double)
    /// UTF-8 text: String and URI attributes, and Decimal attributes as Strata binds them (their
    /// exact digits).
    case text(String)
    /// Raw bytes: Binary and Transformable attributes, UUID attributes as their 16 bytes, and
    /// binary property lists such as `Z_METADATA.Z_PLIST`.
    case blob(Data)

    /// Whether the value is SQL `NULL`.
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

    /// The text, when the value is text; `nil` for every other storage class (numbers and blobs
    /// are not converted).
    public var stringValue: String? {
        if case .text(let value) = self { return value }
        return nil
    }

    /// The bytes, when the value is a blob; `nil` for every other storage class (text is not
    /// converted).
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

extension DatabaseValue {
    /// Row keys as one JSON array argument, for `IN (SELECT value FROM json_each(?))`: any
    /// number of keys binds as a single parameter.
    static func keyList(_ keys: some Sequence<Int64>) -> DatabaseValue {
        // Written digit by digit: `String(key)` per key took most of the time of a list of a
        // save's 100,000 keys (see BENCHMARKS.md, case 19b).
        var bytes: [UInt8] = [UInt8(ascii: "[")]
        bytes.reserveCapacity(keys.underestimatedCount * 8 + 2)
        for key in keys {
            if bytes.count > 1 { bytes.append(UInt8(ascii: ",")) }
            if key < 0 { bytes.append(UInt8(ascii: "-")) }
            var magnitude = key.magnitude
            var (first, last) = (bytes.count, bytes.count - 1)
            repeat {
                bytes.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: magnitude % 10))
                magnitude /= 10
                last += 1
            } while magnitude > 0
            // The digits came last first.
            while first < last {
                bytes.swapAt(first, last)
                (first, last) = (first + 1, last - 1)
            }
        }
        bytes.append(UInt8(ascii: "]"))
        return .text(String(decoding: bytes, as: UTF8.self))
    }
}
