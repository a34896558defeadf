/// What attributes and relationships have in common, as Core Data's `NSPropertyDescription`:
/// a name, whether a value is required, whether it is stored, and the settings that travel
/// with it through model versions.
public protocol PropertyDescription: Sendable, Equatable {
    /// The property's name, unique among its entity's properties including inherited ones.
    var name: String { get set }
    /// Whether a saved object may leave the property unset.
    var isOptional: Bool { get set }
    /// Transient properties are kept in memory only; the store has no column for them.
    var isTransient: Bool { get set }
    /// Free-form key–value pairs from the model editor's User Info. Not part of the version hash.
    var userInfo: [String: String] { get set }
    /// The renaming identifier: the name this property had in an earlier model version.
    var renamingIdentifier: String? { get set }
    /// Text mixed into the property's version hash (`versionHashModifier`), so that a store sees
    /// a new model version even when nothing else in the hash changed.
    var versionHashModifier: String? { get set }
    /// Xcode settings that Strata keeps as written but gives no meaning.
    var xcodeSettings: [String: String] { get set }
}

extension AttributeDescription: PropertyDescription {}
extension RelationshipDescription: PropertyDescription {}

/// An enumeration of model settings with a name in Strata's JSON model format; where Xcode
/// spells a case with spaces or capitals (`Integer 16`, `No Action`), that spelling folds to
/// the JSON name.
public protocol ModelSettingName: CaseIterable, Sendable {
    /// The name in Strata's JSON model format.
    var jsonName: String { get }
}

extension ModelSettingName {
    /// The case whose JSON name is `name`, ignoring case and spaces.
    public init?(named name: String) {
        let folded = name.lowercased().replacingOccurrences(of: " ", with: "")
        guard let match = Self.allCases.first(where: { $0.jsonName.lowercased() == folded }) else { return nil }
        self = match
    }

    /// Every case's JSON name, for error messages listing what is allowed.
    static var jsonNames: String { allCases.map(\.jsonName).joined(separator: ", ") }
}

extension AttributeType: ModelSettingName {}
extension DeleteRule: ModelSettingName {}
extension FetchRequestTemplate.ResultType: ModelSettingName {}
