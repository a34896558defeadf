import Foundation

/// Which of the matching objects ``ObjectContext/find(_:_:where:sortedBy:)`` returns.
public enum FindScope: Sendable, Equatable {
    /// All of them.
    case all
    /// The first in order, if any.
    case first
    /// The last in order, if any.
    case last
    /// The first `n`, in order.
    case firsts(Int)
    /// The last `n`, in order.
    case lasts(Int)
}

/// The short forms Core Data wrappers offer over ``FetchRequest`` (SugarRecord's `find`,
/// CoreDataMonk's `fetchOrCreate`, `query` and `queryValue`, KarthVader's `objects`), with
/// the entity's default order from its userInfo.
///
/// An entity whose userInfo has `strata.sortBy` (DKDBManager's `sortingAttributeName`) is
/// sorted by it when a call gives no order: one key path or a comma-separated list, each in
/// the form of ``ObjectSortDescriptor/init(parsing:)`` (`"name"`, `"order:desc, name"`).
extension ObjectContext {
    // MARK: - Finding objects

    /// The objects of `entityName` that match `predicate`, in `sortedBy` order (else the
    /// entity's default order, else the store's), narrowed by `scope`. Pending changes count.
    ///
    /// ```swift
    /// let newest = try context.find(.firsts(5), "Book", where: ObjectPredicate(format: "rating > 3"), sortedBy: [ObjectSortDescriptor("published", ascending: false)])
    /// let last = try context.find(.last, "Book").first
    /// ```
    ///
    /// - Throws: as ``fetch(_:)`` does: an unknown entity or key path (with the nearest names), a
    ///   predicate the store cannot run, or a failure of the store; ``FetchRequestError`` for an
    ///   entity's `strata.sortBy` that does not parse.
    public func find(_ scope: FindScope = .all, _ entityName: String, where predicate: ObjectPredicate? = nil, sortedBy: [ObjectSortDescriptor] = []) throws -> [ManagedObject] {
        var request = FetchRequest(entityName: entityName, predicate: predicate, sortDescriptors: try order(sortedBy, of: entityName))
        switch scope {
        case .all:
            return try fetch(request)
        case .first, .firsts:
            request.fetchLimit = max(scope.limit, 0)
            return request.fetchLimit == 0 ? [] : try fetch(request)
        case .last, .lasts:
            // The tail of the same order, ties included, rather than the head of a reversed one.
            let wanted = scope.limit
            guard wanted > 0 else { return [] }
            request.fetchOffset = max(0, try count(for: request) - wanted)
            request.fetchLimit = wanted
            return try fetch(request)
        }
    }

    /// The objects of `entityName` whose `attribute` equals `value` (SugarRecord's
    /// `filtered(with:equalTo:)`), narrowed by `scope`.
    ///
    /// ```swift
    /// let knight = try context.find(.first, "Person", by: "name", equalTo: "Knight").first
    /// ```
    public func find(
        _ scope: FindScope = .all, _ entityName: String, by attribute: String, equalTo value: some PredicateValueConvertible, sortedBy: [ObjectSortDescriptor] = []
    ) throws -> [ManagedObject] {
        try find(scope, entityName, where: .comparison(.init(.keyPath([attribute]), .equal, .value(value.predicateValue))), sortedBy: sortedBy)
    }

    /// ``find(_:_:where:sortedBy:)`` for a typed subclass registered with ``register(_:for:)``.
    ///
    /// ```swift
    /// let books: [Book] = try context.find(.all, Book.self, where: ObjectPredicate(format: "rating >= 4"))
    /// ```
    ///
    /// - Throws: as ``find(_:_:where:sortedBy:)`` does.
    public func find<Object: ManagedObject>(_ scope: FindScope = .all, _ type: Object.Type, where predicate: ObjectPredicate? = nil, sortedBy: [ObjectSortDescriptor] = []) throws -> [Object] {
        try find(scope, type.entityName, where: predicate, sortedBy: sortedBy).compactMap { $0 as? Object }
    }

    /// KarthVader's `objects(_:filter:sort:range:)`: the objects in positions `range` of the
    /// ordered results (all of them when `range` is `nil`).
    ///
    /// ```swift
    /// let secondPage = try context.objects("Book", filter: nil, sort: [ObjectSortDescriptor("title")], range: 20..<40)
    /// ```
    ///
    /// - Throws: ``FetchRequestError`` for a range that starts below 0; as ``fetch(_:)`` does: an
    ///   unknown entity or key path (with the nearest names), a predicate the store cannot run, or a
    ///   failure of the store.
    public func objects(_ entityName: String, filter: ObjectPredicate? = nil, sort: [ObjectSortDescriptor] = [], range: Range<Int>? = nil) throws -> [ManagedObject] {
        var request = FetchRequest(entityName: entityName, predicate: filter, sortDescriptors: try order(sort, of: entityName))
        if let range {
            guard range.lowerBound >= 0 else { throw FetchRequestError("the range \(range) starts before the first object") }
            guard !range.isEmpty else { return [] }
            request.fetchOffset = range.lowerBound
            request.fetchLimit = range.count
        }
        return try fetch(request)
    }

    // MARK: - Counting

