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
/// identity values (and Sync's `user_id` / `tags_ids` keys) link existing objects; a record
/// without identity value may carry a document-local `"@id"` that other records refer to as
/// `{"@id": …}`, before or after it (see ``localIDKey``); a to-many's payload replaces its set,
/// in order for an ordered relationship. Look-ups go one query per
/// entity and batch, never one per record. Changes stay in the context: save it, or roll it
/// back to leave the store as it was.
public final class ImportSession {
    /// The context the session imports into; its changes wait there until it is saved.
    public let context: ObjectContext
    /// The context's model, read once: each read of `context.model` locks and copies it.
    let model: ObjectModel
    /// Identity overrides by entity name (`--identity`); others follow ``ImportIdentity/conventional(for:in:)``.
    public let identities: [String: ImportIdentity]
    /// Called for each object with its state, as DKDBManager's completion reports them.
    public var onObject: ((ManagedObject, ImportState) -> Void)?
    /// Per-entity additions to the import's rules (invalid reasons, should-update, a call
    /// after each record).
    public var hooks = ImportHooks()
    /// What the session did so far.
    public internal(set) var report = ImportReport()
    /// Whether the records of plain entities are written straight to the store's rows, as a
    /// batch insert writes, rather than through objects in the context: several times faster.
    ///
    /// A plain entity has attributes only: no relationship to or from it, no sub-entity or
    /// parent, no hook, `strata.invalidIf` or `strata.updatedAtKey`, no uniqueness constraint
    /// but its identity, and no derived, transformable or externally stored attribute. The
    /// records of other entities, and of an entity whose objects the context holds or whose
    /// objects are logged or reported one by one (``onObject``, verbose logging), still go
    /// through objects. The result is the same: the same rows, report and invalid objects
    /// deleted.
    ///
    /// The rows are in the store once each import call returns, each batch in a transaction:
    /// the context's `save()` and `rollback()` do not cover them. Inside
    /// ``Database/inOuterTransaction(_:)`` on the store's connection they commit or roll back
    /// with it, as `strata import` does. Contexts that merge this one's saves hear of them.
    public var writesRowsDirectly = false

    var mappings: EntityImportMappings
    /// Objects created, updated or seen unchanged: what deprecation keeps.
    var seen = ObjectLedger<Void>()
    /// Objects found or made in this session by identity value, so that a record repeated in
    /// a payload updates the same object.
    var byIdentity: [String: [AttributeValue: ManagedObject]] = [:]
    var singletons: [String: ManagedObject] = [:]
    /// Each object's state in this session: an object met again keeps its strongest one.
    var states = ObjectLedger<ImportState>()
    /// The state of each object the current import call met, for that call's report.
    var callStates = ObjectLedger<ImportState>()
    /// The record keys a property read in the current import call (a call's report lists
    /// these, not only the keys no earlier call read).
    var callReadKeys: Set<String> = []
    /// The objects the current import call inserted.
    var createdObjects: Set<ObjectIdentifier> = []
    /// Objects touched by the current import, checked for validity at its end.
    var touched: [ManagedObject] = []
    /// Members that replaced to-manys dropped, with their required inverse: deleted at the end
    /// of the import unless a later record took them.
    var droppedMembers: [(member: ManagedObject, inverse: String)] = []
    /// How each entity's records are written as rows; `nil` for an entity whose records go
    /// through objects.
    var rowImports: [String: RowImport?] = [:]
    /// Links whose destination had not been met yet, resolved by ``resolvePendingLinks()``.
    var pendingLinks: [PendingLink] = []
    /// The objects records defined by document-local `@id` (see ``localIDKey``), for the
    /// whole session: a reference may come in a later batch than its definition.
    var localObjects: [String: ObjectID] = [:]
    /// The `@id`s of ``localObjects`` whose objects have not been saved yet.
    var unsavedLocalIDs: [String] = []
    let activity: EntityActivityLog

    /// A session importing into `context`; `identities` says, per entity, which attribute
    /// identifies a record's object (by default the model's `identityAttribute` userInfo, else
    /// none: every record inserts).
    public init(context: ObjectContext, identities: [String: ImportIdentity] = [:]) {
        self.context = context
        self.identities = identities
        model = context.model
        mappings = EntityImportMappings(model: model, identities: identities)
        activity = EntityActivityLog(logger: StrataLog.logger(label: "strata.import"), verboseEntities: model.verboseEntityNames)
    }

    // MARK: - Importing

