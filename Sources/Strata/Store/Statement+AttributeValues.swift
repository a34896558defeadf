import CSQLite
import Foundation

extension Statement {
    /// The value of column `index` as an attribute of `type` holds it: what
    /// ``AttributeValue/init(_:type:)`` makes of ``value(at:)``, read without the database
    /// value in between where the column's storage class is the type's own (a fetch reads
    /// every attribute of every row this way).
    func attributeValue(at index: Int32, type: AttributeType) -> AttributeValue? {
        let cell = column(index)
        let storage = sqlite3_value_type(cell)
        switch type {
        case .integer16, .integer32, .integer64:
            if storage == SQLITE_INTEGER { return .integer(sqlite3_value_int64(cell)) }
        case .double, .float:
            if storage == SQLITE_FLOAT { return .double(sqlite3_value_double(cell)) }
        case .string:
            if storage == SQLITE_TEXT { return .string(String(sqliteText: cell)) }
        case .boolean:
            if storage == SQLITE_INTEGER { return .boolean(sqlite3_value_int64(cell) != 0) }
        case .date:
            if storage == SQLITE_FLOAT { return .date(Date(timeIntervalSinceReferenceDate: sqlite3_value_double(cell))) }
        default:
            break
        }
        return storage == SQLITE_NULL ? nil : AttributeValue(DatabaseValue(sqliteValue: cell), type: type)
    }
}
