import Foundation

extension PersistentStore {
    /// `error` as ``StoreError/missingColumn(path:_:cause:)`` when SQLite failed for want of
    /// one of ``missingColumns``, so that the user reads which entity's attribute the store
    /// lacks rather than SQL; any other error as it is.
    func namingMissingColumn(_ error: any Error) -> any Error {
        let failure: DatabaseError
        switch error {
        case let error as DatabaseError: failure = error
        case StoreError.database(let error): failure = error
        default: return error
        }
        // SQLite's words: "no such column: t0.ZISBN" for a read or an update, "table ZBOOK has
        // no column named ZISBN" for an insert.
        let message = failure.message
        var table: String?
        let column: String
        if let range = message.range(of: "no such column: ") {
            column = message[range.upperBound...].split(separator: ".").last.map(String.init) ?? ""
        } else if message.hasPrefix("table "), let range = message.range(of: " has no column named ") {
            table = String(message[message.index(message.startIndex, offsetBy: 6)..<range.lowerBound])
            column = String(message[range.upperBound...])
        } else {
            return error
        }
        let same = { (a: String, b: String) in a.caseInsensitiveCompare(b.trimmingCharacters(in: .whitespaces)) == .orderedSame }
        guard let missing = missingColumns.first(where: { candidate in
            same(candidate.column, column) && (table.map { same(candidate.table, $0) } ?? true)
        }) else { return error }
        return StoreError.missingColumn(path: path, missing, cause: failure)
    }
}
