/// One result of a dictionary fetch: the fetched values by name, in the order the request
/// lists them. Nil values are absent from ``values`` but keep their place in ``names``.
///
/// ```swift
/// for row in try context.fetchDictionaries(request) {
///     print(row["city"], row["avg_age"])
/// }
/// ```
public struct FetchedRow: Sendable, Hashable {
    /// The names of the fetched properties, in request order.
    public let names: [String]
    /// The non-nil values, by name.
    public let values: [String: FetchedValue]

    /// A row of `values` named in the order of `names` (a name without a value stands for nil).
    public init(names: [String], values: [String: FetchedValue]) {
        self.names = names
        self.values = values
    }

    /// The value named `name`, or `nil` when it is nil or not fetched.
    public subscript(name: String) -> FetchedValue? { values[name] }
}

/// A value of a dictionary fetch: an attribute's value or an aggregate, or the object a to-one
/// relationship leads to.
public enum FetchedValue: Sendable, Hashable {
    case attribute(AttributeValue)
    case object(ObjectID)

    /// The attribute value, or `nil` for an object.
    public var attributeValue: AttributeValue? {
        if case .attribute(let value) = self { return value }
        return nil
    }
}
