import Foundation

// Fetched properties (Core Data's `NSFetchedPropertyDescription`), as Apple documents them:
// evaluated on first access as a fetch of the destination entity with the property's
// predicate, `$FETCH_SOURCE` standing for the object and `$FETCHED_PROPERTY` for the property
// description (`$FETCHED_PROPERTY.userInfo.KEY` reads its user info); the result is an array,
// kept until the object is refreshed, not stored in the object's row, and not settable.
// Xcode's model editor gives a fetched property's request no sort descriptors, so the objects
// come in the order the fetch finds them (the store's order, then unsaved ones).

extension ManagedObject {
    /// The objects of the fetched property `name`: the destination entity's objects that its
    /// predicate selects, with `$FETCH_SOURCE` standing for this object. Core Data's
    /// `value(forKey:)` on a fetched property, which ``value(forKey:)`` also answers.
    ///
    /// The first read fetches; later reads return the same objects until
    /// ``ObjectContext/refresh(_:mergeChanges:)`` refreshes the object, as Core Data keeps a
    /// fetched property's result: objects saved or changed since do not show until then.
    /// Unsaved changes of the context count in the fetch, as in ``ObjectContext/fetch(_:)``.
    ///
    /// ```swift
    /// // <fetchedProperty name="unreadChapters"> fetching Chapter
    /// //     where mangaId == $FETCH_SOURCE.id AND read == NO
    /// let unread = try manga.fetchedObjects(forProperty: "unreadChapters")
    /// context.refresh(manga, mergeChanges: true)     // the next read fetches again
    /// ```
    ///
    /// - Throws: ``StoreError/unknownProperty(path:entity:property:known:)`` (inside ``ContextError/store(_:)``) when the entity has no
    ///   fetched property `name`; ``ContextError/fetchedProperty(_:)`` naming entity, property
    ///   and the predicate's token at fault when the destination entity is unknown, the
    ///   predicate does not parse, names a variable other than `$FETCH_SOURCE` and
    ///   `$FETCHED_PROPERTY.userInfo.KEY`, or a key path that the source or the destination
    ///   lacks, or when the fetch fails.
    public func fetchedObjects(forProperty name: String) throws(ContextError) -> [ManagedObject] {
        let context = try requireContext()
        context.assertOnQueue()
        guard let property = context.model.fetchedProperty(named: name, in: entity) else {
            throw .unknown(property: name, of: entity, in: context)
        }
        if let ids = fetchedResults[name] { return ids.map(context.object(with:)) }
        let request = try fetchRequest(of: property, in: context)
        let objects: [ManagedObject]
        do {
            objects = try context.fetch(request)
        } catch {
            let token = (error as? PredicateKeyError).map(\.keyPath)
            throw .fetchedProperty(failure(of: property, token: token, .fetch(error)))
        }
        fetchedResults[name] = objects.map(\.objectID)
        return objects
    }

    /// The fetch request that gives the fetched property's value for this object: its
    /// destination entity and its predicate, with the variables filled in from this object and
    /// the property description.
    private func fetchRequest(of property: FetchedPropertyDescription, in context: ObjectContext) throws(ContextError) -> FetchRequest {
        let model = context.model
        let destination = property.fetchRequest.entityName
        guard model.entity(named: destination) != nil else {
            throw .fetchedProperty(failure(of: property, token: destination, .unknownDestination(known: model.entities.map(\.name).sorted())))
        }
        var request = FetchRequest(entityName: destination)
        request.includesSubentities = property.fetchRequest.includesSubentities ?? true
        request.includesPendingChanges = property.fetchRequest.includesPendingChanges ?? true
        request.fetchLimit = property.fetchRequest.fetchLimit ?? 0
        request.fetchOffset = property.fetchRequest.fetchOffset ?? 0
        guard let format = property.fetchRequest.predicate else { return request }
        let parsed: ObjectPredicate
        do {
            parsed = try ObjectPredicate(format: format)
        } catch {
            throw .fetchedProperty(failure(of: property, .syntax(error)))
        }
        do throws(FetchedPropertyError) {
            request.predicate = try parsed.resolvingVariables { name, path throws(FetchedPropertyError) in
                try self.value(ofVariable: name, path: path, for: property)
            }
        } catch {
            throw .fetchedProperty(error)
        }
        return request
    }

    /// What `$name.path` stands for in the predicate of `property` evaluated for this object.
    private func value(
        ofVariable name: String, path: [String], for property: FetchedPropertyDescription
    ) throws(FetchedPropertyError) -> ObjectPredicate.Expression {
        let token = (["$" + name] + path).joined(separator: ".")
        switch name {
        case "FETCH_SOURCE":
            guard !path.isEmpty else { return .value(.objectID(objectID)) }
            do {
                return .value(try PredicateEvaluator.constant(ofKeyPath: path, on: self))
            } catch {
                throw failure(of: property, token: token, .sourceValue(error))
            }
        case "FETCHED_PROPERTY" where path.count == 2 && path[0] == "userInfo":
            return .value(property.userInfo[path[1]].map(PredicateValue.string) ?? .null)
        default:
            throw failure(of: property, token: token, .unknownVariable)
        }
    }

    private func failure(
        of property: FetchedPropertyDescription, token: String? = nil, _ reason: FetchedPropertyError.Reason
    ) -> FetchedPropertyError {
        FetchedPropertyError(
            entity: entity.name, property: property.name, destination: property.fetchRequest.entityName,
            predicate: property.fetchRequest.predicate, token: token, reason: reason)
    }
}
