/// How the objects of one model become objects of another, inferred as Core Data's lightweight
/// migration infers it.
///
/// Entities, attributes and relationships match by renaming identifier (Xcode's "Renaming ID",
/// `elementID` in the model file), else by name: an element whose identifier is an old name is
/// that element renamed. Then:
///
/// - An entity without a match is new (no objects) or removed (its objects go).
/// - An attribute without a match is new: its default value fills existing objects, and one
///   that is required without a default needs an entity without objects. A removed one goes.
/// - A type change must lose nothing (``AttributeConversion``): integer widening, integer to
///   floating point or Decimal (checked against the values when the type's precision cannot
///   hold every integer), anything to String. Anything else is refused.
/// - Optional to required takes the default value for nil; without one, no object may be nil.
/// - Relationships keep their objects through any change of kind: to-one to to-many and back
///   (no object may then hold several), ordered or not, a new inverse. One that now points to
///   a new entity, or to one outside the hierarchy it pointed into, starts empty: no object
///   may hold any in it then.
/// - An entity may move out of a hierarchy, or into one when no two of the objects that come
///   together share a primary key.
///
/// What the data decides is checked on the store by ``StoreMigrator``; what the models decide
/// is checked here, all at once.
///
/// ```swift
/// let mapping = try ModelMapping(from: version1, to: version2)
/// mapping.changes   // [.propertyRenamed(entity: "Book", from: "name", to: "title"), .attributeTypeChanged(…), …]
/// ```
public struct ModelMapping: Sendable {
    /// The model the store was made with.
    public let source: ObjectModel
    /// The model the store is migrated to.
    public let destination: ObjectModel
    /// One mapping per destination entity, in the destination model's order.
    public private(set) var entities: [EntityMapping] = []
    /// What changes, in the order the plan lists it (``ModelChange/description`` is its line).
    public private(set) var changes: [ModelChange] = []

    /// The mapping of a destination entity to the source entity whose objects become its own.
    public struct EntityMapping: Sendable {
        /// The destination entity.
        public var destination: EntityDescription
        /// The source entity, or `nil` for a new entity.
        public var source: EntityDescription?
        /// Every stored attribute of the destination entity, inherited ones included.
        public var attributes: [AttributeMapping]
        /// Every stored relationship of the destination entity, inherited ones included.
        public var relationships: [RelationshipMapping]
    }

    /// Where a destination attribute's values come from.
    public struct AttributeMapping: Sendable {
        /// The destination attribute.
        public var destination: AttributeDescription
        /// The source attribute, or `nil` for a new attribute.
        public var source: AttributeDescription?
        /// How the source's values become the destination's.
        public var conversion: AttributeConversion
        /// The value that takes the place of nil: the default value of a required attribute,
        /// or of a new attribute.
        public var fill: AttributeValue?
    }

    /// Where a destination relationship's objects come from.
    public struct RelationshipMapping: Sendable {
        /// The destination relationship.
        public var destination: RelationshipDescription
        /// The source relationship, or `nil` for a new relationship.
        public var source: RelationshipDescription?
        /// The source relationship this one matches by name or renaming identifier but whose
        /// objects cannot follow (it now points to another entity): the step checks that it
        /// holds none.
        public var abandoned: RelationshipDescription?
    }

    /// Infers the mapping from `source` to `destination`.
    ///
    /// - Throws: ``ModelMappingError`` with every change that cannot be inferred.
    public init(from source: ObjectModel, to destination: ObjectModel) throws(ModelMappingError) {
        self.source = source
        self.destination = destination
        var reasons: [String] = []
        let sourceEntities = RenamingMatch(source.entities)
        var matchedSources: Set<String> = []
        for entity in destination.entities {
            let match = sourceEntities.match(for: entity, in: "the source model", reasons: &reasons)
            if let match {
                matchedSources.insert(match.name)
                if match.name != entity.name { changes.append(.entityRenamed(from: match.name, to: entity.name)) }
                if match.isAbstract != entity.isAbstract { changes.append(.entityAbstractnessChanged(entity: entity.name, isAbstract: entity.isAbstract)) }
                let (oldRoot, newRoot) = (source.rootEntity(of: match).name, destination.rootEntity(of: entity).name)
                if entity.superentityName != nil || match.superentityName != nil, (match.superentityName != nil) != (entity.superentityName != nil) || oldRoot != newRoot {
                    changes.append(.entityMovedHierarchy(entity: entity.name, fromRoot: oldRoot, toRoot: newRoot))
                }
            } else {
                changes.append(.entityAdded(entity.name))
            }
            entities.append(EntityMapping(destination: entity, source: match, attributes: [], relationships: []))
        }
        for entity in source.entities where !matchedSources.contains(entity.name) {
            changes.append(.entityRemoved(entity.name))
        }
        Self.refuseSharedSources(entities.map { ($0.destination.name, $0.source?.name) }, in: "the destination model", reasons: &reasons)
        for index in entities.indices {
            mapAttributes(of: index, reasons: &reasons)
            mapRelationships(of: index, reasons: &reasons)
        }
        if !reasons.isEmpty { throw ModelMappingError(reasons: reasons) }
    }

