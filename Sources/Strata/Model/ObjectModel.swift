/// A managed object model: the entities a store holds, with their properties, and the fetch
/// request templates and configurations that Xcode's model editor records.
///
/// It is the Swift-native counterpart of Core Data's `NSManagedObjectModel`, read from an
/// `.xcdatamodeld` bundle or a Strata JSON model (see ``ModelLoader``) or built in code:
///
/// ```swift
/// var author = EntityDescription(name: "Author")
/// author.attributes = [AttributeDescription(name: "name", type: .string)]
/// let model = ObjectModel(entities: [author])
/// model.entity(named: "Author")?.attributes.count   // 1
/// ```
///
/// A model is a value; it is checked by ``validate()`` and hashed by
/// ``entityVersionHashes()``, which is how a store is matched to it.
public struct ObjectModel: Sendable, Equatable {
    /// The entities in the order the model file lists them.
    public var entities: [EntityDescription] {
        didSet { indexEntities() }
    }
    /// The named subsets of ``entities`` that a store can be limited to, in model order.
    public var configurations: [ModelConfiguration] = []
    /// The fetch requests stored in the model by name, in model order. Not part of any version hash.
    public var fetchRequestTemplates: [FetchRequestTemplate] = []
    /// The composite types that Composite attributes name, in model order.
    public var composites: [CompositeDescription] = []
    /// The version identifier a user set on the model (`userDefinedModelVersionIdentifier`).
    public var versionIdentifier: String = ""
    /// Xcode settings kept as written (`lastSavedToolsVersion`, `sourceLanguage`, …).
    public var xcodeSettings: [String: String] = [:]

    private var entityIndexByName: [String: Int] = [:]
    /// The indexes in ``entities`` of each parent's direct subentities, in model order, so that
    /// walking a hierarchy costs its size rather than a scan of the model per entity.
    private var subentityIndexesByParent: [String: [Int]] = [:]
    /// Each entity's properties with the inherited ones, by entity name: property access and
    /// fetches look them up per object, so they are gathered once per change of the entities.
    private var propertiesByEntity: [String: EntityProperties] = [:]
    /// The entities' version hashes once computed (``entityVersionHashes()``), replaced with an
    /// empty one whenever the entities change. A copy of the model shares it until then.
    private(set) var versionHashMemo = VersionHashMemo()

    /// A class, so that a look-up hands out one reference rather than copying every field.
    private final class EntityProperties: Sendable {
        let attributes: [AttributeDescription]
        let relationships: [RelationshipDescription]
        let attributesByName: [String: AttributeDescription]
        let relationshipsByName: [String: RelationshipDescription]
        /// What reading and writing rows needs of the attributes, without copying descriptions.
        let storedAttributes: [(name: String, type: AttributeType)]
        let storedToOneNames: [String]
        /// The properties a save validates: those with a rule (required, bounds, a pattern, counts).
        let ruledAttributes: [AttributeDescription]
        let ruledRelationships: [RelationshipDescription]
        /// The numbers of the properties in objects' values: attributes, then relationships.
        let slots: PropertySlots
        /// The stored attributes and to-ones with their numbers in ``slots``: what a row fills.
        let storedSlots: StoredSlots

        /// The properties of an entity whose lineage, root first, is `lineage`.
        init(lineage: [EntityDescription]) {
            attributes = lineage.flatMap(\.attributes)
            relationships = lineage.flatMap(\.relationships)
            attributesByName = Dictionary(attributes.map { ($0.name, $0) }, uniquingKeysWith: { _, last in last })
            relationshipsByName = Dictionary(relationships.map { ($0.name, $0) }, uniquingKeysWith: { _, last in last })
            storedAttributes = attributes.filter { !$0.isTransient }.map { ($0.name, $0.type) }
            storedToOneNames = relationships.filter { !$0.isToMany && !$0.isTransient }.map(\.name)
            ruledAttributes = attributes.filter(\.hasRules)
            ruledRelationships = relationships.filter(\.hasRules)
            let slots = PropertySlots(attributes: attributes, relationships: relationships)
            self.slots = slots
            storedSlots = StoredSlots(
                attributes: storedAttributes.map { (slots.numbers[$0.name]!, $0.type) },
                toOnes: storedToOneNames.map { (slots.numbers[$0]!, $0) })
        }
    }

    /// A model of `entities`, with no configurations, fetch request templates or version identifier.
    public init(entities: [EntityDescription]) {
        self.entities = entities
        indexEntities()
    }

