/// Deletes the objects a fetch request selects in SQL, without reading them into a context:
/// Core Data's `NSBatchDeleteRequest`, run with ``ObjectContext/execute(_:reason:activity:)``.
///
/// Unlike Core Data's, it keeps the model's delete rules, as set operations on the store:
/// Cascade deletes the related objects to any depth, Nullify clears the inverses of those that
/// stay, Deny refuses the whole deletion while an object that stays is held, and a Nullify
/// that would leave a required to-one empty refuses it too. Other validation rules are not
/// checked, as in Core Data.
///
/// ```swift
/// let request = BatchDeleteRequest(entityName: "Book", predicate: try ObjectPredicate(format: "rating < 1"))
/// let result = try context.execute(request)      // one transaction; the book's pages go by cascade
/// print(result.count)                             // books and pages deleted
/// ```
public struct BatchDeleteRequest: Sendable {
    /// What the result lists besides the counts.
    public enum ResultType: Sendable {
        /// Counts only.
        case count
        /// The IDs of the deleted objects too.
        case objectIDs
    }

    /// The objects to delete: its entity (sub-entities included unless it says otherwise),
    /// predicate, and sort with offset and limit. Unsaved changes do not count: the store's rows do.
    public var fetchRequest: FetchRequest
    /// Whether the result lists the deleted objects' IDs besides the counts.
    public var resultType: ResultType = .count

    /// Deletes the objects `fetchRequest` selects in the store.
    public init(fetchRequest: FetchRequest) {
        self.fetchRequest = fetchRequest
    }

    /// Deletes the objects of `entityName` (and its sub-entities) that match `predicate`, or all.
    public init(entityName: String, predicate: ObjectPredicate? = nil) {
        self.init(fetchRequest: FetchRequest(entityName: entityName, predicate: predicate))
    }
}

/// What a ``BatchDeleteRequest`` deleted.
public struct BatchDeleteResult: Sendable {
    /// The objects the request selected, by entity.
    public var matchedCounts: [String: Int]
    /// The objects Cascade rules deleted besides, by entity.
    public var cascadedCounts: [String: Int]
    /// Every deleted object, with ``BatchDeleteRequest/ResultType/objectIDs``; else empty.
    public var deletedObjectIDs: [ObjectID]

    /// How many objects were deleted in all.
    public var count: Int {
        matchedCounts.values.reduce(0, +) + cascadedCounts.values.reduce(0, +)
    }
}
