/// A fetch request stored in a model under a name, as Xcode's model editor makes them.
///
/// The predicate is kept as its format string; `$VARIABLE`s in it are filled in when the
/// template is used. Options that are `nil` were not written in the model and take Core Data's
/// defaults.
public struct FetchRequestTemplate: Sendable, Equatable {
    /// What a fetch returns, with Core Data's `NSFetchRequestResultType` numbers.
    public enum ResultType: Int, Sendable, CaseIterable {
        case managedObject = 0
        case managedObjectID = 1
        case dictionary = 2
        case count = 4

        /// The name in Strata's JSON model format.
        public var jsonName: String {
            switch self {
            case .managedObject: "object"
            case .managedObjectID: "objectID"
            case .dictionary: "dictionary"
            case .count: "count"
            }
        }
    }

    public var name: String
    public var entityName: String
    public var predicate: String?
    public var resultType: ResultType = .managedObject
    public var fetchLimit: Int?
    public var fetchOffset: Int?
    public var fetchBatchSize: Int?
    public var returnsDistinctResults: Bool?
    public var includesSubentities: Bool?
    public var includesPropertyValues: Bool?
    public var includesPendingChanges: Bool?
    public var returnsObjectsAsFaults: Bool?
    /// Other settings Xcode wrote, kept as written.
    public var xcodeSettings: [String: String] = [:]

    public init(name: String, entityName: String, predicate: String? = nil) {
        self.name = name
        self.entityName = entityName
        self.predicate = predicate
    }
}
