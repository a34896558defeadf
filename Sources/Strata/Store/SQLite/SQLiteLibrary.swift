import CSQLite

/// Facts about the SQLite library Strata is linked with.
package enum SQLiteLibrary {
    /// The SQLite version, such as `3.40.1`.
    package static var version: String { String(cString: sqlite3_libversion()) }
}
