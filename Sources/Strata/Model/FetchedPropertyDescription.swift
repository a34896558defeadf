/// A property whose value is the result of a fetch request, evaluated on access.
public struct FetchedPropertyDescription: Sendable, Equatable {
    public var name: String
    public var isOptional: Bool = true
    /// The request whose results are the property's value.
    public var fetchRequest: FetchRequestTemplate
    public var userInfo: [String: String] = [:]
    public var xcodeSettings: [String: String] = [:]

    public init(name: String, fetchRequest: FetchRequestTemplate) {
        self.name = name
        self.fetchRequest = fetchRequest
    }
}
