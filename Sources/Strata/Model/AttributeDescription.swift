/// An attribute of an entity: a named value of one ``AttributeType``, with what Xcode's model
/// editor lets a user set on it.
///
/// Values that Xcode writes as text (default, minimum, maximum) are kept as written; the
/// ``AttributeValue`` parsing of ``defaultValue`` and the range checks live in model validation.
///
/// ```swift
/// var title = AttributeDescription(name: "title", type: .string)
/// title.isOptional = false
/// title.maxValue = "200"   // for strings, the longest allowed length
/// ```
public struct AttributeDescription: Sendable, Equatable {
    /// The attribute's name, unique among the entity's properties including inherited ones; it
    /// enters the version hash.
    public var name: String
    /// The type of the attribute's values (`attributeType`). Its `NSAttributeType` code enters the
    /// version hash, and it decides the store column's SQL type.
    public var type: AttributeType
    /// Whether a saved object may leave the attribute unset.
    public var isOptional: Bool = true
    /// Transient attributes are kept in memory only and have no column in the store.
    public var isTransient: Bool = false
    /// Whether the store keeps an index on the attribute's column.
    public var isIndexed: Bool = false
    /// The default value as written in the model: a number, `YES`/`NO`, a string, or, for dates,
    /// seconds since 2001-01-01 00:00 UTC.
    public var defaultValue: String?
    /// The minimum: a number for numeric types, a length for strings and binary data, and
    /// seconds since 2001-01-01 for dates.
    public var minValue: String?
    /// The maximum, with the same meaning as ``minValue``.
    public var maxValue: String?
    /// A regular expression that string values must match in whole.
    public var regularExpression: String?
    /// Whether the value is derived from other values by ``derivationExpression``.
    public var isDerived: Bool = false
    /// The expression a derived attribute's value is computed from (`derivationExpression`), kept
    /// as Xcode writes it; it applies when ``isDerived`` is set.
    public var derivationExpression: String?
    /// Whether large binary values may be kept outside the store's tables.
    public var allowsExternalBinaryDataStorage: Bool = false
    /// Whether the value is kept in persistent history when its object is deleted.
    public var preservesValueInHistoryOnDeletion: Bool = false
    /// The name of the value transformer that turns a Transformable attribute's values into data
    /// for the store and back (`valueTransformerName`); `nil` when the model names none.
    public var valueTransformerName: String?
    /// The class of a Transformable attribute's values, as Xcode names it.
    public var customClassName: String?
    /// The ``CompositeDescription`` of the model whose elements a Composite attribute holds
    /// (Xcode's `composite`).
    public var compositeName: String?
    /// Free-form key–value pairs from the model editor's User Info. Not part of the version hash.
    public var userInfo: [String: String] = [:]
    /// The renaming identifier: the name this attribute had in an earlier model version.
    public var renamingIdentifier: String?
    /// Text mixed into the attribute's version hash (`versionHashModifier`), so that a store sees a
    /// new model version even when nothing else in the hash changed, such as the format of a
    /// Transformable attribute's data.
    public var versionHashModifier: String?
    /// Xcode settings that Strata keeps as written but gives no meaning (`usesScalarValueType`,
    /// `syncable`, `spotlightIndexingEnabled`, …).
    public var xcodeSettings: [String: String] = [:]

    /// An optional, stored attribute named `name` of `type`, with every other setting at its default.
    public init(name: String, type: AttributeType) {
        self.name = name
        self.type = type
    }
}
