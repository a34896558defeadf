import Foundation

extension ObjectPredicate {
    /// Whether `object` satisfies this predicate, reading its current values, unsaved changes
    /// included, as `NSPredicate.evaluate(with:)` does. Call it on the object's context's queue.
    ///
    /// ```swift
    /// let classics = try ObjectPredicate(format: "ANY tags.name ==[c] 'classic' AND rating >= 4")
    /// if try classics.evaluate(with: book) { … }
    /// ```
    ///
    /// - Throws: ``StoreError/unknownProperty(path:entity:property:known:)`` (inside ``ContextError/store(_:)``) when a key path names a
    ///   property the object's entity lacks; ``ContextError/stringMatching(_:)`` for a MATCHES
    ///   or LIKE whose pattern does not compile or costs more than its budget.
    public func evaluate(with object: ManagedObject) throws(ContextError) -> Bool {
        try PredicateEvaluator.evaluate(self, on: object)
    }
}

extension ManagedObject: PredicateSubject {
    func predicateProperty(_ key: String) throws(ContextError) -> PredicateProperty<ManagedObject> {
        switch try propertyValue(key) {
        case .attribute(let value): return .attribute(value)
        case .toOne(let id): return .toOne(try id.map(relatedObject))
        case .toMany(let ids): return .toMany(try ids.map(relatedObject))
        case .toManyChanges: preconditionFailure("propertyValue(_:) applies a to-many's changes before it returns")
        }
    }

    func relatedObject(_ id: ObjectID) throws(ContextError) -> ManagedObject {
        try requireContext().object(with: id)
    }

    static func failure(_ error: StringMatchError) -> ContextError { .stringMatching(error) }

    func keyPathCrossesToMany(_ components: [String]) -> Bool {
        guard let model = managedObjectContext?.model, !components.contains(where: { $0.hasPrefix("@") }) else { return false }
        var current = entity
        for key in components {
            guard !key.hasPrefix("@"), let relationship = model.relationship(named: key, in: current) else { return false }
            if relationship.isToMany { return true }
            guard let destination = model.entity(named: relationship.destinationEntityName) else { return false }
            current = destination
        }
        return false
    }
}

/// Its ID, an object compared by identity: `%"author" == tolkien`, `ObjectPredicate(format: "author == %@", tolkien)`.
extension ManagedObject: PredicateValueConvertible { public var predicateValue: PredicateValue { .objectID(objectID) } }