    /// Imports `json` into `entityName`: an array of records, one record, or an object whose
    /// keys name entities (`{"books": […], "authors": […]}`, matched to entity names
    /// case-insensitively, singular or plural; as in files, the first key decides, and a later
    /// key that names no entity or holds no array is an error). Objects found invalid at the end (the model's
    /// validation, or the entity's `strata.invalidIf` predicate) are deleted and listed.
    ///
    /// - Returns: the report of this import alone.
    /// - Throws: ``ImportError`` for a record that does not fit (naming the record, key,
    ///   attribute and value), or for an entity whose `strata.invalidIf` does not parse
    ///   (``ImportError/Problem/invalidIf(_:)``, before its first record); the context's and
    ///   the store's errors as they are thrown. The context then holds part of the import: roll
    ///   it back.
    @discardableResult
    public func `import`(_ json: JSONValue, into entityName: String? = nil) throws -> ImportReport {
        context.assertOnQueue()
        let before = report
        startCall()
        for (entity, records) in try batches(of: json, into: entityName) {
            try importBatch(records, into: entity, labels: records.indices.map { .record($0 + 1) })
        }
        try resolvePendingLinks()
        try deleteOrphans()
        try deleteInvalidObjects()
        return callReport(since: before)
    }

    /// Imports records of one entity that a reader streams, in one batch. Identity values
    /// that name no object yet wait for ``resolvePendingLinks()``, called after the last batch.
    ///
    /// - Throws: as ``import(_:into:)`` does; `firstIndex` numbers the records in its errors
    ///   (``ImportError/recordNumber`` is `firstIndex` + the record's place in `records`, from 1).
    @discardableResult
    public func `import`(records: [JSONValue], into entityName: String, firstIndex: Int = 0) throws -> ImportReport {
        context.assertOnQueue()
        let before = report
        startCall()
        try importBatch(records, into: entityName, labels: records.indices.map { .record(firstIndex + $0 + 1) })
        try deleteOrphans()
        try deleteInvalidObjects()
        return callReport(since: before)
    }

