import CSQLite

/// Facts about the SQLite library Strata is linked with.
public enum SQLiteLibrary {
    /// The SQLite version, such as `3.40.1`.
    public static var version: String { String(cString: sqlite3_libversion()) }
}
