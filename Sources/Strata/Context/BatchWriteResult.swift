/// What a ``BatchUpdateRequest`` or a ``BatchInsertRequest`` changed.
public struct BatchWriteResult: Sendable {
    /// How many objects were changed or inserted.
    public var count: Int
    /// Their IDs, when the request asked for them; else empty.
    public var objectIDs: [ObjectID]
}

/// A batch request that cannot run: an unknown entity or attribute, a value of the wrong
/// type, a required attribute without one. Nothing was written.
public struct BatchRequestError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, naming the entity, attribute or value at fault.
    public var message: String

    /// An error saying `message`.
    init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
