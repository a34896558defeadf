import Foundation

// MARK: - Document-local identifiers

/// Objects that several objects may link to but that have no identity value to be named by
/// carry a document-local `"@id"` (``ImportSession/localIDKey``): their record holds
/// `"@id": "Artist/3"` (their entity and primary key), and every other link to them is the
/// reference `{"@id": "Artist/3"}`, which the import resolves in any order.
extension Exporter {
    /// The entities whose objects more than one object may link to, or that links name by
    /// reference (a destination with sub-entities, which a nested record cannot name): the
    /// destinations, with their sub-entities, of a relationship whose inverse is a to-many or
    /// missing, of a destination with sub-entities, or of two relationships of the model that
    /// are not each other's inverse.
    static func sharedEntities(of model: ObjectModel) -> Set<String> {
        var shared: Set<String> = [], holders: [String: Int] = [:]
        for entity in model.entities {
            for relationship in entity.relationships where !relationship.isTransient && isExportable(relationship.userInfo) {
                guard let destination = model.entity(named: relationship.destinationEntityName) else { continue }
                let subentities = model.allSubentities(of: destination)
                let family = [destination.name] + subentities.map(\.name)
                let inverse = relationship.inverseName.flatMap { model.relationship(named: $0, in: destination) }
                if inverse == nil || inverse?.isToMany == true || !subentities.isEmpty || destination.isAbstract { shared.formUnion(family) }
                for name in family { holders[name, default: 0] += 1 }
            }
        }
        return shared.union(holders.filter { $0.value > 1 }.keys)
    }

    /// The `@id` of `object` when its record carries one: it has no identity value (nor is
    /// its entity's singleton), and its entity is one of ``sharedEntities``.
    func localID(of object: ManagedObject) throws -> String? {
        let entityName = object.entity.name
        guard sharedEntities.contains(entityName), try mapping(for: entityName).identity != .singleton,
            try identityValue(of: object, in: entityName) == nil
        else { return nil }
        return Self.localID(of: object.objectID)
    }

    /// Whether the records of `entityName`'s objects carry an `@id` when they have no
    /// identity value: what rows need to know before making a record.
    func carriesLocalIDs(_ entityName: String) throws -> Bool {
        try sharedEntities.contains(entityName) && mapping(for: entityName).identity != .singleton
    }

    /// `Entity/<primary key>`, or `Entity/t<UUID>` for an object not saved yet: unique in an
    /// export and the same for every link to the object.
    static func localID(of id: ObjectID) -> String {
        switch id.key {
        case .permanent(let primaryKey): localID(entityName: id.entityName, primaryKey: primaryKey)
        case .temporary(let uuid): "\(id.entityName)/t\(uuid.uuidString)"
        }
    }

    /// The `@id` of the saved object of `entityName` whose row has `primaryKey`.
    static func localID(entityName: String, primaryKey: Int64) -> String {
        "\(entityName)/\(primaryKey)"
    }

    /// `{"@id": localID}`: a reference, or the first member of a record.
    static func localIDMember(_ localID: String) -> JSONMember {
        JSONMember(ImportSession.localIDKey, .string(localID))
    }
}
