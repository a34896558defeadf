/// Sets attributes of the objects a fetch request selects in SQL, without reading them into a
/// context: Core Data's `NSBatchUpdateRequest`, run with ``ObjectContext/execute(_:)-(BatchUpdateRequest)``.
///
/// Each value must fit its attribute's type, and a required attribute cannot be cleared; the
/// model's other rules are not checked, as in Core Data. Every changed row's version moves on,
/// so a context holding unsaved changes to one of them gets a conflict when it saves.
///
/// ```swift
/// var request = BatchUpdateRequest(entityName: "Book", predicate: try ObjectPredicate(format: "rating < 1"))
/// request.propertiesToUpdate = ["rating": .double(1)]
/// let changed = try context.execute(request).count
/// ```
public struct BatchUpdateRequest: Sendable {
    /// The objects to change: its entity (sub-entities included unless it says otherwise),
    /// predicate, and sort with offset and limit. Unsaved changes do not count.
    public var fetchRequest: FetchRequest
    /// The new values by attribute name; `nil` clears an optional attribute.
    public var propertiesToUpdate: [String: AttributeValue?]
    /// Whether the result lists the changed objects' IDs besides their number.
    public var returnsObjectIDs = false

    /// Sets `propertiesToUpdate` on the objects `fetchRequest` selects in the store.
    public init(fetchRequest: FetchRequest, propertiesToUpdate: [String: AttributeValue?] = [:]) {
        self.fetchRequest = fetchRequest
        self.propertiesToUpdate = propertiesToUpdate
    }

    /// Changes the objects of `entityName` (and its sub-entities) that match `predicate`, or all.
    public init(entityName: String, predicate: ObjectPredicate? = nil, propertiesToUpdate: [String: AttributeValue?] = [:]) {
        self.init(fetchRequest: FetchRequest(entityName: entityName, predicate: predicate), propertiesToUpdate: propertiesToUpdate)
    }
}