    private mutating func indexEntities() {
        entityIndexByName = [:]
        subentityIndexesByParent = [:]
        for (index, entity) in entities.enumerated() {
            if entityIndexByName[entity.name] == nil { entityIndexByName[entity.name] = index }
            if let parent = entity.superentityName { subentityIndexesByParent[parent, default: []].append(index) }
        }
        propertiesByEntity = [:]
        versionHashMemo = VersionHashMemo()
        for index in entityIndexByName.values {
            propertiesByEntity[entities[index].name] = EntityProperties(lineage: ancestors(of: entities[index]).reversed() + [entities[index]])
        }
    }

    /// The gathered properties of the model's entity named as `entity`; an entity description
    /// the model does not hold by that name has its properties gathered on each call.
    private func indexedProperties(of entity: EntityDescription) -> EntityProperties? {
        propertiesByEntity[entity.name]
    }

    /// Whether two models have equal entities, configurations, composites, fetch request
    /// templates, version identifiers and Xcode settings.
    public static func == (lhs: ObjectModel, rhs: ObjectModel) -> Bool {
        lhs.entities == rhs.entities && lhs.configurations == rhs.configurations && lhs.composites == rhs.composites
            && lhs.fetchRequestTemplates == rhs.fetchRequestTemplates
            && lhs.versionIdentifier == rhs.versionIdentifier && lhs.xcodeSettings == rhs.xcodeSettings
    }
}

// MARK: - Looking up entities and properties

/// The lookups of an entity's properties find the model's entity by the name of the one given.
extension ObjectModel {
    /// The entity named `name`.
    public func entity(named name: String) -> EntityDescription? {
        entityIndexByName[name].map { entities[$0] }
    }

    /// The entity's ancestors, its parent first. Stops at an unknown name or a cycle.
    public func ancestors(of entity: EntityDescription) -> [EntityDescription] {
        var result: [EntityDescription] = []
        var seen: Set<String> = [entity.name]
        var next = entity.superentityName
        while let name = next, let parent = self.entity(named: name), seen.insert(name).inserted {
            result.append(parent)
            next = parent.superentityName
        }
        return result
    }

    /// The root of the entity's hierarchy, whose table holds its rows in the store.
    public func rootEntity(of entity: EntityDescription) -> EntityDescription {
        ancestors(of: entity).last ?? entity
    }

    /// The entities whose parent is `entity`, in model order.
    public func directSubentities(of entity: EntityDescription) -> [EntityDescription] {
        subentityIndexesByParent[entity.name, default: []].map { entities[$0] }
    }

    /// Every entity below `entity` in its hierarchy, depth first, in model order.
    public func allSubentities(of entity: EntityDescription) -> [EntityDescription] {
        var result: [EntityDescription] = []
        var seen: Set<String> = [entity.name]
        var pending = directSubentities(of: entity)
        while !pending.isEmpty {
            let next = pending.removeFirst()
            guard seen.insert(next.name).inserted else { continue }
            result.append(next)
            pending.insert(contentsOf: directSubentities(of: next), at: 0)
        }
        return result
    }

    /// The entity's attributes, inherited ones first (from the root down), then its own.
    public func allAttributes(of entity: EntityDescription) -> [AttributeDescription] {
        indexedProperties(of: entity)?.attributes ?? (ancestors(of: entity).reversed() + [entity]).flatMap(\.attributes)
    }

    /// The entity's relationships, inherited ones first (from the root down), then its own.
    public func allRelationships(of entity: EntityDescription) -> [RelationshipDescription] {
        indexedProperties(of: entity)?.relationships ?? (ancestors(of: entity).reversed() + [entity]).flatMap(\.relationships)
    }

    /// The attribute named `name` on the entity or an ancestor.
    public func attribute(named name: String, in entity: EntityDescription) -> AttributeDescription? {
        if let properties = indexedProperties(of: entity) { return properties.attributesByName[name] }
        return allAttributes(of: entity).last { $0.name == name }
    }

    /// The attribute a dotted key path of `entity` ends at, through relationships
    /// (`author.name`): what a selected value of a fetch holds; `nil` when the path does not
    /// end at an attribute.
    public func attribute(atKeyPath keyPath: String, from entity: EntityDescription) -> AttributeDescription? {
        var current: EntityDescription? = entity
        let keys = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        for key in keys.dropLast() {
            current = current.flatMap { relationship(named: key, in: $0) }.flatMap { self.entity(named: $0.destinationEntityName) }
        }
        return current.flatMap { attribute(named: keys[keys.count - 1], in: $0) }
    }

    /// The type of the attribute `name` of the entity or an ancestor: ``attribute(named:in:)``
    /// without copying the description, for the look-ups of every property access.
    func attributeType(named name: String, in entity: EntityDescription) -> AttributeType? {
        if let properties = indexedProperties(of: entity) { return properties.slots.attributeType(named: name) }
        return attribute(named: name, in: entity)?.type
    }