    /// A mapping in which nothing matches: every destination entity and property is new. A
    /// step that a mapping model carries out keeps it only for what it says of the two models.
    init(unmatchedFrom source: ObjectModel, to destination: ObjectModel) {
        self.source = source
        self.destination = destination
        entities = destination.entities.map { entity in
            EntityMapping(
                destination: entity, source: nil,
                attributes: destination.allAttributes(of: entity).filter { !$0.isTransient }.map { AttributeMapping(destination: $0, source: nil, conversion: .copy, fill: nil) },
                relationships: destination.allRelationships(of: entity).filter { !$0.isTransient }.map { RelationshipMapping(destination: $0, source: nil, abandoned: nil) })
        }
    }

    /// The mapping of the destination entity named `name`.
    public func entity(named name: String) -> EntityMapping? {
        entities.first { $0.destination.name == name }
    }

    /// The destination entity that the objects of the source entity `name` become, if any.
    public func destinationEntity(ofSource name: String) -> EntityDescription? {
        entities.first { $0.source?.name == name }?.destination
    }

    // MARK: - Attributes

    private mutating func mapAttributes(of index: Int, reasons: inout [String]) {
        let entity = entities[index].destination
        let match = entities[index].source
        let label = entity.name
        let stored = destination.allAttributes(of: entity).filter { !$0.isTransient }
        let sourceAttributes = match.map { source.allAttributes(of: $0).filter { !$0.isTransient } } ?? []
        let sourceMatch = RenamingMatch(sourceAttributes)
        var used: Set<String> = []
        // Lines of changes are written where the property is declared, once for a hierarchy.
        let declares = { (name: String) in entity.attributes.contains { $0.name == name } }
        for attribute in stored {
            let fill = attribute.defaultAttributeValue
            // An inherited attribute's ambiguity is reported where it is declared.
            var ambiguity: [String] = []
            let old = sourceMatch.match(for: attribute, in: "entity \(match?.name ?? label)", reasons: &ambiguity)
            if declares(attribute.name) { reasons += ambiguity }
            guard let old else {
                if declares(attribute.name), match != nil {
                    changes.append(.attributeAdded(entity: label, attribute: attribute.name, defaultValue: fill, isOptional: attribute.isOptional))
                }
                entities[index].attributes.append(AttributeMapping(destination: attribute, source: nil, conversion: .copy, fill: fill))
                continue
            }
            used.insert(old.name)
            guard let conversion = AttributeConversion(from: old.type, to: attribute.type) else {
                reasons.append("\(label).\(attribute.name): \(old.type.rawValue) → \(attribute.type.rawValue) would lose values; a migration converts types only without loss (a wider integer, integer to floating point or Decimal, anything to String)")
                continue
            }
            if declares(attribute.name) {
                if old.name != attribute.name { changes.append(.propertyRenamed(entity: label, from: old.name, to: attribute.name)) }
                if old.type != attribute.type { changes.append(.attributeTypeChanged(entity: label, attribute: attribute.name, from: old.type, to: attribute.type)) }
                if old.isOptional, !attribute.isOptional {
                    changes.append(.attributeBecameRequired(entity: label, attribute: attribute.name, defaultValue: fill))
                }
                if !old.isOptional, attribute.isOptional { changes.append(.attributeBecameOptional(entity: label, attribute: attribute.name)) }
            }
            entities[index].attributes.append(AttributeMapping(
                destination: attribute, source: old, conversion: conversion, fill: attribute.isOptional ? nil : fill))
        }
        if let match {
            for attribute in match.attributes where !attribute.isTransient && !used.contains(attribute.name) {
                changes.append(.attributeRemoved(entity: match.name, attribute: attribute.name))
            }
        }
        Self.refuseSharedSources(
            entities[index].attributes.filter { declares($0.destination.name) }.map { ($0.destination.name, $0.source?.name) },
            in: "entity \(label) of the destination model", reasons: &reasons)
    }

    // MARK: - Relationships

