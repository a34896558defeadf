import Foundation

/// Carries out mapping models on a store, object by object, as Core Data's
/// `NSMigrationManager` does: for each entity mapping in order, the source objects it takes
/// (its source entity's, sub-entities not included, passing its filter predicate) become
/// destination objects whose attributes the value expressions give (``createDestinationInstances()``);
/// then each destination object gets its relationships from the relationship mappings'
/// expressions (``createRelationships()``); the caller saves the destination context.
///
/// Several mapping models for one step run as passes in the order given, sharing the
/// destination context and the associations (Core Data leaves passes to the app: the
/// BookMigration example migrates `User` in a pass of its own, before the pass whose policy
/// looks users up).
///
/// Value expressions see `$source` (the source object), `$manager` and `$entityMapping` (its
/// name), and call the manager's `destinationInstancesForEntityMappingNamed:sourceInstances:`
/// and `destinationInstancesForSourceRelationshipNamed:sourceInstances:`; everything else is
/// the predicate evaluator's (key paths, constants, arithmetic, the functions predicates know).
///
/// ```swift
/// let manager = MigrationManager(mappingModels: [mapping], source: sourceContext, destination: destinationContext, policy: nil)
/// try manager.migrate()    // both stages, inside both contexts' queues
/// try destinationContext.performAndWait { try destinationContext.save() }
/// ```
public final class MigrationManager {
    /// The mapping models, as passes in order.
    public let mappingModels: [MappingModel]
    /// A context on the store being migrated; its objects are the `$source` of expressions.
    public let sourceContext: ObjectContext
    /// A context on the new store, into which destination objects are inserted.
    public let destinationContext: ObjectContext
    /// What takes the place of custom policy classes.
    public let policy: (any MigrationPolicy)?

    /// Destination objects per source object, per entity mapping name.
    private var destinations: [String: [ObjectID: [ManagedObject]]] = [:]
    /// The source objects each entity mapping associated, in the order it met them.
    private var associatedSources: [String: [ManagedObject]] = [:]
    /// The source object each associated destination object was made from.
    private var sourceOfDestination: [ObjectIdentifier: ManagedObject] = [:]
    /// The entity mapping running, for `destinationInstancesForSourceRelationshipNamed:`.
    private var current: MappingModel.EntityMapping?

    /// A manager of `mappingModels` from `source` to `destination`.
    public init(mappingModels: [MappingModel], source: ObjectContext, destination: ObjectContext, policy: (any MigrationPolicy)?) {
        self.mappingModels = mappingModels
        self.sourceContext = source
        self.destinationContext = destination
        self.policy = policy
    }

    /// Every entity mapping of every pass, in the order they run.
    public var entityMappings: [MappingModel.EntityMapping] { mappingModels.flatMap(\.entityMappings) }

    /// Runs both stages, holding both contexts' queues.
    ///
    /// - Throws: the first error of an expression, a policy or a context, as it was thrown.
    public func migrate() throws {
        try destinationContext.performAndWait {
            try sourceContext.performAndWait {
                try createDestinationInstances()
                try createRelationships()
            }
        }
    }

    // MARK: - Stages

    /// The first stage: destination objects for every source object each entity mapping takes.
    public func createDestinationInstances() throws {
        for mapping in entityMappings {
            current = mapping
            defer { current = nil }
            guard mapping.kind != .remove, let sourceName = mapping.sourceEntityName, mapping.destinationEntityName != nil else { continue }
            var request = FetchRequest(entityName: sourceName)
            request.includesSubentities = false
            for source in try sourceContext.fetch(request) {
                if let filter = mapping.filterPredicate, try !filter.evaluate(with: source) { continue }
                if let policy, policy.handles(mapping) {
                    try policy.createDestinationInstances(forSource: source, mapping: mapping, manager: self)
                } else {
                    try createDefaultDestinationInstance(forSource: source, mapping: mapping)
                }
            }
        }
    }