    /// The names and types of the entity's stored (not transient) attributes, inherited first.
    func storedAttributes(of entity: EntityDescription) -> [(name: String, type: AttributeType)] {
        indexedProperties(of: entity)?.storedAttributes ?? allAttributes(of: entity).filter { !$0.isTransient }.map { ($0.name, $0.type) }
    }

    /// The numbers of the entity's properties in its objects' values.
    func propertySlots(of entity: EntityDescription) -> PropertySlots {
        indexedProperties(of: entity)?.slots ?? .none
    }

    /// The entity's stored attributes and to-ones with their numbers in ``propertySlots(of:)``;
    /// `nil` for an entity description the model does not hold.
    func storedSlots(of entity: EntityDescription) -> StoredSlots? {
        indexedProperties(of: entity)?.storedSlots
    }

    /// The names of the entity's stored to-one relationships, inherited first.
    func storedToOneNames(of entity: EntityDescription) -> [String] {
        indexedProperties(of: entity)?.storedToOneNames
            ?? allRelationships(of: entity).filter { !$0.isToMany && !$0.isTransient }.map(\.name)
    }

    /// The entity's stored attributes and relationships that a value can break a rule of:
    /// required ones, bounds, patterns and counts. Validation needs to look at no others.
    func ruledProperties(of entity: EntityDescription) -> (attributes: [AttributeDescription], relationships: [RelationshipDescription]) {
        if let properties = indexedProperties(of: entity) { return (properties.ruledAttributes, properties.ruledRelationships) }
        return (allAttributes(of: entity).filter(\.hasRules), allRelationships(of: entity).filter(\.hasRules))
    }

    /// Whether an object of `entity` has any rule of the model to break (``ruledProperties(of:)``
    /// is not empty): a save passes over the objects of an entity without rules.
    func hasRules(_ entity: EntityDescription) -> Bool {
        let (attributes, relationships) = ruledProperties(of: entity)
        return !attributes.isEmpty || !relationships.isEmpty
    }

    /// The entity, `entity` or one of its ancestors, that declares the relationship `name`.
    public func entityDeclaring(relationship name: String, from entity: EntityDescription) -> EntityDescription? {
        (ancestors(of: entity).reversed() + [entity]).last { $0.relationship(named: name) != nil }
    }

    /// The relationship named `name` on the entity or an ancestor.
    public func relationship(named name: String, in entity: EntityDescription) -> RelationshipDescription? {
        if let properties = indexedProperties(of: entity) { return properties.relationshipsByName[name] }
        return allRelationships(of: entity).last { $0.name == name }
    }

    /// The entity's fetched properties, inherited ones first (from the root down), then its own.
    public func allFetchedProperties(of entity: EntityDescription) -> [FetchedPropertyDescription] {
        (ancestors(of: entity).reversed() + [entity]).flatMap(\.fetchedProperties)
    }

    /// The fetched property named `name` on the entity or an ancestor.
    public func fetchedProperty(named name: String, in entity: EntityDescription) -> FetchedPropertyDescription? {
        // Most entities have none: the walk up the hierarchy is skipped for them.
        if entity.fetchedProperties.isEmpty, entity.superentityName == nil { return nil }
        return allFetchedProperties(of: entity).last { $0.name == name }
    }

    /// Whether `entity` is `ancestor` or one of its sub-entities.
    public func entity(_ entity: EntityDescription, isKindOf ancestor: EntityDescription) -> Bool {
        entity.name == ancestor.name || ancestors(of: entity).contains { $0.name == ancestor.name }
    }

    /// The entities whose activity logs at info level: those whose userInfo sets
    /// `strata.verbose` to `YES`, and their sub-entities.
    public var verboseEntityNames: Set<String> {
        var names: Set<String> = []
        for entity in entities where entity.userInfo["strata.verbose"].map(Self.isYes) == true {
            names.insert(entity.name)
            names.formUnion(allSubentities(of: entity).map(\.name))
        }
        return names
    }

    /// Whether a model file's boolean text means yes (`YES`, `true`, `1`, any case).
    static func isYes(_ text: String) -> Bool {
        AttributeValue(modelText: text, type: .boolean) == .boolean(true)
    }
}

private extension AttributeDescription {
    var hasRules: Bool { !isTransient && (!isOptional || minValue != nil || maxValue != nil || regularExpression != nil) }
}

private extension RelationshipDescription {
    var hasRules: Bool { !isTransient && (!isOptional || minCount > 0 || maxCount > 0) }
}
