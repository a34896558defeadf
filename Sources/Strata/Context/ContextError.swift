import Foundation

/// An error of a context operation, naming the objects and properties it concerns.
public enum ContextError: Error, Sendable {
    /// The entity is abstract: only objects of its sub-entities exist, as Core Data refuses
    /// to insert an abstract entity's instance.
    case abstractEntity(String, subentities: [String])
    /// A value of the wrong type for a property.
    case wrongType(entity: String, property: String, value: String, expected: String)
    /// No object with that ID exists in the store (or it was deleted).
    case objectNotFound(ObjectID)
    /// An object of another context was given.
    case foreignObject(ObjectID)
    /// The object is in no context any more: it was deleted and the deletion saved, or its
    /// context was reset (as ``DataStack/resetStore()`` does) or released. Its ID may name a row
    /// of a store that no longer exists; fetch anew.
    case forgottenObject(ObjectID)
    /// A worker's object was to leave the block it was made in (``DataStack/background(_:)``),
    /// where its context goes with the block: its ID travels instead.
    case objectOutlivesItsContext(ObjectID)
    /// The ID names a row of another store than the context's: one kept from a store that was
    /// reset or removed, or from another file. Core Data refuses such IDs alike.
    case objectOfAnotherStore(ObjectID, contextStore: String)
    /// The save found objects that break the model's rules; every one is listed.
    case validation([ValidationFailure])
    /// A delete rule of Deny stopped the save: the object still holds objects in the relationship.
    case deleteDenied(object: ObjectID, relationship: String, count: Int)
    /// Another context or process saved an object since this context read it.
    case conflict(object: ObjectID, expectedVersion: Int64, storeVersion: Int64?)
    /// The save would give `object` the values of `properties` another object of its entity
    /// holds, which a uniqueness constraint of the model forbids (Core Data's
    /// `NSManagedObjectConstraintMergeError`); nothing was saved.
    case uniquenessConflict(object: ObjectID, properties: [String], values: [String])
    /// A derived attribute was set: its value is computed by the store from its derivation
    /// expression (`chapters.@count`, say) when objects are saved, as Core Data computes it.
    case derivedAttribute(entity: String, attribute: String, derivation: String)
    /// The store failed, or a name was not found in the store's model: the ``StoreError`` (a ``DatabaseError`` inside ``StoreError/database(_:)``
    /// with its SQL, arguments and result codes) as the store threw it.
    case store(StoreError)
    /// An operation that works on the store itself was asked of a child context, which has
    /// none (``ObjectContext/obtainPermanentIDs(for:)``): save the child first.
    case needsContextOnStore(operation: String)
    /// A failure from below that is neither the store's nor the context's, kept as thrown.
    case underlying(any Error)
    /// A predicate's MATCHES or LIKE gave no answer: its pattern does not compile, is too long,
    /// or costs more than its budget on a value. Nothing was fetched, counted or deleted.
    case stringMatching(StringMatchError)
    /// A value given for a Transformable attribute cannot be kept as the attribute keeps its
    /// values (an app's own transformer, bytes inside an array).
    case transformableValue(entity: String, property: String, TransformableValueError)
    /// A fetched property could not be evaluated (its destination, a variable or a key path of
    /// its predicate is unknown), or was assigned.
    case fetchedProperty(FetchedPropertyError)
}

/// One object that failed validation, and why.
public struct ValidationFailure: Sendable, Equatable, CustomStringConvertible {
    /// The object that failed.
    public var object: ObjectID
    /// The property at fault; `nil` for a rule about the whole object.
    public var property: String?
    /// Why, in words: `title is required`.
    public var reason: String

    /// A failure of `object` (at `property`, when one is at fault) for `reason`.
    init(object: ObjectID, property: String?, reason: String) {
        self.object = object
        self.property = property
        self.reason = reason
    }

    /// `<Book t1a2b3c4d> title: is required`.
    public var description: String {
        "\(object)\(property.map { " \($0)" } ?? ""): \(reason)"
    }
}

