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
                throw ImportError("entity \(entity.name) has no attribute '\(name)' to identify records by\(didYouMean(name, among: known))")
            }
            guard !attribute.isTransient, !attribute.isDerived else {
                throw ImportError("\(entity.name).\(name) is \(attribute.isTransient ? "transient" : "derived"), so it cannot identify records")
            }
        }
        self.identity = identity
        let identityName: String? = if case .attribute(let name, _) = identity { name } else { nil }
        let attributes = model.allAttributes(of: entity).filter { !$0.isTransient && !$0.isDerived }.map { attribute in
            (attribute: attribute, keys: ImportKeys(property: attribute.name, userInfo: attribute.userInfo, isRemoteIdentity: attribute.name == identityName))
        }
        let readers = attributes.map { AttributeReader(
                name: $0.attribute.name, type: $0.attribute.type, dateFormat: $0.attribute.userInfo["dateFormat"],
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
            // ImportError holds a message only; the rule's error says the entity and the fault.
            throw ImportError(error.description)
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
            throw ImportError("no entity '\(entityName)'\(didYouMean(entityName, among: model.entities.map(\.name)))")
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

/// Why an import stopped: a record that does not fit the model, named by its place and the
/// key, attribute and value at fault. Nothing of the import is saved.
///
/// ```swift
/// do { try session.import(records: records, into: "Book") } catch let error as ImportError {
///     print(error.record, error.location)   // Optional("record 2"), Optional(line 1, column 40)
///     print(error)                          // record 2 (line 1, column 40): key 'pages' for pages (integer16): …
/// }
/// ```
public struct ImportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, without the record and location.
    public var message: String
    /// The record at fault as messages name it (`record 2`, `Book record 3 of authors`), when
    /// one is.
    public var record: String?
    /// Where in the input the value at fault is, when the input was read from text.
    public var location: SourceLocation?

    /// An error saying `message` of `record` at `location`.
    public init(_ message: String, record: String? = nil, at location: SourceLocation? = nil) {
        self.message = message
        self.record = record
        self.location = location
    }

    /// `record 2 (line 1, column 40): …`, `line 3, column 1: …` or the message alone.
    public var description: String {
        switch (record, location) {
        case (let record?, let location?): "\(record) (\(location)): \(message)"
        case (let record?, nil): "\(record): \(message)"
        case (nil, let location?): "\(location): \(message)"
        case (nil, nil): message
        }
    }
}
