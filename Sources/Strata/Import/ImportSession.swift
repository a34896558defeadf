import Foundation
import Logging

/// Imports JSON records into a context, finding or creating an object per record, and
/// remembers what it saw so that objects the payloads no longer hold can be removed.
///
/// It brings DKDBManager's CRUD from dictionaries, KarthVader's key mapping and nested models,
/// and the userInfo conventions of MagicalRecord and Sync (see ``ImportIdentity`` and
/// ``ImportKeys``), so that models written for them import as they are.
///
/// ```swift
/// try context.performAndWait {
///     let session = ImportSession(context: context)
///     let report = try session.import(try JSONReader.parse(data), into: "Book")
///     try session.removeDeprecated(["Book", "Page"])    // what the payload no longer holds
///     try context.save()                                 // one import, one transaction
/// }
/// ```
///
/// In a record, a missing key leaves its property as it is and `null` clears it. Nested
/// objects and arrays import into the relationship's destination with the same rules; bare
/// identity values (and Sync's `user_id` / `tags_ids` keys) link existing objects; a to-many's
/// payload replaces its set, in order for an ordered relationship. Look-ups go one query per
/// entity and batch, never one per record. Changes stay in the context: save it, or roll it
/// back to leave the store as it was.
public final class ImportSession {
    public let context: ObjectContext
    /// Identity overrides by entity name (`--identity`); others follow ``ImportIdentity/conventional(for:in:)``.
    public let identities: [String: ImportIdentity]
    /// Called for each object with its state, as DKDBManager's completion reports them.
    public var onObject: ((ManagedObject, ImportState) -> Void)?
    /// What the session did so far.
    public internal(set) var report = ImportReport()

    var mappings: [String: EntityImportMapping] = [:]
    /// Objects created, updated or seen unchanged, by entity: what deprecation keeps.
    var seen: [String: Set<ObjectID>] = [:]
    /// Objects found or made in this session by identity value, so that a record repeated in
    /// a payload updates the same object.
    var byIdentity: [String: [AttributeValue: ManagedObject]] = [:]
    var singletons: [String: ManagedObject] = [:]
    /// Each object's state in this session: an object met again keeps its strongest one.
    var states: [ObjectID: ImportState] = [:]
    /// The objects the current import inserted.
    var createdObjects: Set<ObjectIdentifier> = []
    /// Objects touched by the current import, checked for validity at its end.
    var touched: [ManagedObject] = []
    let activity: EntityActivityLog

    public init(context: ObjectContext, identities: [String: ImportIdentity] = [:]) {
        self.context = context
        self.identities = identities
        activity = EntityActivityLog(logger: Logger(label: "strata.import"), verboseEntities: context.model.verboseEntityNames)
    }

    // MARK: - Importing

    /// Imports `json` into `entityName`: an array of records, one record, or an object whose
    /// keys name entities (`{"books": […], "authors": […]}`, matched to entity names
    /// case-insensitively, singular or plural). Objects found invalid at the end (the model's
    /// validation, or the entity's `strata.invalidIf` predicate) are deleted and listed.
    ///
    /// - Returns: the report of this import alone.
    /// - Throws: ``ImportError`` for a record that does not fit (naming the record, key,
    ///   attribute and value); the context then holds part of the import: roll it back.
    @discardableResult
    public func `import`(_ json: JSONValue, into entityName: String? = nil) throws -> ImportReport {
        context.assertOnQueue()
        let before = report
        for (entity, records) in try batches(of: json, into: entityName) {
            _ = try importRecords(records, into: entity, labels: records.indices.map { "record \($0 + 1)" })
        }
        try deleteInvalidObjects()
        return report.subtracting(before)
    }

    /// Imports records of one entity that a reader streams, in one batch.
    @discardableResult
    public func `import`(records: [JSONValue], into entityName: String, firstIndex: Int = 0) throws -> ImportReport {
        context.assertOnQueue()
        let before = report
        _ = try importRecords(records, into: entityName, labels: records.indices.map { "record \(firstIndex + $0 + 1)" })
        try deleteInvalidObjects()
        return report.subtracting(before)
    }

    /// The entities and records a payload holds.
    private func batches(of json: JSONValue, into entityName: String?) throws -> [(String, [JSONValue])] {
        switch json.kind {
        case .array(let records):
            guard let entityName else { throw ImportError("name the entity the records of this array are imported into") }
            return [(entityName, records)]
        case .object(let members):
            if let wrapped = try wrapperEntities(members) { return wrapped }
            guard let entityName else { throw ImportError("name the entity this record is imported into") }
            return [(entityName, [json])]
        default:
            throw ImportError("\(json.location.map { "\($0): " } ?? "")expected an array of records or an object, found \(json.kindDescription)")
        }
    }

    /// The batches of a wrapper object, whose every key names an entity and holds an array.
    private func wrapperEntities(_ members: [JSONMember]) throws -> [(String, [JSONValue])]? {
        var batches: [(String, [JSONValue])] = []
        for member in members {
            guard let records = member.value.arrayValue, let entity = entityName(forKey: member.key) else { return nil }
            batches.append((entity, records))
        }
        return batches.isEmpty ? nil : batches
    }

