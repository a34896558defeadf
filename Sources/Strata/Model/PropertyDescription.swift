/// What attributes and relationships have in common, as Core Data's `NSPropertyDescription`:
/// a name, whether a value is required, whether it is stored, and the settings that travel
/// with it through model versions.
public protocol PropertyDescription: Sendable, Equatable {
    var name: String { get set }
    /// Whether a saved object may leave the property unset.
    var isOptional: Bool { get set }
    /// Transient properties are kept in memory only; the store has no column for them.
    var isTransient: Bool { get set }
    var userInfo: [String: String] { get set }
    /// The renaming identifier: the name this property had in an earlier model version.
    var renamingIdentifier: String? { get set }
    var versionHashModifier: String? { get set }
    /// Xcode settings that Strata keeps as written but gives no meaning.
    var xcodeSettings: [String: String] { get set }
}

extension AttributeDescription: PropertyDescription {}
extension RelationshipDescription: PropertyDescription {}

/// An enumeration of model settings with a name in Strata's JSON model format and one in
/// Xcode's (`integer16` and `Integer 16`, `noAction` and `No Action`).
public protocol ModelSettingName: CaseIterable, Sendable {
    /// The name in Strata's JSON model format.
    var jsonName: String { get }
}

extension ModelSettingName {
    /// The case named `name` in either spelling, ignoring case and spaces.
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