    /// The second stage: each associated destination object's relationships.
    public func createRelationships() throws {
        for mapping in entityMappings {
            current = mapping
            defer { current = nil }
            for source in associatedSources[mapping.name] ?? [] {
                for destination in destinations[mapping.name]?[source.objectID] ?? [] {
                    if let policy, policy.handles(mapping) {
                        try policy.createRelationships(forDestination: destination, mapping: mapping, manager: self)
                    } else {
                        try createDefaultRelationships(forDestination: destination, mapping: mapping)
                    }
                }
            }
        }
    }

    // MARK: - What policies call

    /// Inserts a new object of the destination entity `entityName`.
    public func insertDestinationObject(_ entityName: String) throws -> ManagedObject {
        try destinationContext.insert(entityName)
    }

    /// Records that `destination` was made from `source` by the entity mapping `mapping`
    /// (a name): relationship expressions find it, and it gets its relationships in the
    /// second stage.
    public func associate(source: ManagedObject, destination: ManagedObject, mapping: String) {
        if destinations[mapping]?[source.objectID] == nil { associatedSources[mapping, default: []].append(source) }
        destinations[mapping, default: [:]][source.objectID, default: []].append(destination)
        sourceOfDestination[ObjectIdentifier(destination)] = source
    }

    /// Sets the destination attribute `destinationKey` (`key` by default) of `destination` to
    /// the stored value of `source`'s attribute `key`, as it is: a Transformable's archive byte
    /// for byte, which a round trip through its decoded value might not keep.
    public func copyValue(forKey key: String, from source: ManagedObject, to destination: ManagedObject, as destinationKey: String? = nil) throws {
        try destination.setValue(try source.attributeValue(forKey: key)?.swiftValue, forKey: destinationKey ?? key)
    }

    /// The destination objects the entity mapping `name` made from `sources`, in order.
    public func destinationInstances(forEntityMappingNamed name: String, sourceInstances sources: [ManagedObject]) -> [ManagedObject] {
        sources.flatMap { destinations[name]?[$0.objectID] ?? [] }
    }

    /// The destination objects made from `sources`, the objects of the source relationship
    /// `relationship` of the running entity mapping's source entity, by the entity mappings
    /// of that relationship's destination entity.
    public func destinationInstances(forSourceRelationshipNamed relationship: String, sourceInstances sources: [ManagedObject]) -> [ManagedObject] {
        guard let mapping = current, let sourceName = mapping.sourceEntityName,
            let model = mappingModels.first(where: { $0.entityMappings.contains { $0.name == mapping.name } })?.sourceModel,
            let entity = model.entity(named: sourceName), let target = model.allRelationships(of: entity).first(where: { $0.name == relationship })
        else { return [] }
        let names = entityMappings.filter { $0.sourceEntityName == target.destinationEntityName }.map(\.name)
        return sources.flatMap { source in names.flatMap { destinations[$0]?[source.objectID] ?? [] } }
    }

    /// What `NSEntityMigrationPolicy` does for a source object: a destination object whose
    /// attributes take the values of the mapping's attribute expressions, associated with it.
    @discardableResult
    public func createDefaultDestinationInstance(forSource source: ManagedObject, mapping: MappingModel.EntityMapping) throws -> ManagedObject {
        guard let entityName = mapping.destinationEntityName else {
            throw MigrationManagerError(mapping: mapping.name, property: nil, reason: .noDestinationEntity)
        }
        let destination = try insertDestinationObject(entityName)
        for property in mapping.attributeMappings {
            guard let expression = property.valueExpression else { continue }
            try destination.setValue(try attributeValue(of: expression, source: source, mapping: mapping, attribute: property.name, in: destination)?.swiftValue, forKey: property.name)
        }
        associate(source: source, destination: destination, mapping: mapping.name)
        return destination
    }

