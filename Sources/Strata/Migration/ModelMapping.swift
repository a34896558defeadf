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
///   (no object may then hold several), ordered or not, a new inverse. Each must still point
///   to the entity (or a relative in its hierarchy) that it pointed to.
/// - An entity may move out of a hierarchy, or into one when no two of the objects that come
///   together share a primary key.
///
/// What the data decides is checked on the store by ``StoreMigrator``; what the models decide
/// is checked here, all at once.
///
/// ```swift
/// let mapping = try ModelMapping(from: version1, to: version2)
/// mapping.changes   // ["Book.name renamed to title", "Book.pages: Integer 16 → Integer 64", …]
/// ```
public struct ModelMapping: Sendable {
    /// The model the store was made with.
    public let source: ObjectModel
    /// The model the store is migrated to.
    public let destination: ObjectModel
    /// One mapping per destination entity, in the destination model's order.
    public private(set) var entities: [EntityMapping] = []
    /// What changes, one line each, in words: the plan shows them.
    public private(set) var changes: [String] = []

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
    }

    /// Infers the mapping from `source` to `destination`.
    ///
    /// - Throws: ``ModelMappingError`` with every change that cannot be inferred.
    public init(from source: ObjectModel, to destination: ObjectModel) throws(ModelMappingError) {
        self.source = source
        self.destination = destination
        var reasons: [String] = []
        let sourceEntities = Self.byIdentifier(source.entities, identifier: \.renamingIdentifier, in: "the source model", reasons: &reasons)
        _ = Self.byIdentifier(destination.entities, identifier: \.renamingIdentifier, in: "the destination model", reasons: &reasons)
        var matchedSources: Set<String> = []
        for entity in destination.entities {
            let match = sourceEntities[entity.renamingIdentifier ?? entity.name]
            if let match {
                matchedSources.insert(match.name)
                if match.name != entity.name { changes.append("entity \(match.name) renamed to \(entity.name)") }
                if match.isAbstract != entity.isAbstract { changes.append("entity \(entity.name) \(entity.isAbstract ? "becomes" : "is no longer") abstract") }
                let (oldRoot, newRoot) = (source.rootEntity(of: match).name, destination.rootEntity(of: entity).name)
                if entity.superentityName != nil || match.superentityName != nil, (match.superentityName != nil) != (entity.superentityName != nil) || oldRoot != newRoot {
                    changes.append("entity \(entity.name) moves from the hierarchy of \(oldRoot) to that of \(newRoot)")
                }
            } else {
                changes.append("entity \(entity.name) added")
            }
            entities.append(EntityMapping(destination: entity, source: match, attributes: [], relationships: []))
        }
        for entity in source.entities where !matchedSources.contains(entity.name) {
            changes.append("entity \(entity.name) removed, with its objects")
        }
        for index in entities.indices {
            mapAttributes(of: index, reasons: &reasons)
            mapRelationships(of: index, reasons: &reasons)
        }
        if !reasons.isEmpty { throw ModelMappingError(reasons: reasons) }
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
        let byIdentifier = Self.byIdentifier(sourceAttributes, identifier: \.renamingIdentifier, in: "entity \(match?.name ?? label)", reasons: &reasons)
        // Two destination attributes with one identifier would both take one source's values.
        _ = Self.byIdentifier(
            stored, identifier: \.renamingIdentifier, in: "entity \(label) of the destination model",
            declared: Set(entity.attributes.map(\.name)), reasons: &reasons)
        var used: Set<String> = []
        // Lines of changes are written where the property is declared, once for a hierarchy.
        let declares = { (name: String) in entity.attributes.contains { $0.name == name } }
        for attribute in stored {
            let fill = attribute.defaultAttributeValue
            guard let old = byIdentifier[attribute.renamingIdentifier ?? attribute.name] else {
                if declares(attribute.name), match != nil {
                    let filling = fill.map { ", filled with its default \($0.displayText)" }
                        ?? (attribute.isOptional ? "" : ", required with no default: the entity must have no objects")
                    changes.append("\(label).\(attribute.name) added" + filling)
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
                if old.name != attribute.name { changes.append("\(label).\(old.name) renamed to \(attribute.name)") }
                if old.type != attribute.type { changes.append("\(label).\(attribute.name): \(old.type.rawValue) → \(attribute.type.rawValue)") }
                if old.isOptional, !attribute.isOptional {
                    changes.append("\(label).\(attribute.name) becomes required" + (fill.map { "; nil becomes its default \($0.displayText)" } ?? ", with no default: no object may be nil"))
                }
                if !old.isOptional, attribute.isOptional { changes.append("\(label).\(attribute.name) becomes optional") }
            }
            entities[index].attributes.append(AttributeMapping(
                destination: attribute, source: old, conversion: conversion, fill: attribute.isOptional ? nil : fill))
        }
        if let match {
            for attribute in match.attributes where !attribute.isTransient && !used.contains(attribute.name) {
                changes.append("\(match.name).\(attribute.name) removed")
            }
        }
    }

    // MARK: - Relationships

    private mutating func mapRelationships(of index: Int, reasons: inout [String]) {
        let entity = entities[index].destination
        guard let match = entities[index].source else {
            entities[index].relationships = destination.allRelationships(of: entity).filter { !$0.isTransient }
                .map { RelationshipMapping(destination: $0, source: nil) }
            return
        }
        let label = entity.name
        let sourceRelationships = source.allRelationships(of: match).filter { !$0.isTransient }
        let byIdentifier = Self.byIdentifier(sourceRelationships, identifier: \.renamingIdentifier, in: "entity \(match.name)", reasons: &reasons)
        _ = Self.byIdentifier(
            destination.allRelationships(of: entity).filter { !$0.isTransient }, identifier: \.renamingIdentifier,
            in: "entity \(label) of the destination model", declared: Set(entity.relationships.map(\.name)), reasons: &reasons)
        var used: Set<String> = []
        let declares = { (name: String) in entity.relationships.contains { $0.name == name } }
        for relationship in destination.allRelationships(of: entity) where !relationship.isTransient {
            guard let old = byIdentifier[relationship.renamingIdentifier ?? relationship.name] else {
                if declares(relationship.name) { changes.append("\(label).\(relationship.name) added") }
                entities[index].relationships.append(RelationshipMapping(destination: relationship, source: nil))
                continue
            }
            used.insert(old.name)
            // The objects it holds must be of the entity it now points to, or of one related to it.
            let newTarget = self.entity(named: relationship.destinationEntityName)?.source
            let oldTarget = source.entity(named: old.destinationEntityName)
            if newTarget == nil {
                reasons.append("\(label).\(relationship.name) now points to \(relationship.destinationEntityName), a new entity, so the objects it held (\(old.destinationEntityName)) would be lost")
                continue
            }
            if let newTarget, let oldTarget, source.rootEntity(of: newTarget).name != source.rootEntity(of: oldTarget).name {
                reasons.append("\(label).\(relationship.name) now points to \(relationship.destinationEntityName), whose objects are not those it held (\(old.destinationEntityName))")
                continue
            }
            if declares(relationship.name) {
                if old.name != relationship.name { changes.append("\(label).\(old.name) renamed to \(relationship.name)") }
                if old.isToMany != relationship.isToMany {
                    changes.append("\(label).\(relationship.name): \(old.isToMany ? "to-many → to-one; no object may hold several" : "to-one → to-many")")
                }
                if old.isToMany, relationship.isToMany, old.isOrdered != relationship.isOrdered {
                    changes.append("\(label).\(relationship.name) becomes \(relationship.isOrdered ? "ordered, in the order of the objects' keys" : "unordered")")
                }
                if old.inverseName != relationship.inverseName {
                    changes.append("\(label).\(relationship.name): inverse \(old.inverseName ?? "none") → \(relationship.inverseName ?? "none")")
                }
                if old.isOptional, !relationship.isOptional { changes.append("\(label).\(relationship.name) becomes required: no object may be without it") }
            }
            entities[index].relationships.append(RelationshipMapping(destination: relationship, source: old))
        }
        for relationship in match.relationships where !relationship.isTransient && !used.contains(relationship.name) {
            changes.append("\(match.name).\(relationship.name) removed")
        }
    }

    // MARK: - Identifiers

    /// The elements by renaming identifier (their name without one); an identifier that two
    /// share is a reason to refuse, since either could be the other's new self. With
    /// `declared`, only pairs of which one is declared there are reported (an inherited pair is
    /// reported where it is declared).
    private static func byIdentifier<Element>(
        _ elements: [Element], identifier: KeyPath<Element, String?>, in place: String, declared: Set<String>? = nil, reasons: inout [String]
    ) -> [String: Element] where Element: NamedElement {
        var result: [String: Element] = [:]
        for element in elements {
            let key = element[keyPath: identifier] ?? element.name
            if let other = result[key] {
                guard declared.map({ $0.contains(element.name) || $0.contains(other.name) }) ?? true else { continue }
                reasons.append("\(place): \(other.name) and \(element.name) share the renaming identifier '\(key)'")
            } else {
                result[key] = element
            }
        }
        return result
    }
}

/// The model changes a migration cannot infer, each naming the entity and property.
public struct ModelMappingError: Error, Sendable, Equatable, CustomStringConvertible {
    public var reasons: [String]

    public var description: String { reasons.joined(separator: "\n") }
}

/// A model element with a name: an entity, attribute or relationship.
protocol NamedElement {
    var name: String { get }
}

extension EntityDescription: NamedElement {}
extension AttributeDescription: NamedElement {}
extension RelationshipDescription: NamedElement {}
