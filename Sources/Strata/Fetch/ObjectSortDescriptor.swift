import Foundation

/// One key of a fetch's order: Core Data's `NSSortDescriptor` (not named `SortDescriptor`,
/// which Foundation has too).
///
/// The key path leads along to-one relationships to an attribute. Values sort as SQLite sorts
/// them: nil first, then numbers (and dates, booleans), then strings by their UTF-8 bytes, or,
/// for a case-insensitive descriptor, as Foundation's `caseInsensitiveCompare` orders them.
///
/// ```swift
/// ObjectSortDescriptor("author.name", caseInsensitive: true)
/// try ObjectSortDescriptor(parsing: "rating:desc")
/// ```
public struct ObjectSortDescriptor: Sendable, Hashable, CustomStringConvertible {
    /// The key path sorted by: an attribute, or to-one relationships leading to one (`author.name`).
    public var keyPath: String
    /// Whether smaller values come first.
    public var ascending: Bool
    /// Compares strings without regard to case (`caseInsensitiveCompare:`).
    public var caseInsensitive: Bool

    /// Sorts by `keyPath`, ascending unless told otherwise; `caseInsensitive` compares strings
    /// as `caseInsensitiveCompare` does.
    public init(_ keyPath: String, ascending: Bool = true, caseInsensitive: Bool = false) {
        self.keyPath = keyPath
        self.ascending = ascending
        self.caseInsensitive = caseInsensitive
    }

    /// Reads the command line's form `KEY[:asc|:desc][:nocase]`, or `-KEY` for descending.
    ///
    /// - Throws: ``FetchRequestError`` for an empty key or an unknown modifier.
    public init(parsing text: String) throws(FetchRequestError) {
        var parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        var key = parts.removeFirst().trimmingCharacters(in: .whitespaces)
        var ascending = true
        if key.hasPrefix("-") {
            ascending = false
            key.removeFirst()
        }
        guard !key.isEmpty else { throw FetchRequestError("sort key '\(text)' names no key path") }
        var caseInsensitive = false
        for modifier in parts {
            switch modifier.trimmingCharacters(in: .whitespaces).lowercased() {
            case "asc": ascending = true
            case "desc": ascending = false
            case "nocase": caseInsensitive = true
            default: throw FetchRequestError("sort key '\(text)': unknown modifier '\(modifier)' (use asc, desc or nocase)")
            }
        }
        self.init(key, ascending: ascending, caseInsensitive: caseInsensitive)
    }

    /// The descriptor in the form ``init(parsing:)`` reads.
    public var description: String {
        keyPath + (ascending ? "" : ":desc") + (caseInsensitive ? ":nocase" : "")
    }

    var components: [String] { keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init) }
}

extension DatabaseValue {
    /// The order SQLite's `ORDER BY` gives two values, so that objects sorted in memory fall
    /// where SQL puts the rows: NULL first, then numbers by value, then text (by UTF-8 bytes,
    /// or through the `NSCollateNoCase` collation's comparison), then blobs by bytes.
    func sortOrder(_ other: DatabaseValue, caseInsensitive: Bool) -> ComparisonResult {
        switch (self, other) {
        case (.null, .null): return .orderedSame
        case (.integer(let a), .integer(let b)): return a < b ? .orderedAscending : a > b ? .orderedDescending : .orderedSame
        case (.text(let a), .text(let b)):
            if caseInsensitive { return CoreDataStringMatching.caseInsensitiveOrder(a, b) }
            return a.utf8.lexicographicallyPrecedes(b.utf8) ? .orderedAscending : a.utf8.elementsEqual(b.utf8) ? .orderedSame : .orderedDescending
        case (.blob(let a), .blob(let b)):
            return a.lexicographicallyPrecedes(b) ? .orderedAscending : a == b ? .orderedSame : .orderedDescending
        default:
            if let a = doubleValue, let b = other.doubleValue, storageClass == 1, other.storageClass == 1 {
                return a < b ? .orderedAscending : a > b ? .orderedDescending : .orderedSame
            }
            return storageClass < other.storageClass ? .orderedAscending : storageClass > other.storageClass ? .orderedDescending : .orderedSame
        }
    }

    /// SQLite's order of storage classes: NULL, numbers, text, blobs.
    private var storageClass: Int {
        switch self {
        case .null: 0
        case .integer, .real: 1
        case .text: 2
        case .blob: 3
        }
    }
}