    /// What `NSEntityMigrationPolicy` does for a destination object: each relationship with a
    /// value expression takes the objects it gives (the first, for a to-one); a relationship
    /// without one is left as it is.
    public func createDefaultRelationships(forDestination destination: ManagedObject, mapping: MappingModel.EntityMapping) throws {
        guard let source = sourceOfDestination[ObjectIdentifier(destination)] else { return }
        let model = destinationContext.model
        for property in mapping.relationshipMappings {
            guard let expression = property.valueExpression else { continue }
            guard let relationship = model.relationship(named: property.name, in: destination.entity) else {
                throw MigrationManagerError(mapping: mapping.name, property: property.name, reason: .notARelationship(of: destination.entity.name))
            }
            let objects = try self.objects(of: expression, source: source, mapping: mapping, property: property.name)
            try destination.setValue(relationship.isToMany ? objects : objects.first, forKey: property.name)
        }
    }

    /// Each source object an entity mapping associated with destination objects, with the
    /// first of them and that mapping, in the order the mappings ran: the object of the new
    /// store that stands for it (its history's changes are re-pointed to it).
    func firstDestinations() -> [(source: ObjectID, destination: ManagedObject, mapping: MappingModel.EntityMapping)] {
        var seen: Set<ObjectID> = []
        var result: [(source: ObjectID, destination: ManagedObject, mapping: MappingModel.EntityMapping)] = []
        for mapping in entityMappings {
            for source in associatedSources[mapping.name] ?? [] where !seen.contains(source.objectID) {
                guard let destination = destinations[mapping.name]?[source.objectID]?.first else { continue }
                seen.insert(source.objectID)
                result.append((source.objectID, destination, mapping))
            }
        }
        return result
    }

    // MARK: - Expressions

    /// The value `expression` gives for the destination attribute `attribute`.
    private func attributeValue(
        of expression: ObjectPredicate.Expression, source: ManagedObject, mapping: MappingModel.EntityMapping, attribute: String, in destination: ManagedObject
    ) throws -> AttributeValue? {
        guard let type = destinationContext.model.attribute(named: attribute, in: destination.entity)?.type else {
            throw MigrationManagerError(mapping: mapping.name, property: attribute, reason: .notAnAttribute(of: destination.entity.name))
        }
        // `$source.key` keeps the stored value as it is (a Transformable's bytes, a Decimal).
        let value: PredicateValue
        if case .keyPath(let path) = expression, path.count == 2, path[0] == "$source", sourceContext.model.attribute(named: path[1], in: source.entity) != nil {
            guard let stored = try source.attributeValue(forKey: path[1]) else { return nil }
            if AttributeValue.fits(stored, type) { return stored }
            value = PredicateValue(stored)
        } else {
            switch try evaluate(expression, source: source, mapping: mapping) {
            case .one(let single): value = single
            case .many(let values): value = values.first ?? .null
            }
        }
        guard let swift = value.swiftValue else { return nil }
        guard let typed = AttributeValue(swiftValue: swift, type: type) else {
            throw MigrationManagerError(mapping: mapping.name, property: attribute, reason: .wrongValue("\(value)", type: type))
        }
        return typed
    }

    /// The destination objects `expression` gives for a relationship.
    private func objects(of expression: ObjectPredicate.Expression, source: ManagedObject, mapping: MappingModel.EntityMapping, property: String) throws -> [ManagedObject] {
        if case .function(ExpressionFunction.method.rawValue, let arguments) = expression, arguments.count == 4, case .variable("manager") = arguments[0],
            case .value(.string(let selector)) = arguments[1], case .value(.string(let name)) = arguments[2]
        {
            let sources = try sourceObjects(of: arguments[3], source: source, mapping: mapping)
            switch selector {
            case "destinationInstancesForEntityMappingNamed:sourceInstances:":
                guard entityMappings.contains(where: { $0.name == name }) else {
                    throw MigrationManagerError(mapping: mapping.name, property: property, reason: .unknownEntityMapping(name))
                }
                return destinationInstances(forEntityMappingNamed: name, sourceInstances: sources)
            case "destinationInstancesForSourceRelationshipNamed:sourceInstances:":
                return destinationInstances(forSourceRelationshipNamed: name, sourceInstances: sources)
            default: break
            }
        }
        throw MigrationManagerError(
            mapping: mapping.name, property: property,
            reason: .noDestinationObjects(expression: "\(expression)"))
    }