    private mutating func mapRelationships(of index: Int, reasons: inout [String]) {
        let entity = entities[index].destination
        guard let match = entities[index].source else {
            entities[index].relationships = destination.allRelationships(of: entity).filter { !$0.isTransient }
                .map { RelationshipMapping(destination: $0, source: nil, abandoned: nil) }
            return
        }
        let label = entity.name
        let sourceRelationships = source.allRelationships(of: match).filter { !$0.isTransient }
        let sourceMatch = RenamingMatch(sourceRelationships)
        var used: Set<String> = []
        let declares = { (name: String) in entity.relationships.contains { $0.name == name } }
        for relationship in destination.allRelationships(of: entity) where !relationship.isTransient {
            var ambiguity: [String] = []
            let old = sourceMatch.match(for: relationship, in: "entity \(match.name)", reasons: &ambiguity)
            if declares(relationship.name) { reasons += ambiguity }
            guard let old else {
                if declares(relationship.name) { changes.append(.relationshipAdded(entity: label, relationship: relationship.name)) }
                entities[index].relationships.append(RelationshipMapping(destination: relationship, source: nil, abandoned: nil))
                continue
            }
            used.insert(old.name)
            // The objects it holds must be of the entity it now points to, or of one related to
            // it; else it starts empty, and the step checks that the old one held nothing.
            let newTarget = self.entity(named: relationship.destinationEntityName)?.source
            let oldTarget = source.entity(named: old.destinationEntityName)
            let keepsObjects = if let newTarget { oldTarget.map { source.rootEntity(of: newTarget).name == source.rootEntity(of: $0).name } ?? true } else { false }
            if !keepsObjects {
                if declares(relationship.name) {
                    changes.append(.relationshipRetargeted(
                        entity: label, relationship: relationship.name, destination: relationship.destinationEntityName, destinationIsNew: newTarget == nil,
                        previous: old.name, previousDestination: old.destinationEntityName))
                }
                entities[index].relationships.append(RelationshipMapping(destination: relationship, source: nil, abandoned: old))
                continue
            }
            if declares(relationship.name) {
                if old.name != relationship.name { changes.append(.propertyRenamed(entity: label, from: old.name, to: relationship.name)) }
                if old.isToMany != relationship.isToMany {
                    changes.append(.relationshipCardinalityChanged(entity: label, relationship: relationship.name, isToMany: relationship.isToMany))
                }
                if old.isToMany, relationship.isToMany, old.isOrdered != relationship.isOrdered {
                    changes.append(.relationshipOrderingChanged(entity: label, relationship: relationship.name, isOrdered: relationship.isOrdered))
                }
                if old.inverseName != relationship.inverseName {
                    changes.append(.relationshipInverseChanged(entity: label, relationship: relationship.name, from: old.inverseName, to: relationship.inverseName))
                }
                if old.isOptional, !relationship.isOptional { changes.append(.relationshipBecameRequired(entity: label, relationship: relationship.name)) }
            }
            entities[index].relationships.append(RelationshipMapping(destination: relationship, source: old, abandoned: nil))
        }
        for relationship in match.relationships where !relationship.isTransient && !used.contains(relationship.name) {
            changes.append(.relationshipRemoved(entity: match.name, relationship: relationship.name))
        }
        Self.refuseSharedSources(
            entities[index].relationships.filter { declares($0.destination.name) }.map { ($0.destination.name, $0.source?.name) },
            in: "entity \(label) of the destination model", reasons: &reasons)
    }

    // MARK: - Identifiers

    /// Refuses destination elements that would take the objects or values of one source
    /// element: each `(destination, source)` pair names a destination element and its match.
    private static func refuseSharedSources(_ pairs: [(String, String?)], in place: String, reasons: inout [String]) {
        var takers: [String: [String]] = [:]
        for case (let destination, let source?) in pairs { takers[source, default: []].append(destination) }
        for (source, destinations) in takers.sorted(by: { $0.key < $1.key }) where destinations.count > 1 {
            let takers = destinations.count == 2 ? "both" : "all"
            reasons.append("\(place): \(destinations.joined(separator: " and ")) would \(takers) take the values of \(source); give each its own renaming identifier")
        }
    }
}

/// The source elements a destination element may come from: those whose renaming identifier
/// (or name, without one) is the destination's identifier (or name).
///
/// Xcode lets two elements share an identifier, as when `programmedRate` keeps the identifier
/// `scheduledRate` while an attribute `scheduledRate` remains: the element with the
/// destination's own name is then the match, as it is when nothing was renamed. Only several
/// candidates without it are ambiguous.
struct RenamingMatch<Element: NamedElement> {
    private var candidates: [String: [Element]] = [:]

    init(_ elements: [Element]) {
        for element in elements { candidates[element.renamingKey, default: []].append(element) }
    }

    /// The source element `element` comes from, or `nil` for a new one; an ambiguous match
    /// adds a reason, naming `place`, and is `nil`.
    func match(for element: Element, in place: String, reasons: inout [String]) -> Element? {
        let found = candidates[element.renamingKey] ?? []
        guard found.count > 1 else { return found.first }
        if let sameName = found.first(where: { $0.name == element.name }) { return sameName }
        reasons.append("\(place): \(found.map(\.name).joined(separator: " and ")) share the renaming identifier '\(element.renamingKey)', so either could be \(element.name)")
        return nil
    }
}

/// The model changes a migration cannot infer, each naming the entity and property.
public struct ModelMappingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// One sentence per change that cannot be inferred, naming entity and property.
    public var reasons: [String]

    public var description: String { reasons.joined(separator: "\n") }
}

/// A model element with a name and a renaming identifier: an entity, attribute or relationship.
protocol NamedElement {
    var name: String { get }
    var renamingIdentifier: String? { get }
}

extension NamedElement {
    /// What a migration matches the element by: its renaming identifier, else its name.
    var renamingKey: String { renamingIdentifier ?? name }
}

extension EntityDescription: NamedElement {}
extension AttributeDescription: NamedElement {}
extension RelationshipDescription: NamedElement {}
