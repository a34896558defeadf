/// A fetch request stored in a model under a name, as Xcode's model editor makes them.
///
/// The predicate is kept as its format string; `$VARIABLE`s in it are filled in when the
/// template is used. Options that are `nil` were not written in the model and take Core Data's
/// defaults.
public struct FetchRequestTemplate: Sendable, Equatable {
    /// What a fetch returns, with Core Data's `NSFetchRequestResultType` numbers.
    public enum ResultType: Int, Sendable, CaseIterable {
        /// Managed objects (`NSManagedObjectResultType`); the default.
        case managedObject = 0
        /// Object IDs only (`NSManagedObjectIDResultType`).
        case managedObjectID = 1
        /// Dictionaries of property values (`NSDictionaryResultType`).
        case dictionary = 2
        /// The number of matching objects (`NSCountResultType`).
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

    /// The name by which code asks the model for the template.
    public var name: String
    /// The name of the entity whose objects the request fetches; validation checks that the
    /// model has it.
    public var entityName: String
    /// The predicate's format string (`predicateString`), `$VARIABLE`s still unfilled; `nil`
    /// matches every object.
    public var predicate: String?
    /// What the fetch returns; Xcode writes it as its number (`resultType`) and leaves it out for
    /// managed objects, the default.
    public var resultType: ResultType = .managedObject
    /// The most objects the fetch returns; `nil` or 0 for no limit.
    public var fetchLimit: Int?
    /// How many matching objects the fetch skips before the first it returns; `nil` for none.
    public var fetchOffset: Int?
    /// How many objects the fetch loads at a time; `nil` or 0 loads them all at once.
    public var fetchBatchSize: Int?
    /// Whether a dictionary fetch drops duplicate results (`returnDistinctResults`); Core Data's
    /// default is `false`.
    public var returnsDistinctResults: Bool?
    /// Whether objects of sub-entities match too (`includeSubentities`); Core Data's default is
    /// `true`.
    public var includesSubentities: Bool?
    /// Whether the fetch loads property values with the objects (`includePropertyValues`);
    /// Core Data's default is `true`.
    public var includesPropertyValues: Bool?
    /// Whether the context's unsaved inserts, updates and deletes affect the results; Core Data's
    /// default is `true`.
    public var includesPendingChanges: Bool?
    /// Whether fetched objects come back as faults whose values load on first access
    /// (`returnObjectsAsFaults`); Core Data's default is `true`.
    public var returnsObjectsAsFaults: Bool?
    /// Other settings Xcode wrote, kept as written.
    public var xcodeSettings: [String: String] = [:]

    /// A template named `name` fetching `entityName` objects that match `predicate`, every option
    /// at Core Data's default.
    public init(name: String, entityName: String, predicate: String? = nil) {
        self.name = name
        self.entityName = entityName
        self.predicate = predicate
    }
}
