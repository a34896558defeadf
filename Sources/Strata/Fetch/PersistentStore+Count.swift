import Foundation

/// The number of objects a request selects, counted in SQL, sub-entities' objects included
/// unless the request says otherwise; the store's own ``rowCountsExcludingSubentities()`` counts
/// the rows of each entity alone, without a request.
extension PersistentStore {
    /// The number of stored objects of `entityName` (its sub-entities' too, unless
    /// `includesSubentities` is false) that satisfy `predicate`, counted in SQL.
    ///
    /// It reads the store as it is on disk: a context's unsaved changes are not counted (a
    /// context's ``ObjectContext/count(for:)`` counts them).
    ///
    /// ```swift
    /// let rated = try store.count(of: "Book", matching: ObjectPredicate(format: "rating >= 4"))
    /// ```
    ///
    /// - Throws: ``StoreError/unknownEntity(path:name:known:)`` for an entity the model lacks,
    ///   ``PredicateKeyError`` for a key path the entity does not have (with the nearest names),
    ///   ``PredicateCompileError`` for a predicate the store cannot evaluate, and
    ///   ``DatabaseError`` when SQLite fails.
    public func count(of entityName: String, matching predicate: ObjectPredicate? = nil, includesSubentities: Bool = true) throws -> Int {
        var request = FetchRequest(entityName: entityName, predicate: predicate)
        request.includesSubentities = includesSubentities
        return try count(for: request)
    }

    /// The number of stored objects `request` selects, within its offset and limit, counted
    /// in SQL as the store is on disk; the errors are those of ``count(of:matching:includesSubentities:)``
    /// and ``FetchRequestError``.
    public func count(for request: FetchRequest) throws -> Int {
        // Through the connection's lock, which also names a column the store lacks.
        try withConnection { request.windowed(count: try countRows(FetchPlan(request, store: self))) }
    }
}