    /// Begins an import call: objects an earlier call created are objects that exist now.
    private func startCall() {
        callStates = ObjectLedger()
        callReadKeys = []
        createdObjects = []
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
            throw ImportError("expected an array of records or an object, found \(json.kindDescription)", at: json.location)
        }
    }

    /// The batches of a wrapper object, or `nil` for a record. As ``JSONRecordReader`` reads
    /// files, the first key decides: an object is a wrapper when that key names an entity and
    /// holds an array, and then every later key must too.
    private func wrapperEntities(_ members: [JSONMember]) throws -> [(String, [JSONValue])]? {
        guard let first = members.first, first.value.arrayValue != nil, entityName(forKey: first.key) != nil else { return nil }
        return try members.map { member in
            guard let entity = entityName(forKey: member.key) else {
                throw ImportError(
                    "'\(member.key)' names no entity, but the object lists records by entity (its first key, '\(first.key)', names one and holds an array)",
                    key: member.key, at: member.value.location)
            }
            guard let records = member.value.arrayValue else {
                throw ImportError(
                    "'\(member.key)' of an object of records by entity holds \(member.value.kindDescription), not an array of \(entity) records",
                    entity: entity, key: member.key, at: member.value.location)
            }
            return (entity, records)
        }
    }

    /// The entity a wrapper key names: `books`, `book`, `Books` → `Book`.
    public func entityName(forKey key: String) -> String? {
        model.entityName(forImportKey: key)
    }

    /// The entities whose objects the session created, updated or saw: what `--prune` prunes.
    public var importedEntityNames: [String] {
        seen.entityNames.sorted()
    }

    // MARK: - Saving in batches

    /// Saves the context and empties it, keeping what the session saw, so that a long import
    /// runs in bounded memory. Inside ``Database/inOuterTransaction(_:)`` on the store's
    /// connection the save is a savepoint, and the whole import still commits or rolls back as one.
    ///
    /// - Throws: what ``ObjectContext/save()`` throws; the context keeps its changes then.
    public func saveAndReset() throws {
        context.assertOnQueue()
        // Inside a transaction an object can wait for its required link to a later record;
        // resolvePendingLinks() judges it once every record is in.
        context.deferredValidation = try defersValidation() ? Set(pendingLinks.filter(\.isRequired).map(\.owner)) : []
        defer { context.deferredValidation = [] }
        try context.save()
        // Only this batch's inserted objects change IDs: the work stays per batch, not per import.
        states.rekey(context.lastPermanentIDs)
        seen.rekey(context.lastPermanentIDs)
        for index in pendingLinks.indices {
            if let permanent = context.lastPermanentIDs[pendingLinks[index].owner] { pendingLinks[index].owner = permanent }
        }
        rekeyLocalObjects()
        createdObjects = []
        byIdentity = [:]
        singletons = [:]
        touched = []
        droppedMembers = []
        // After letting go of the batch's objects: a reset loads the faults still held elsewhere.
        context.reset()
    }

    // MARK: - Deprecated objects

    /// Deletes the objects of `entityNames` (within `predicate`, for a paginated payload) that
    /// this session neither created, updated nor saw unchanged, following the model's delete
    /// rules, and logs each with its reason. Returns how many it deleted.
    ///
    /// - Throws: what ``ObjectContext/fetch(_:)`` throws for an unknown entity or a predicate
    ///   the store cannot run; the ``ContextError`` of applying an object's delete rules.
    @discardableResult
    public func removeDeprecated(_ entityNames: [String], where predicate: ObjectPredicate? = nil) throws -> Int {
        context.assertOnQueue()
        var deleted = 0
        for entityName in entityNames {
            for id in try context.fetchObjectIDs(FetchRequest(entityName: entityName, predicate: predicate)) where seen[id] == nil {
                let object = context.object(with: id)
                guard !object.isDeleted else { continue }
                try keepCascadeTargetsInUse(of: object)
                activity.record("Deleting \(describe(object)): not in the imported payload", entity: object.entity.name)
                for removed in try context.delete(object) {
                    report.record(removed.entity.name, .deleted)
                    onObject?(removed, .deleted)
                    deleted += 1
                }
            }
        }
        return deleted
    }

    /// Takes out of `object`'s Cascade relationships the objects the payload holds or another
    /// object still holds, so that deleting `object` leaves them.
    private func keepCascadeTargetsInUse(of object: ManagedObject) throws {
        for relationship in model.allRelationships(of: object.entity) where relationship.deleteRule == .cascade {
            let targets = relationship.isToMany
                ? try object.objects(forKey: relationship.name)
                : [try object.value(forKey: relationship.name) as? ManagedObject].compactMap { $0 }
            var kept: [ManagedObject] = []
            for target in targets {
                let otherHolders = try relationship.inverseName.map { inverse in
                    (try target.value(forKey: inverse) as? [ManagedObject] ?? []).filter { $0 !== object && !$0.isDeleted }
                } ?? []
                if seen[target.objectID] != nil || !otherHolders.isEmpty { kept.append(target) }
            }
            guard !kept.isEmpty else { continue }
            let keptIDs = Set(kept.map(\.objectID))
            try object.setValue(relationship.isToMany ? targets.filter { !keptIDs.contains($0.objectID) } : nil, forKey: relationship.name)
        }
    }

    // MARK: - Invalid objects

    /// Deletes the objects of this import that break the model's rules or match their
    /// entity's `strata.invalidIf`, each logged with its reason; those waiting for a required
    /// link to a later record are judged when it resolves, if saving can wait for them.
    func deleteInvalidObjects() throws {
        defer { touched = [] }
        let waiting = try defersValidation() ? Set(pendingLinks.filter(\.isRequired).map(\.owner)) : []
        for object in touched where !object.isDeleted && object.managedObjectContext != nil && !waiting.contains(object.objectID) {
            let hook = hooks.hook(hooks.invalidReason, for: object.entity, in: model)
            guard let reason = try object.invalidReason() ?? hook?(object) else { continue }
            activity.record("Deleting invalid \(describe(object)): \(reason)", entity: object.entity.name)
            report.invalid.append(ImportReport.InvalidObject(entity: object.entity.name, object: label(of: object), reason: reason))
            try context.delete(object)
            setDeleted(object)
        }
    }

    /// The report of the import call that began when the session's report was `before`:
    /// each object the call met counted once, in the strongest state the call gave it.
    private func callReport(since before: ImportReport) -> ImportReport {
        var result = ImportReport()
        callStates.forEach { entityName, state in result.record(entityName, state) }
        result.invalid = Array(report.invalid.dropFirst(before.invalid.count))
        result.unresolvedLinks = Array(report.unresolvedLinks.dropFirst(before.unresolvedLinks.count))
        result.ignoredKeys = report.ignoredKeys.subtracting(before.ignoredKeys)
        result.ignoredKeyRecords = report.ignoredKeyRecords.filter { result.ignoredKeys.contains($0.key) }
        result.readKeys = callReadKeys
        return result
    }

    /// Whether saves of this session may leave objects invalid for a while: only inside a
    /// transaction of the store's connection (``Database/inOuterTransaction(_:)``), which
    /// commits nothing before the import ends.
    private func defersValidation() throws -> Bool {
        guard !pendingLinks.isEmpty else { return false }
        let store = context.store
        return try store.withConnection { store.database.isInTransaction }
    }

    // MARK: - Naming objects

    func mapping(for entityName: String) throws -> EntityImportMapping {
        try mappings.mapping(for: entityName)
    }

    /// An object as logs name it: its identity value, else its ID.
    func label(of object: ManagedObject) -> String {
        if let mapping = mappings.existingMapping(for: object.entity.name), let identity = mapping.identityAttribute,
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
