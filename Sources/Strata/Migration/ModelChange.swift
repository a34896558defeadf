/// One change between two model versions that an inferred (lightweight) migration carries
/// out: what a migration plan lists for a step, as a value that code and tests can match on.
///
/// Each change names the entity (and property) it concerns by its name in the destination
/// model, except where the element is gone (``entityRemoved(_:)``, ``attributeRemoved(entity:attribute:)``,
/// ``relationshipRemoved(entity:relationship:)``) or renamed (the old name is in the case).
/// Changes to a property are reported once, on the entity that declares it, not on each
/// sub-entity that inherits it. ``description`` is the line a plan prints.
///
/// ```swift
/// let mapping = try ModelMapping(from: version1, to: version2)
/// if mapping.changes.contains(.attributeTypeChanged(entity: "Book", attribute: "pages", from: .integer16, to: .integer64)) { … }
/// print(mapping.changes.map(\.description))   // ["Book.pages: Integer 16 → Integer 64"]
/// ```
public enum ModelChange: Sendable, Hashable, CustomStringConvertible {
    /// The source entity `from` is the destination entity `to` (by renaming identifier).
    case entityRenamed(from: String, to: String)
    /// The entity becomes abstract (`isAbstract`) or stops being so.
    case entityAbstractnessChanged(entity: String, isAbstract: Bool)
    /// The entity leaves the hierarchy rooted at `fromRoot` for the one rooted at `toRoot`
    /// (an entity on its own is its own root).
    case entityMovedHierarchy(entity: String, fromRoot: String, toRoot: String)
    /// A new entity, which starts without objects.
    case entityAdded(String)
    /// A source entity no destination entity matches: its objects go.
    case entityRemoved(String)
    /// A new attribute; existing objects get `defaultValue`, or nil. A required one without a
    /// default needs an entity without objects.
    case attributeAdded(entity: String, attribute: String, defaultValue: AttributeValue?, isOptional: Bool)
    /// An attribute or relationship renamed (by renaming identifier) from `from` to `to`.
    case propertyRenamed(entity: String, from: String, to: String)
    /// An attribute's type changes without loss (see ``AttributeConversion``).
    case attributeTypeChanged(entity: String, attribute: String, from: AttributeType, to: AttributeType)
    /// An optional attribute becomes required; nil becomes `defaultValue`, and without one no
    /// object may be nil.
    case attributeBecameRequired(entity: String, attribute: String, defaultValue: AttributeValue?)
    /// A required attribute becomes optional.
    case attributeBecameOptional(entity: String, attribute: String)
    /// A source attribute that no destination attribute matches: its values go.
    case attributeRemoved(entity: String, attribute: String)
    /// A new relationship, which starts empty.
    case relationshipAdded(entity: String, relationship: String)
    /// The relationship now points to `destination`, whose objects are not those the source
    /// relationship `previous` held (in `previousDestination`, or a new entity when
    /// `destinationIsNew`): it starts empty, and no object may hold any in `previous`.
    case relationshipRetargeted(entity: String, relationship: String, destination: String, destinationIsNew: Bool, previous: String, previousDestination: String)
    /// A to-one becomes to-many (`isToMany`), or a to-many to-one (no object may hold several).
    case relationshipCardinalityChanged(entity: String, relationship: String, isToMany: Bool)
    /// A to-many becomes ordered (in the order of the objects' keys) or unordered.
    case relationshipOrderingChanged(entity: String, relationship: String, isOrdered: Bool)
    /// The relationship's inverse changes (`nil`: none).
    case relationshipInverseChanged(entity: String, relationship: String, from: String?, to: String?)
    /// An optional relationship becomes required: no object may be without it.
    case relationshipBecameRequired(entity: String, relationship: String)
    /// A source relationship that no destination relationship matches: its links go.
    case relationshipRemoved(entity: String, relationship: String)

    /// `Entity.property` of a removed attribute or relationship, as
    /// ``MigrationStep/droppedValueCounts`` keys it; `nil` for other changes.
    public var removedProperty: String? {
        switch self {
        case .attributeRemoved(let entity, let name), .relationshipRemoved(let entity, let name): "\(entity).\(name)"
        default: nil
        }
    }

    /// The change in words, as a migration plan lists it: `Book.pages: Integer 16 → Integer 64`.
    public var description: String {
        switch self {
        case .entityRenamed(let from, let to): "entity \(from) renamed to \(to)"
        case .entityAbstractnessChanged(let entity, let isAbstract): "entity \(entity) \(isAbstract ? "becomes" : "is no longer") abstract"
        case .entityMovedHierarchy(let entity, let fromRoot, let toRoot): "entity \(entity) moves from the hierarchy of \(fromRoot) to that of \(toRoot)"
        case .entityAdded(let entity): "entity \(entity) added"
        case .entityRemoved(let entity): "entity \(entity) removed, with its objects"
        case .attributeAdded(let entity, let attribute, let defaultValue, let isOptional):
            "\(entity).\(attribute) added"
                + (defaultValue.map { ", filled with its default \($0.displayText)" } ?? (isOptional ? "" : ", required with no default: the entity must have no objects"))
        case .propertyRenamed(let entity, let from, let to): "\(entity).\(from) renamed to \(to)"
        case .attributeTypeChanged(let entity, let attribute, let from, let to): "\(entity).\(attribute): \(from.rawValue) → \(to.rawValue)"
        case .attributeBecameRequired(let entity, let attribute, let defaultValue):
            "\(entity).\(attribute) becomes required" + (defaultValue.map { "; nil becomes its default \($0.displayText)" } ?? ", with no default: no object may be nil")
        case .attributeBecameOptional(let entity, let attribute): "\(entity).\(attribute) becomes optional"
        case .attributeRemoved(let entity, let name), .relationshipRemoved(let entity, let name): "\(entity).\(name) removed"
        case .relationshipAdded(let entity, let relationship): "\(entity).\(relationship) added"
        case .relationshipRetargeted(let entity, let relationship, let destination, let destinationIsNew, let previous, let previousDestination):
            "\(entity).\(relationship) now points to \(destination), "
                + (destinationIsNew ? "a new entity" : "whose objects are not those it held (\(previousDestination))")
                + ": it starts empty, and no object may hold any in \(previous)"
        case .relationshipCardinalityChanged(let entity, let relationship, let isToMany):
            "\(entity).\(relationship): \(isToMany ? "to-one → to-many" : "to-many → to-one; no object may hold several")"
        case .relationshipOrderingChanged(let entity, let relationship, let isOrdered):
            "\(entity).\(relationship) becomes \(isOrdered ? "ordered, in the order of the objects' keys" : "unordered")"
        case .relationshipInverseChanged(let entity, let relationship, let from, let to):
            "\(entity).\(relationship): inverse \(from ?? "none") → \(to ?? "none")"
        case .relationshipBecameRequired(let entity, let relationship): "\(entity).\(relationship) becomes required: no object may be without it"
        }
    }
}
