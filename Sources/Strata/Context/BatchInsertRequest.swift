/// Inserts objects of one entity in SQL, from their attribute values, without making objects:
/// Core Data's `NSBatchInsertRequest`, run with ``ObjectContext/execute(_:)-(BatchInsertRequest)``.
///
/// Missing attributes take the model's default values; each value must fit its attribute's
/// type, and required attributes must have one. Relationships are not set (as in Core Data),
/// and the model's other rules are not checked. Keys come from `Z_PRIMARYKEY` as a save's do.
///
/// ```swift
/// let request = BatchInsertRequest(entityName: "Tag", objects: [["name": .string("fantasy")], ["name": .string("classic")]])
/// try context.execute(request)
/// ```
public struct BatchInsertRequest: Sendable {
    /// The entity of the objects to insert (not an abstract one).
    public var entityName: String
    /// One dictionary of attribute values per object, by attribute name.
    public var objects: [[String: AttributeValue?]]
    /// Whether the result lists the new objects' IDs besides their number.
    public var returnsObjectIDs = false

    /// Inserts one object of `entityName` per dictionary in `objects`.
    public init(entityName: String, objects: [[String: AttributeValue?]]) {
        self.entityName = entityName
        self.objects = objects
    }
}
