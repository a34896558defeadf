/// A property whose value is the result of a fetch request, evaluated on access.
public struct FetchedPropertyDescription: Sendable, Equatable {
    /// The fetched property's name, unique among the entity's properties including inherited ones.
    public var name: String
    /// Whether Xcode marks the property optional (`optional`); defaults to `true`.
    public var isOptional: Bool = true
    /// The request whose results are the property's value.
    public var fetchRequest: FetchRequestTemplate
    /// Free-form key–value pairs from the model editor's User Info.
    public var userInfo: [String: String] = [:]
    /// Xcode settings that Strata keeps as written but gives no meaning.
    public var xcodeSettings: [String: String] = [:]

    /// A fetched property named `name` whose value is the result of `fetchRequest`.
    public init(name: String, fetchRequest: FetchRequestTemplate) {
        self.name = name
        self.fetchRequest = fetchRequest
    }
}