    /// How many objects of `entityName` match `predicate`, pending changes included.
    ///
    /// ```swift
    /// let unrated = try context.count("Book", where: ObjectPredicate(format: "rating == nil"))
    /// ```
    ///
    /// - Throws: as ``count(for:)`` does: an unknown entity or key path, or a failure of the store.
    public func count(_ entityName: String, where predicate: ObjectPredicate? = nil) throws -> Int {
        try count(for: FetchRequest(entityName: entityName, predicate: predicate))
    }

    /// Whether any object of `entityName` matches `predicate`, pending changes included; the
    /// store stops at the first match.
    ///
    /// - Throws: as ``count(for:)`` does: an unknown entity or key path, or a failure of the store.
    public func any(_ entityName: String, where predicate: ObjectPredicate? = nil) throws -> Bool {
        var request = FetchRequest(entityName: entityName, predicate: predicate)
        request.fetchLimit = 1
        return try !fetchObjectIDs(request).isEmpty
    }

    // MARK: - Fetch or create

    /// The first object of `entityName` whose attributes equal `values`, or a new one inserted
    /// with them (CoreDataMonk's `fetchOrCreate`). Pending changes count, so two calls with the
    /// same values before a save return the same object.
    ///
    /// ```swift
    /// let tag = try context.fetchOrCreate("Tag", matching: ["name": "fantasy"])
    /// ```
    ///
    /// - Throws: as ``fetch(_:)`` does: an unknown entity or key path (with the nearest names), a
    ///   predicate the store cannot run, or a failure of the store; what ``insert(_:)`` and
    ///   ``ManagedObject/setValue(_:forKey:)`` throw for an abstract entity or a value of the wrong
    ///   type.
    public func fetchOrCreate(_ entityName: String, matching values: [String: any PredicateValueConvertible & Sendable]) throws -> ManagedObject {
        let terms = values.sorted { $0.key < $1.key }.map { key, value in
            ObjectPredicate.comparison(.init(.keyPath([key]), .equal, .value(value.predicateValue)))
        }
        var request = FetchRequest(entityName: entityName, predicate: terms.isEmpty ? nil : .and(terms))
        request.fetchLimit = 1
        if let existing = try fetch(request).first { return existing }
        let object = try insert(entityName)
        for (key, value) in values.sorted(by: { $0.key < $1.key }) { try object.setValue(value, forKey: key) }
        return object
    }

    // MARK: - Querying values

    /// CoreDataMonk's `query`: a dictionary fetch of `select` (key paths and aggregates, as
    /// ``FetchedProperty/list(_:)`` reads them), grouped and filtered, read from the store as
    /// saved; at most `limit` rows when it is above 0.
    ///
    /// ```swift
    /// let rows = try context.query("Person", select: "location, avg(age) as meanAge", groupBy: ["location"], having: ObjectPredicate(format: "meanAge > 30"))
    /// ```
    ///
    /// - Throws: ``FetchRequestError`` for a `select` list that does not parse, and what
    ///   ``fetchDictionaries(_:)`` throws for a request the store cannot answer.
    public func query(
        _ entityName: String, select: String, where predicate: ObjectPredicate? = nil, groupBy: [String] = [], having: ObjectPredicate? = nil,
        sortedBy: [ObjectSortDescriptor] = [], limit: Int = 0
    ) throws -> [FetchedRow] {
        var request = FetchRequest(entityName: entityName, predicate: predicate, sortDescriptors: sortedBy)
        request.fetchLimit = max(0, limit)
        request.resultType = .dictionary
        request.propertiesToFetch = try FetchedProperty.list(select)
        request.propertiesToGroupBy = groupBy
        request.havingPredicate = having
        return try fetchDictionaries(request)
    }

    /// CoreDataMonk's `queryValue`: the one value of `select` over the matching objects, such
    /// as an aggregate; `nil` when there is no object or the value is nil.
    ///
    /// ```swift
    /// let oldest = try context.queryValue("Person", select: .aggregate(.max, of: "age"))
    /// ```
    ///
    /// - Throws: as ``query(_:select:where:groupBy:having:sortedBy:limit:)`` does.
    public func queryValue(_ entityName: String, select property: FetchedProperty, where predicate: ObjectPredicate? = nil) throws -> FetchedValue? {
        var request = FetchRequest(entityName: entityName, predicate: predicate)
        request.resultType = .dictionary
        request.propertiesToFetch = [property]
        request.fetchLimit = 1
        return try fetchDictionaries(request).first?[property.name]
    }

    // MARK: - Default order

    /// `sortDescriptors`, or the entity's `strata.sortBy` order when there are none.
    func order(_ sortDescriptors: [ObjectSortDescriptor], of entityName: String) throws -> [ObjectSortDescriptor] {
        guard sortDescriptors.isEmpty, let text = model.entity(named: entityName)?.userInfo["strata.sortBy"] else { return sortDescriptors }
        do {
            return try text.split(separator: ",").map { part throws(FetchRequestError) in try ObjectSortDescriptor(parsing: String(part)) }
        } catch {
            throw FetchRequestError("entity \(entityName), userInfo strata.sortBy '\(text)': \(error.message)")
        }
    }
}

extension FindScope {
    /// How many objects the scope keeps; 0 for all.
    fileprivate var limit: Int {
        switch self {
        case .all: 0
        case .first, .last: 1
        case .firsts(let n), .lasts(let n): n
        }
    }
}