    /// The entity a wrapper key names: `books`, `book`, `Books` → `Book`.
    public func entityName(forKey key: String) -> String? {
        let wanted = key.lowercased()
        return context.model.entities.first { entity in
            let name = entity.name.lowercased()
            return [name, name + "s", name + "es", ImportKeys.snakeCase(entity.name), ImportKeys.snakeCase(entity.name) + "s"].contains(wanted)
                || (name.hasSuffix("y") && String(name.dropLast()) + "ies" == wanted)
        }?.name
    }

    /// The entities whose objects the session created, updated or saw: what `--prune` prunes.
    public var importedEntityNames: [String] {
        seen.keys.sorted()
    }

    // MARK: - Saving in batches

    /// Saves the context and empties it, keeping what the session saw, so that a long import
    /// runs in bounded memory. Inside a transaction of the store's connection the save is a
    /// savepoint of it, and the whole import still commits or rolls back as one.
    public func saveAndReset() throws {
        context.assertOnQueue()
        try context.save()
        // Only this batch's inserted objects change IDs: the work stays per batch, not per import.
        for (temporary, permanent) in context.lastPermanentIDs {
            if let state = states.removeValue(forKey: temporary) { states[permanent] = state }
            if seen[permanent.entityName]?.remove(temporary) != nil { seen[permanent.entityName]?.insert(permanent) }
        }
        context.reset()
        createdObjects = []
        byIdentity = [:]
        singletons = [:]
        touched = []
    }

    // MARK: - Deprecated objects

    /// Deletes the objects of `entityNames` (within `predicate`, for a paginated payload) that
    /// this session neither created, updated nor saw unchanged, following the model's delete
    /// rules, and logs each with its reason. Returns how many it deleted.
    @discardableResult
    public func removeDeprecated(_ entityNames: [String], where predicate: Predicate? = nil) throws -> Int {
        context.assertOnQueue()
        var deleted = 0
        for entityName in entityNames {
            let kept = seen.filter { name, _ in context.model.entity(named: name).map { isKind($0, of: entityName) } ?? false }
                .values.reduce(into: Set<ObjectID>()) { $0.formUnion($1) }
            for id in try context.fetchObjectIDs(FetchRequest(entityName: entityName, predicate: predicate)) where !kept.contains(id) {
                let object = context.object(with: id)
                guard !object.isDeleted else { continue }
                activity.record("Deleting \(describe(object)): not in the imported payload", entity: object.entity.name)
                try context.delete(object)
                report.record(object.entity.name, .deleted)
                onObject?(object, .deleted)
                deleted += 1
            }
        }
        return deleted
    }

    private func isKind(_ entity: EntityDescription, of ancestorName: String) -> Bool {
        entity.name == ancestorName || context.model.ancestors(of: entity).contains { $0.name == ancestorName }
    }

    // MARK: - Invalid objects

    /// Deletes the objects of this import that break the model's rules or match their
    /// entity's `strata.invalidIf`, each logged with its reason.
    private func deleteInvalidObjects() throws {
        defer { touched = [] }
        for object in touched where !object.isDeleted && object.managedObjectContext != nil {
            guard let reason = try context.invalidReason(of: object, invalidIf: mapping(for: object.entity.name).invalidIf) else { continue }
            activity.record("Deleting invalid \(describe(object)): \(reason)", entity: object.entity.name)
            report.invalid.append(ImportReport.InvalidObject(entity: object.entity.name, object: label(of: object), reason: reason))
            try context.delete(object)
            setDeleted(object)
        }
    }

    // MARK: - Naming objects

    func mapping(for entityName: String) throws -> EntityImportMapping {
        if let known = mappings[entityName] { return known }
        guard let entity = context.model.entity(named: entityName) else {
            throw ImportError("no entity '\(entityName)'\(didYouMean(entityName, among: context.model.entities.map(\.name)))")
        }
        let mapping = try EntityImportMapping(entity: entity, model: context.model, identity: identities[entityName])
        mappings[entityName] = mapping
        return mapping
    }

    /// An object as logs name it: its identity value, else its ID.
    func label(of object: ManagedObject) -> String {
        if let mapping = mappings[object.entity.name], let identity = mapping.identityAttribute,
            let value = try? object.attributeValue(forKey: identity.attribute.name)
        {
            return value.displayText
        }
        return object.objectID.description
    }

    /// `Book { title: "LOTR", rating: 4.9 }`, for verbose logs.
    func describe(_ object: ManagedObject) -> String {
        context.activityDescription(of: object)
    }
}

extension ImportReport {
    /// This report less what `earlier` already counted.
    func subtracting(_ earlier: ImportReport) -> ImportReport {
        var result = self
        for (entity, states) in earlier.counts {
            for (state, count) in states { result.counts[entity]?[state]? -= count }
        }
        result.counts = result.counts.mapValues { $0.filter { $0.value != 0 } }.filter { !$0.value.isEmpty }
        result.invalid = Array(invalid.dropFirst(earlier.invalid.count))
        result.unresolvedLinks = Array(unresolvedLinks.dropFirst(earlier.unresolvedLinks.count))
        return result
    }
}