    /// The source objects an expression such as `$source.books` gives.
    private func sourceObjects(of expression: ObjectPredicate.Expression, source: ManagedObject, mapping: MappingModel.EntityMapping) throws -> [ManagedObject] {
        let ids: [ObjectID]
        switch try evaluate(expression, source: source, mapping: mapping) {
        case .one(.objectID(let id)): ids = [id]
        case .one(.array(let values)), .many(let values): ids = values.compactMap { if case .objectID(let id) = $0 { id } else { nil } }
        default: ids = []
        }
        return ids.map { sourceContext.object(with: $0) }
    }

    private func evaluate(_ expression: ObjectPredicate.Expression, source: ManagedObject, mapping: MappingModel.EntityMapping) throws -> PredicateEvaluator<ManagedObject>.Operand {
        try PredicateEvaluator.evaluate(expression, on: source, variables: [
            "source": .one(.objectID(source.objectID)), "entityMapping": .one(.string(mapping.name)), "manager": .one(.null),
        ])
    }
}

/// An entity mapping or property mapping that cannot be carried out, named, with what is wrong
/// as a value.
///
/// ```swift
/// catch MigrationError.mappingFailed(_, _, let error as MigrationManagerError) {
///     if case .notAnAttribute(let entity) = error.reason { print("\(error.property ?? "") is not an attribute of \(entity)") }
/// }
/// ```
public struct MigrationManagerError: Error, Sendable, CustomStringConvertible {
    /// What is wrong with a mapping.
    public enum Reason: Sendable, Hashable {
        /// The entity mapping names no destination entity.
        case noDestinationEntity
        /// The property mapping names no attribute of the destination entity.
        case notAnAttribute(of: String)
        /// The property mapping names no relationship of the destination entity.
        case notARelationship(of: String)
        /// The value expression gives a value (written as in a predicate) that is not of the
        /// attribute's type.
        case wrongValue(String, type: AttributeType)
        /// The value expression names an entity mapping that the mapping model lacks.
        case unknownEntityMapping(String)
        /// A relationship's value expression (written as in a predicate) gives no destination objects.
        case noDestinationObjects(expression: String)
    }

    /// The entity mapping.
    public var mapping: String
    /// The attribute or relationship mapping, if one is at fault.
    public var property: String?
    /// What is wrong.
    public var reason: Reason

    /// An error about `property` (or the whole mapping when `nil`) of the entity mapping
    /// `mapping`, for `reason`.
    init(mapping: String, property: String?, reason: Reason) {
        self.mapping = mapping
        self.property = property
        self.reason = reason
    }

    /// What is wrong, in words, after the mapping's name.
    public var message: String {
        switch reason {
        case .noDestinationEntity: "has no destination entity"
        case .notAnAttribute(let entity): "is no attribute of \(entity)"
        case .notARelationship(let entity): "is no relationship of \(entity)"
        case .wrongValue(let value, let type): "gets \(value), which is no \(type.rawValue) value"
        case .unknownEntityMapping(let name): "names the entity mapping \(name), which the mapping model does not have"
        case .noDestinationObjects(let expression):
            "has the value expression \(expression), which gives no destination objects; a relationship's expression calls $manager's "
                + "destinationInstancesForEntityMappingNamed:sourceInstances: or destinationInstancesForSourceRelationshipNamed:sourceInstances:"
        }
    }

    public var description: String {
        "entity mapping \(mapping)" + (property.map { ", property mapping \($0)" } ?? "") + ": " + message
    }
}

extension PredicateValue {
    /// The value as Swift hands it to an attribute; `nil` for nil and for objects.
    var swiftValue: Any? {
        switch self {
        case .null, .objectID, .array: nil
        case .bool(let value): value
        case .integer(let value): value
        case .double(let value): value
        case .string(let value): value
        case .date(let value): value
        case .data(let value): value
        case .uuid(let value): value
        }
    }
}
