import CSQLite
import Foundation

// Comparing the current rows of two statements column by column, on SQLite's own buffers: a
// comparison of two stores reads millions of values of which few differ, and making a Swift
// value of each would cost more than SQLite's stepping.

extension Statement {
    /// Whether column `index` of this statement's current row holds the same value, of the same
    /// storage class, as column `otherIndex` of `other`'s: integers and reals by value (a real
    /// by its bits, so NaN equals itself), texts and blobs byte for byte.
    func columnHoldsSameValue(_ index: Int32, as other: Statement, _ otherIndex: Int32) -> Bool {
        let type = sqlite3_column_type(handle, index)
        guard type == sqlite3_column_type(other.handle, otherIndex) else { return false }
        switch type {
        case SQLITE_NULL: return true
        case SQLITE_INTEGER: return sqlite3_column_int64(handle, index) == sqlite3_column_int64(other.handle, otherIndex)
        case SQLITE_FLOAT:
            return sqlite3_column_double(handle, index).bitPattern == sqlite3_column_double(other.handle, otherIndex).bitPattern
        default: return compareBytes(index, type: type, with: other, otherIndex) == 0
        }
    }

    /// How column `index` of this statement's current row sorts against column `otherIndex`
    /// of `other`'s, as SQLite's `ORDER BY` sorts with the BINARY collation: NULL first, then
    /// numbers by value, then texts and then blobs, each by their bytes. Negative, zero or
    /// positive, as `memcmp`.
    func compareColumn(_ index: Int32, with other: Statement, _ otherIndex: Int32) -> Int {
        let left = sqlite3_column_type(handle, index), right = sqlite3_column_type(other.handle, otherIndex)
        let leftRank = Self.sortRank(of: left), rightRank = Self.sortRank(of: right)
        guard leftRank == rightRank else { return leftRank < rightRank ? -1 : 1 }
        switch left {
        case SQLITE_NULL: return 0
        case SQLITE_INTEGER where right == SQLITE_INTEGER:
            let a = sqlite3_column_int64(handle, index), b = sqlite3_column_int64(other.handle, otherIndex)
            return a == b ? 0 : (a < b ? -1 : 1)
        case SQLITE_INTEGER, SQLITE_FLOAT:
            let a = sqlite3_column_double(handle, index), b = sqlite3_column_double(other.handle, otherIndex)
            return a == b ? 0 : (a < b ? -1 : 1)
        default: return compareBytes(index, type: left, with: other, otherIndex)
        }
    }

    /// NULL, numbers, texts, blobs: the order of SQLite's storage classes in `ORDER BY`.
    private static func sortRank(of type: Int32) -> Int {
        switch type {
        case SQLITE_NULL: 0
        case SQLITE_INTEGER, SQLITE_FLOAT: 1
        case SQLITE_TEXT: 2
        default: 3
        }
    }

    /// The two columns' bytes compared as `memcmp` compares them, the shorter first when one
    /// begins the other: how the BINARY collation orders texts, and SQLite blobs.
    private func compareBytes(_ index: Int32, type: Int32, with other: Statement, _ otherIndex: Int32) -> Int {
        let left: UnsafeRawPointer?, right: UnsafeRawPointer?
        if type == SQLITE_TEXT {
            left = sqlite3_column_text(handle, index).map(UnsafeRawPointer.init)
            right = sqlite3_column_text(other.handle, otherIndex).map(UnsafeRawPointer.init)
        } else {
            left = sqlite3_column_blob(handle, index)
            right = sqlite3_column_blob(other.handle, otherIndex)
        }
        // The byte counts are read after the pointers, as SQLite's documentation asks.
        let leftCount = Int(sqlite3_column_bytes(handle, index)), rightCount = Int(sqlite3_column_bytes(other.handle, otherIndex))
        let common = min(leftCount, rightCount)
        if common > 0, let left, let right {
            let order = memcmp(left, right, common)
            if order != 0 { return Int(order) }
        }
        return leftCount == rightCount ? 0 : (leftCount < rightCount ? -1 : 1)
    }
}
