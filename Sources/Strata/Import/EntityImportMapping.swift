/// How the records of one entity map onto its objects: the identity, and where each property's
/// value lies in a record (see ``ImportKeys``). A class, so that the batches and objects that
/// look it up share it rather than copy its descriptions.
final class EntityImportMapping: Sendable {
    let entity: EntityDescription
    let identity: ImportIdentity
    let attributes: [(attribute: AttributeDescription, keys: ImportKeys)]
    /// What reading each of `attributes` from a record needs, in the same order.
    let readers: [AttributeReader]
    /// The reader of the identity attribute, when records are matched by one.
    let identityReader: AttributeReader?
    let relationships: [RelationshipMapping]
    /// DKDBManager's should-update check: the attribute whose unchanged value means the record
    /// changes nothing (entity userInfo `strata.updatedAtKey`).
    let updatedAtAttribute: String?
    /// The record keys some property reads, lower-cased: the others are reported as ignored.
    let knownKeys: Set<String>

    /// An attribute as records are read into it: its name, type, date format and keys, without
    /// the rest of its description, which each record would otherwise copy.
    struct AttributeReader: Sendable {
        /// The entity whose records it reads (the attribute may be its parent's): what errors name.
        let entity: String
        let name: String
        let type: AttributeType
        /// The attribute's userInfo `dateFormat`, for dates written in one.
        let dateFormat: String?
        /// A Transformable attribute's value transformer, which says how its values are archived.
        let valueTransformerName: String?
        let keys: ImportKeys
    }

    struct RelationshipMapping: Sendable {
        let relationship: RelationshipDescription
        let keys: ImportKeys
        /// Sync's key of bare identity values: `user_id` for a to-one, `tags_ids` for a to-many.
        let identityKey: String
    }

    init(entity: EntityDescription, model: ObjectModel, identity: ImportIdentity? = nil) throws(ImportError) {
        self.entity = entity
        let identity = identity ?? .conventional(for: entity, in: model)
        if case .attribute(let name, _) = identity {
            guard let attribute = model.attribute(named: name, in: entity) else {
                let known = model.allAttributes(of: entity).map(\.name)
                throw ImportError(.unknownIdentity(entity: entity.name, attribute: name, known: known), entity: entity.name)
            }
            guard !attribute.isTransient, !attribute.isDerived else {
                throw ImportError("\(entity.name).\(name) is \(attribute.isTransient ? "transient" : "derived"), so it cannot identify records", entity: entity.name)
            }
        }
        self.identity = identity
        let identityName: String? = if case .attribute(let name, _) = identity { name } else { nil }
        let attributes = model.allAttributes(of: entity).filter { !$0.isTransient && !$0.isDerived }.map { attribute in
            (attribute: attribute, keys: ImportKeys(property: attribute.name, userInfo: attribute.userInfo, isRemoteIdentity: attribute.name == identityName))
        }
        let readers = attributes.map { AttributeReader(
                entity: entity.name, name: $0.attribute.name, type: $0.attribute.type, dateFormat: $0.attribute.userInfo["dateFormat"],
                valueTransformerName: $0.attribute.valueTransformerName, keys: $0.keys) }
        let relationships = model.allRelationships(of: entity).filter { !$0.isTransient }.map { relationship in
            RelationshipMapping(
                relationship: relationship, keys: ImportKeys(property: relationship.name, userInfo: relationship.userInfo),
                identityKey: ImportKeys.snakeCase(relationship.name) + (relationship.isToMany ? "_ids" : "_id"))
        }
        self.attributes = attributes
        self.readers = readers
        identityReader = identityName.flatMap { name in readers.first { $0.name == name } }
        self.relationships = relationships
        knownKeys = Set(
            (attributes.map(\.keys) + relationships.map(\.keys)).flatMap { $0.names + $0.mapped.compactMap(\.first) }.map { $0.lowercased() }
                + relationships.map { $0.identityKey.lowercased() })
        updatedAtAttribute = entity.userInfo["strata.updatedAtKey"]
        // Objects ask their context for the rule; a bad one stops the import before any record.
        do {
            _ = try entity.invalidIfPredicate()
        } catch {
            throw ImportError(.invalidIf(error), entity: entity.name)
        }
    }

    /// The identity attribute and its keys, when records are matched by one.
    var identityAttribute: (attribute: AttributeDescription, keys: ImportKeys)? {
        guard case .attribute(let name, _) = identity else { return nil }
        return attributes.first { $0.attribute.name == name }
    }

    /// Whether string identity values match whatever their case.
    var identityIgnoresCase: Bool {
        if case .attribute(_, ignoringCase: true) = identity { true } else { false }
    }

    /// What an identity value is known by: its case folded when the identity ignores case, so
    /// that `"Le Guin"` and `"le guin"` are one object.
    func identityKey(_ value: AttributeValue) -> AttributeValue {
        guard identityIgnoresCase, case .string(let text) = value else { return value }
        return .string(text.folding(options: .caseInsensitive, locale: nil))
    }
}

/// The mappings of a model's entities, made once each, with an import's identity overrides:
/// what an import and an export both read records by.
struct EntityImportMappings {
    let model: ObjectModel
    let identities: [String: ImportIdentity]
    private var cache: [String: EntityImportMapping] = [:]

    init(model: ObjectModel, identities: [String: ImportIdentity]) {
        self.model = model
        self.identities = identities
    }

    /// The mapping of the entity named `entityName`, made on first use.
    mutating func mapping(for entityName: String) throws(ImportError) -> EntityImportMapping {
        if let known = cache[entityName] { return known }
        guard let entity = model.entity(named: entityName) else {
            throw ImportError(.unknownEntity(name: entityName, known: model.entities.map(\.name)))
        }
        let mapping = try EntityImportMapping(entity: entity, model: model, identity: identities[entityName])
        cache[entityName] = mapping
        return mapping
    }

    /// The mapping of `entityName` if it was made already.
    func existingMapping(for entityName: String) -> EntityImportMapping? {
        cache[entityName]
    }
}

extension ObjectModel {
    /// The entity a wrapper object's key names in an import payload: the entity's name, its
    /// plural (`books`, `categories`) or snake_case form (`e_books`), in any case.
    public func entityName(forImportKey key: String) -> String? {
        let wanted = key.lowercased()
        return entities.first { entity in
            let name = entity.name.lowercased(), snake = ImportKeys.snakeCase(entity.name)
            return [name, name + "s", name + "es", snake, snake + "s"].contains(wanted)
                || (name.hasSuffix("y") && String(name.dropLast()) + "ies" == wanted)
        }?.name
    }
}