extension ContextError: CustomStringConvertible, LocalizedError {
    public var description: String {
        switch self {
        case .abstractEntity(let name, let subentities):
            "entity '\(name)' is abstract: create an object of "
                + (subentities.isEmpty ? "a sub-entity (it has none)" : "one of its sub-entities (\(subentities.joined(separator: ", ")))")
        case .wrongType(let entity, let property, let value, let expected):
            "\(entity).\(property) takes \(expected), not \(value)"
        case .objectNotFound(let id): "\(id) does not exist"
        case .foreignObject(let id): "\(id) belongs to another context"
        case .forgottenObject(let id):
            "\(id) is in no context any more (deleted and saved, or its context was reset or released): fetch it again"
        case .objectOutlivesItsContext(let id):
            "\(id) was returned from a background block, whose context goes with the block: return its objectID and use object(with:) in your own context"
        case .objectOfAnotherStore(let id, let contextStore):
            "\(id.uriString) names an object of the store \(id.storeIdentifier), not of this context's store \(contextStore) "
                + "(an ID kept from a store that was reset or removed, or from another file)"
        case .validation(let failures):
            "\(failures.count) validation error\(failures.count == 1 ? "" : "s"): " + failures.map(\.description).joined(separator: "; ")
        case .deleteDenied(let object, let relationship, let count):
            "cannot delete \(object): its relationship '\(relationship)' (delete rule Deny) still holds \(count) object\(count == 1 ? "" : "s")"
        case .conflict(let object, let expected, let actual):
            "\(object) was changed by another context or process (version \(actual.map(String.init) ?? "deleted"), read \(expected))"
        case .uniquenessConflict(let object, let properties, let values):
            "\(object): another \(object.entityName) already has \(zip(properties, values).map { "\($0) \($1)" }.joined(separator: " and ")), "
                + "which the uniqueness constraint on \(properties.joined(separator: ", ")) forbids"
        case .derivedAttribute(let entity, let attribute, let derivation):
            "\(entity).\(attribute) is derived (\(derivation.isEmpty ? "with no expression" : derivation)): the store computes it when objects are saved, so it cannot be set"
        case .store(let error): error.description
        case .needsContextOnStore(let operation): "\(operation) needs a context on the store; save the child first"
        case .underlying(let error): String(describing: error)
        case .stringMatching(let error): error.description
        case .transformableValue(let entity, let property, let error): "\(entity).\(property): \(error.message)"
        case .fetchedProperty(let error): error.description
        }
    }

    public var errorDescription: String? { description }
}

extension ContextError {
    /// A name the model of `context`'s store lacks, as the store reports it
    /// (``StoreError/unknownEntity(path:name:known:)``, inside ``store(_:)``), with the entities
    /// it has.
    static func unknown(entity name: String, in context: ObjectContext) -> ContextError {
        .store(.unknownEntity(path: context.store.path, name: name, known: context.model.entities.map(\.name).sorted()))
    }

    /// A property `entity` lacks, as the store reports it
    /// (``StoreError/unknownProperty(path:entity:property:known:)``, inside ``store(_:)``), with
    /// the properties a context reads: attributes (transient ones too), relationships, fetched
    /// properties, inherited ones included.
    static func unknown(property key: String, of entity: EntityDescription, in context: ObjectContext) -> ContextError {
        let model = context.model
        let known = model.allAttributes(of: entity).map(\.name) + model.allRelationships(of: entity).map(\.name)
            + model.allFetchedProperties(of: entity).map(\.name)
        return .store(.unknownProperty(path: context.store.path, entity: entity.name, property: key, known: known))
    }

    /// A failure of the store, as a context reports it: a pattern that could not be matched
    /// as ``stringMatching(_:)``, the store's own errors as ``store(_:)``, kept whole.
    init(storeFailure error: any Error) {
        switch error {
        case let error as DatabaseError where error.cause != nil: self = .stringMatching(error.cause!)
        case StoreError.database(let error) where error.cause != nil: self = .stringMatching(error.cause!)
        case let error as ContextError: self = error
        case let error as StoreError: self = .store(error)
        case let error as DatabaseError: self = .store(.database(error))
        default: self = .underlying(error)
        }
    }
}

extension ContextError: Equatable {
    /// Errors of one case with equal values are equal. The store's errors and failures from
    /// below carry errors of any type, which do not compare: those are equal when they read
    /// the same.
    public static func == (lhs: ContextError, rhs: ContextError) -> Bool {
        switch (lhs, rhs) {
        case (.abstractEntity(let a, let x), .abstractEntity(let b, let y)): a == b && x == y
        case (.wrongType(let a, let b, let c, let d), .wrongType(let e, let f, let g, let h)): (a, b, c, d) == (e, f, g, h)
        case (.objectNotFound(let a), .objectNotFound(let b)), (.foreignObject(let a), .foreignObject(let b)),
            (.forgottenObject(let a), .forgottenObject(let b)), (.objectOutlivesItsContext(let a), .objectOutlivesItsContext(let b)):
            a == b
        case (.objectOfAnotherStore(let a, let x), .objectOfAnotherStore(let b, let y)): a == b && x == y
        case (.validation(let a), .validation(let b)): a == b
        case (.deleteDenied(let a, let x, let m), .deleteDenied(let b, let y, let n)): a == b && x == y && m == n
        case (.conflict(let a, let x, let m), .conflict(let b, let y, let n)): a == b && x == y && m == n
        case (.uniquenessConflict(let a, let x, let m), .uniquenessConflict(let b, let y, let n)): a == b && x == y && m == n
        case (.derivedAttribute(let a, let b, let c), .derivedAttribute(let d, let e, let f)): (a, b, c) == (d, e, f)
        case (.needsContextOnStore(let a), .needsContextOnStore(let b)): a == b
        case (.stringMatching(let a), .stringMatching(let b)): a == b
        case (.transformableValue(let a, let x, let m), .transformableValue(let b, let y, let n)): a == b && x == y && m == n
        case (.fetchedProperty(let a), .fetchedProperty(let b)): a == b
        case (.store, .store), (.underlying, .underlying): lhs.description == rhs.description
        default: false
        }
    }
}
