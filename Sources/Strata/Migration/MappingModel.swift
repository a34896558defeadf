import Foundation

/// How a store of one model version becomes a store of another, as an app's mapping model
/// (Core Data's `NSMappingModel`) says: entity mappings in order, each with its kind, source and
/// destination entities, optional filter predicate, custom policy class and user info, and the
/// value expressions of the destination's attributes and relationships.
///
/// Xcode saves a mapping model as an `.xcmappingmodel` folder holding `xcmapping.xml`; read one
/// with ``load(contentsOf:)``. A mapping model applies to a migration step when its source and
/// destination models have the step's entity version hashes, as Core Data matches them
/// (``matches(source:destination:)``); ``StoreMigrator`` then carries it out instead of
/// inferring a lightweight mapping.
///
/// ```swift
/// let mapping = try MappingModel.load(contentsOf: URL(fileURLWithPath: "Model1_to_Model2.xcmappingmodel"))
/// mapping.entityMappings.map(\.name)   // ["UserToUser", "Author", "BookToBook"]
/// mapping.matches(source: version1.model, destination: version2.model)   // true
/// ```
public struct MappingModel: Sendable {
    /// The mapping model's name: its file's, without the extension.
    public var name: String
    /// Where it was read from; empty for one made in code.
    public var path: String
    /// The source model, as the mapping model keeps it; its hashes are what a step must match.
    public var sourceModel: ObjectModel
    /// The destination model, as the mapping model keeps it.
    public var destinationModel: ObjectModel
    /// The entity mappings, in the order they run.
    public var entityMappings: [EntityMapping]

    /// What an entity mapping does: Core Data's `NSEntityMappingType`.
    public enum Kind: String, Sendable, CaseIterable {
        /// Objects are made by a custom `NSEntityMigrationPolicy`.
        case custom
        /// A new entity: its objects come from nowhere (or a policy).
        case add
        /// An entity that goes, with its objects.
        case remove
        /// The objects are copied unchanged.
        case copy
        /// The objects are made from the source's with the value expressions.
        case transform
    }

    /// One entity mapping: Core Data's `NSEntityMapping`.
    public struct EntityMapping: Sendable {
        /// Its name, which relationship expressions use (`BookToBook`).
        public var name: String
        /// What the mapping does: copy, transform, add or remove the entity's objects, or a custom policy's work.
        public var kind: Kind
        /// The source entity, or `nil` for ``Kind/add``.
        public var sourceEntityName: String?
        /// The destination entity, or `nil` for ``Kind/remove``.
        public var destinationEntityName: String?
        /// The custom `NSEntityMigrationPolicy` subclass it names, which Strata cannot run: a
        /// ``MigrationPolicy`` takes its place, or the step is refused.
        public var policyClassName: String?
        /// Which source objects it takes (all when `nil`).
        public var filterPredicate: ObjectPredicate?
        /// The user info the mapping model sets on it, values as text.
        public var userInfo: [String: String]
        /// Where the destination's attributes get their values.
        public var attributeMappings: [PropertyMapping]
        /// Where the destination's relationships get their objects.
        public var relationshipMappings: [PropertyMapping]

        /// An entity mapping; `name` defaults to Xcode's `<Source>To<Destination>`.
        public init(
            name: String? = nil, kind: Kind, sourceEntityName: String?, destinationEntityName: String?, policyClassName: String? = nil,
            filterPredicate: ObjectPredicate? = nil, userInfo: [String: String] = [:], attributeMappings: [PropertyMapping] = [],
            relationshipMappings: [PropertyMapping] = []
        ) {
            self.name = name ?? Self.defaultName(source: sourceEntityName, destination: destinationEntityName)
            self.kind = kind
            self.sourceEntityName = sourceEntityName
            self.destinationEntityName = destinationEntityName
            self.policyClassName = policyClassName
            self.filterPredicate = filterPredicate
            self.userInfo = userInfo
            self.attributeMappings = attributeMappings
            self.relationshipMappings = relationshipMappings
        }

