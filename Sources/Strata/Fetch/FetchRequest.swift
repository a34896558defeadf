/// What to fetch from a context or a store: Core Data's `NSFetchRequest`.
///
/// A request names an entity and, optionally, a predicate, an order and a window of the
/// results; its ``resultType`` says whether a fetch returns objects, object IDs, dictionaries
/// of values, or only their count.
///
/// ```swift
/// var request = FetchRequest(entityName: "Book", predicate: try ObjectPredicate(format: "rating >= 4"))
/// request.sortDescriptors = [ObjectSortDescriptor("title", caseInsensitive: true)]
/// request.fetchLimit = 10
/// let books = try context.fetch(request)
/// ```
///
/// For dictionaries, ``propertiesToFetch`` picks the values and may hold aggregates, which
/// ``propertiesToGroupBy`` groups and ``havingPredicate`` filters:
///
/// ```swift
/// var byAuthor = FetchRequest(entityName: "Book")
/// byAuthor.resultType = .dictionary
/// byAuthor.propertiesToFetch = try FetchedProperty.list("author.name, avg(rating) as mean, count(*)")
/// byAuthor.propertiesToGroupBy = ["author.name"]
/// byAuthor.havingPredicate = try ObjectPredicate(format: "count > 1")
/// ```
public struct FetchRequest: Sendable, Equatable {
    /// What a fetch returns.
    public enum ResultType: String, Sendable, CaseIterable {
        /// The objects, registered in the context.
        case managedObject
        /// Only their IDs.
        case managedObjectID
        /// One dictionary of values per object, or per group.
        case dictionary
        /// Only the number of results.
        case count
    }

    /// The entity to fetch; its sub-entities' objects too, unless ``includesSubentities`` is false.
    public var entityName: String
    /// The condition the results satisfy; `nil` fetches all objects of the entity.
    public var predicate: ObjectPredicate?
    /// The order of the results, first descriptor first. Without one, objects come in the
    /// order the store keeps them, saved objects before inserted ones.
    public var sortDescriptors: [ObjectSortDescriptor]
    /// At most this many results; 0 means no limit.
    public var fetchLimit = 0
    /// Skips this many results first.
    public var fetchOffset = 0
    /// When above 0, fetched objects load their values in batches of this size, as they are
    /// first used, instead of all at once; they come as faults whatever
    /// ``returnsObjectsAsFaults`` says.
    public var fetchBatchSize = 0
    /// Whether objects of the entity's sub-entities match too (they do by default, as in Core Data).
    public var includesSubentities = true
    /// Whether the context's unsaved inserts, changes and deletes (and its parents') count:
    /// objects that match only after a change come back, deleted ones do not. Dictionary
    /// results always read the saved state.
    public var includesPendingChanges = true
    /// Whether the fetch reads the objects' values; without them, objects come back as faults
    /// that read their row on first use.
    public var includesPropertyValues = true
    /// Whether fetched objects come back as faults. Their values are kept from the fetch, so
    /// that the first use costs no query.
    public var returnsObjectsAsFaults = true
    /// Relationship key paths whose destination objects are loaded along with the results,
    /// each level in one query.
    public var relationshipKeyPathsForPrefetching: [String] = []
    /// For dictionary results: the values to read; `nil` reads every attribute.
    public var propertiesToFetch: [FetchedProperty]?
    /// For dictionary results: the key paths whose values form the groups that aggregates sum up.
    public var propertiesToGroupBy: [String] = []
    /// For grouped dictionary results: the groups to keep, compared by the names of the fetched
    /// properties.
    public var havingPredicate: ObjectPredicate?
    /// For dictionary results: leaves out repeated rows of values.
    public var returnsDistinctResults = false
    /// What the fetch returns: objects (the default), their IDs, a count, or dictionaries of values.
    public var resultType = ResultType.managedObject

    /// A request for objects of `entityName`.
    public init(entityName: String, predicate: ObjectPredicate? = nil, sortDescriptors: [ObjectSortDescriptor] = []) {
        self.entityName = entityName
        self.predicate = predicate
        self.sortDescriptors = sortDescriptors
    }
}

extension FetchRequest {
    /// How many of `total` matching objects the request returns after its offset and limit.
    func windowed(count total: Int) -> Int {
        let afterOffset = max(0, total - fetchOffset)
        return fetchLimit > 0 ? min(afterOffset, fetchLimit) : afterOffset
    }
}

/// Why a fetch request cannot run, naming the part of the request at fault.
public struct FetchRequestError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong with the request, naming the key path, entity or property at fault.
    public var message: String

    /// An error saying `message`.
    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
