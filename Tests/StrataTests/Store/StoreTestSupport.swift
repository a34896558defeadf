import Foundation
@testable import Strata

/// The schema of a store as comparable text: each `CREATE` statement of the tables and indexes,
/// with white space folded, by name.
func normalizedSchema(of database: Database) throws -> [String: String] {
    var statements: [String: String] = [:]
    for row in try database.rows("SELECT name, sql FROM sqlite_master WHERE sql IS NOT NULL") {
        let sql = (row[1].stringValue ?? "")
            .replacingOccurrences(of: #"\s+"#, with: " ", options: .regularExpression)
            .replacingOccurrences(of: "( ", with: "(").replacingOccurrences(of: " )", with: ")")
        statements[row[0].stringValue ?? ""] = sql
    }
    return statements
}

/// SHA-256 of a file's bytes, to prove a test left it unchanged.
func fileDigest(_ path: String) throws -> Data {
    SHA256.hash(try Data(contentsOf: URL(fileURLWithPath: path)))
}