        /// Xcode's name for an entity mapping: `BookToBook`; a new entity's mapping is named
        /// after the destination, a removed one's after the source. (Xcode keeps no name in
        /// `xcmapping.xml`; the names it compiles into `.cdm` files are not at hand, so this
        /// rule is inferred from its editor.)
        static func defaultName(source: String?, destination: String?) -> String {
            switch (source, destination) {
            case (let source?, let destination?): "\(source)To\(destination)"
            case (nil, let destination?): destination
            case (let source?, nil): source
            case (nil, nil): "Unnamed"
            }
        }
    }

    /// How a destination property gets its value: Core Data's `NSPropertyMapping`.
    public struct PropertyMapping: Sendable {
        /// The destination attribute or relationship.
        public var name: String
        /// The value expression, evaluated with `$source` (the source object), `$manager` and
        /// `$entityMapping`; `nil` leaves the property unset.
        public var valueExpression: ObjectPredicate.Expression?
        /// The user info the mapping model sets on it.
        public var userInfo: [String: String]

        /// A property mapping that sets `name` to `valueExpression` evaluated on each source object.
        public init(name: String, valueExpression: ObjectPredicate.Expression?, userInfo: [String: String] = [:]) {
            self.name = name
            self.valueExpression = valueExpression
            self.userInfo = userInfo
        }

        /// A mapping whose expression is parsed from `format` (`$source.title`,
        /// `FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", "AuthorToAuthor", $source.authors)`).
        ///
        /// - Throws: ``PredicateSyntaxError`` with a caret under the token where parsing stopped.
        public init(name: String, format: String) throws(PredicateSyntaxError) {
            self.init(name: name, valueExpression: try ObjectPredicate.Expression(format: format, receiverMethods: MappingModel.managerMethods))
        }
    }

    /// The migration manager's methods that value expressions call as
    /// `FUNCTION($manager, "…", …)`.
    static let managerMethods: Set<String> = [
        "destinationInstancesForEntityMappingNamed:sourceInstances:",
        "destinationInstancesForSourceRelationshipNamed:sourceInstances:",
    ]

    /// A mapping model from `sourceModel` to `destinationModel` with `entityMappings`.
    public init(name: String, path: String = "", sourceModel: ObjectModel, destinationModel: ObjectModel, entityMappings: [EntityMapping]) {
        self.name = name
        self.path = path
        self.sourceModel = sourceModel
        self.destinationModel = destinationModel
        self.entityMappings = entityMappings
    }

    /// Whether the mapping model is the one for a step from `source` to `destination`: both
    /// have the entity version hashes of the models it keeps, as Core Data's
    /// `NSMappingModel(from:forSourceModel:destinationModel:)` matches.
    public func matches(source: ObjectModel, destination: ObjectModel) -> Bool {
        sourceModel.entityVersionHashes() == source.entityVersionHashes()
            && destinationModel.entityVersionHashes() == destination.entityVersionHashes()
    }

    /// The entity mapping named `name`.
    public func entityMapping(named name: String) -> EntityMapping? {
        entityMappings.first { $0.name == name }
    }

    /// The custom policy classes it names, as `(entity mapping, class)`.
    public var policyClasses: [(mapping: String, className: String)] {
        entityMappings.compactMap { mapping in mapping.policyClassName.map { (mapping.name, $0) } }
    }

    /// One line per entity mapping, for a plan: `BookToBook: transform Book → Book, policy MHWBookToBookPolicy`.
    public var summary: [String] {
        entityMappings.map { mapping in
            var line = "\(mapping.name): \(mapping.kind.rawValue) \(mapping.sourceEntityName ?? "—") → \(mapping.destinationEntityName ?? "—")"
            if let policy = mapping.policyClassName { line += ", custom policy \(policy)" }
            if let filter = mapping.filterPredicate { line += ", where \(filter)" }
            return line
        }
    }
}
