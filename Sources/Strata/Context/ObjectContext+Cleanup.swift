import Foundation
import Logging

/// DKDBManager's clean-up calls: `deleteAllEntities`, `deleteEntityWithReason`, and
/// `invalidReason` / `deleteIfInvalid`, over an ``ObjectContext``.
///
/// Every deletion follows the model's delete rules as ``delete(_:)`` does (Nullify, Cascade,
/// No Action now; Deny when the context saves) and is logged with its reason through an
/// ``EntityActivityLog``: at info level for the entities marked `strata.verbose`, at verbose
/// level for the others.
///
/// ```swift
/// try context.performAndWait {
///     let drafts = try context.delete("Book", where: Predicate(format: "title BEGINSWITH 'DRAFT'"), reason: "drafts are not published")
///     // verbose [Book] Deleting Book { title: "DRAFT 1", rating: 0.0 }: drafts are not published
///     let broken = try context.deleteInvalidObjects(["Book", "Author"])
///     try context.save()          // one transaction; roll back instead to keep everything
/// }
/// ```
///
/// Changes stay in the context until it saves: a Deny rule that still holds objects, or an
/// object a Nullify rule left invalid, makes ``save()`` fail and write nothing; ``rollback()``
/// then brings every deleted object back.
extension ObjectContext {
    // MARK: - Deleting what matches

    /// Deletes the objects of `entityName` and of its sub-entities that match `predicate` (all
    /// of them when `predicate` is `nil`), following the model's delete rules, and logs each
    /// deletion with `reason` (DKDBManager's `deleteEntityWithReason`).
    ///
    /// ```swift
    /// let count = try context.delete("Book", where: Predicate(format: "rating < 1"), reason: "poorly rated")
    /// // Deleting Book { isbn: "9780000000001", rating: 0.5, title: "Dull" }: poorly rated
    /// try context.save()
    /// ```
    ///
    /// - Parameters:
    ///   - activity: where deletions are logged; by default a `strata.delete` logger that
    ///     follows the model's `strata.verbose` entities.
    /// - Returns: how many objects matched, and are now deleted (by this call, or by the
    ///   cascade of another match). Objects a Cascade rule deleted besides them are not counted:
    ///   ``deletedObjects`` lists them all.
    /// - Throws: what ``fetch(_:)`` throws for the request (an unknown entity or key), and
    ///   ``ContextError`` when an object cannot be read.
    @discardableResult
    public func delete(_ entityName: String, where predicate: Predicate? = nil, reason: String? = nil, activity: EntityActivityLog? = nil) throws -> Int {
        try delete(matching: FetchRequest(entityName: entityName, predicate: predicate), reason: reason, activity: activity)
    }

    /// Deletes every object of `entityName` and of its sub-entities, following the model's
    /// delete rules (DKDBManager's `deleteAllEntities`, for one entity).
    ///
    /// ```swift
    /// try context.deleteAll("Tag", reason: "tags are rebuilt from the server")
    /// try context.save()
    /// ```
    @discardableResult
    public func deleteAll(_ entityName: String, reason: String? = nil, activity: EntityActivityLog? = nil) throws -> Int {
        try delete(entityName, where: nil, reason: reason, activity: activity)
    }

    /// Deletes the objects `request` selects (its predicate, sub-entities setting, sort,
    /// offset and limit all apply; pending changes count), as ``delete(_:where:reason:activity:)`` does.
    ///
    /// ```swift
    /// var oldest = FetchRequest(entityName: "Book", sortDescriptors: [SortDescriptor("published")])
    /// oldest.fetchLimit = 10
    /// try context.delete(matching: oldest, reason: "keep the shelf short")
    /// ```
    @discardableResult
    public func delete(matching request: FetchRequest, reason: String? = nil, activity: EntityActivityLog? = nil) throws -> Int {
        assertOnQueue()
        let log = activity ?? defaultCleanupLog
        let objects = try fetch(request)
        for object in objects where !isDeletedHere(object) {
            try delete(object, logging: "Deleting \(activityDescription(of: object))\(reason.map { ": \($0)" } ?? "")", activity: log)
        }
        return objects.count
    }

    /// Deletes `object` following the model's delete rules, logging it with `reason`
    /// (DKDBManager's `deleteEntityWithReason` for one object).
    ///
    /// ```swift
    /// try context.delete(book, reason: "withdrawn by the publisher")
    /// ```
    public func delete(_ object: ManagedObject, reason: String?, activity: EntityActivityLog? = nil) throws(ContextError) {
        assertOnQueue()
        try delete(
            object, logging: "Deleting \(activityDescription(of: object))\(reason.map { ": \($0)" } ?? "")",
            activity: activity ?? defaultCleanupLog)
    }

    // MARK: - Invalid objects

    /// Why `object` is invalid, or `nil` when it is valid (DKDBManager's `invalidReason`): the
    /// model's rules it breaks (see ``validationFailures(of:)``), and its entity's
    /// `strata.invalidIf` userInfo predicate when it matches. Imports delete such objects.
    ///
    /// ```swift
    /// try context.invalidReason(of: book)   // "title is required; matches strata.invalidIf rating < 0"
    /// ```
    ///
    /// - Throws: ``ImportError`` naming the entity when its `strata.invalidIf` does not parse,
    ///   and ``ContextError`` when the object cannot be read or the predicate names a key the
    ///   entity lacks.
    public func invalidReason(of object: ManagedObject) throws -> String? {
        assertOnQueue()
        return try invalidReason(of: object, invalidIf: Self.invalidIf(of: object.entity, in: model))
    }

    /// The one rule of invalid objects, for this context and for ``ImportSession`` (which keeps
    /// each entity's `invalidIf` parsed in its mapping): failures as `"<property> <reason>"`,
    /// then the `strata.invalidIf` match, joined by `"; "`.
    func invalidReason(of object: ManagedObject, invalidIf: Predicate?) throws(ContextError) -> String? {
        var reasons = try validationFailures(of: object).map { "\($0.property ?? "object") \($0.reason)" }
        if let invalidIf, try invalidIf.evaluate(with: object) {
            reasons.append("matches strata.invalidIf \(invalidIf)")
        }
        return reasons.isEmpty ? nil : reasons.joined(separator: "; ")
    }

    /// An entity's `strata.invalidIf` predicate, parsed as imports parse it.
    static func invalidIf(of entity: EntityDescription, in model: ObjectModel) throws(ImportError) -> Predicate? {
        guard entity.userInfo["strata.invalidIf"] != nil else { return nil }
        return try EntityImportMapping(entity: entity, model: model).invalidIf
    }

    /// The objects of `entityNames` (and of their sub-entities) that are invalid, each with
    /// its reason as ``invalidReason(of:)`` gives it, by entity in the order given, then in the
    /// store's order. Pending changes count; an object is listed once.
    ///
    /// ```swift
    /// for (object, reason) in try context.invalidObjects(["Book"]) {
    ///     print(object.objectID, reason)     // <Book p12> title is required
    /// }
    /// ```
    ///
    /// - Throws: ``ContextError/unknownEntity(_:)``; ``ImportError`` naming the entity when a
    ///   `strata.invalidIf` in scope does not parse (checked before any object is read); what
    ///   ``fetch(_:)`` throws.
    public func invalidObjects(_ entityNames: [String]) throws -> [(object: ManagedObject, reason: String)] {
        assertOnQueue()
        var rules: [String: Predicate] = [:]
        for name in entityNames {
            guard let entity = model.entity(named: name) else { throw ContextError.unknownEntity(name) }
            for member in [entity] + model.allSubentities(of: entity) where rules[member.name] == nil {
                if let predicate = try Self.invalidIf(of: member, in: model) { rules[member.name] = predicate }
            }
        }
        var listed: Set<ObjectID> = []
        var found: [(object: ManagedObject, reason: String)] = []
        for name in entityNames {
            for object in try fetch(FetchRequest(entityName: name)) where listed.insert(object.objectID).inserted {
                if let reason = try invalidReason(of: object, invalidIf: rules[object.entity.name]) {
                    found.append((object, reason))
                }
            }
        }
        return found
    }

    /// Deletes the objects ``invalidObjects(_:)`` finds, following the model's delete rules,
    /// each logged with its reason (DKDBManager's `deleteIfInvalid`, over whole entities).
    ///
    /// ```swift
    /// let removed = try context.deleteInvalidObjects(["Book", "Author"])
    /// // Deleting invalid Book { isbn: "123", rating: 0.0 }: title is required
    /// try context.save()
    /// ```
    ///
    /// Objects left invalid by the deletions (a required to-one a Nullify rule cleared) are
    /// not looked for again: ``save()`` reports them.
    ///
    /// - Returns: the invalid objects with their reasons, all deleted now (some by the
    ///   cascade of another).
    @discardableResult
    public func deleteInvalidObjects(_ entityNames: [String], activity: EntityActivityLog? = nil) throws -> [(object: ManagedObject, reason: String)] {
        let invalid = try invalidObjects(entityNames)
        let log = activity ?? defaultCleanupLog
        for (object, reason) in invalid where !isDeletedHere(object) {
            try delete(object, logging: "Deleting invalid \(activityDescription(of: object)): \(reason)", activity: log)
        }
        return invalid
    }

    // MARK: - Checking before a save

    /// Checks what ``save()`` checks, without saving: the Deny delete rules of deleted objects
    /// that still hold others, and the validation of inserted and changed objects. Useful to
    /// stop before asking a user to confirm changes that could not be saved.
    ///
    /// ```swift
    /// try context.delete("Author", where: Predicate(format: "name == 'Anon'"))
    /// try context.validatePendingChanges()   // throws ContextError.deleteDenied while books remain
    /// ```
    public func validatePendingChanges() throws(ContextError) {
        assertOnQueue()
        try validateForSave()
    }

    // MARK: - Logging deletions

    /// The log deletions go to when the caller gives none.
    private var defaultCleanupLog: EntityActivityLog {
        EntityActivityLog(logger: Logger(label: "strata.delete"), verboseEntities: model.verboseEntityNames)
    }

    /// Deletes `object` after logging `message`; when the log shows activity, the objects its
    /// Cascade rules deleted too are logged, naming it.
    private func delete(_ object: ManagedObject, logging message: @autoclosure () -> String, activity: EntityActivityLog) throws(ContextError) {
        activity.record(message(), entity: object.entity.name)
        // Comparing the deleted sets costs a copy of them: only when a line could be shown.
        guard activity.logger.logLevel <= LogLevel.info.loggerLevel else { return try delete(object) }
        let before = deletedIDs.union(pendingDroppedInserts)
        try delete(object)
        let cascaded = deletedIDs.union(pendingDroppedInserts).subtracting(before).subtracting([object.objectID])
        for id in cascaded.sorted(by: { $0.description < $1.description }) {
            guard let deleted = registered[id] else { continue }
            activity.record("Deleting \(activityDescription(of: deleted)): cascade from \(object.objectID)", entity: id.entityName)
        }
    }

    /// Whether `object` is deleted in this context already (an earlier match's cascade, say),
    /// inserted objects deleted again included.
    private func isDeletedHere(_ object: ManagedObject) -> Bool {
        deletedIDs.contains(object.objectID) || pendingDroppedInserts.contains(object.objectID)
    }

    /// `Book { title: "LOTR", rating: 4.9 }`: an object as activity logs show it, its
    /// attributes with values in the model's order.
    func activityDescription(of object: ManagedObject) -> String {
        let values = model.allAttributes(of: object.entity).compactMap { attribute -> String? in
            guard let value = try? object.attributeValue(forKey: attribute.name) else { return nil }
            return "\(attribute.name): \(value.displayText)"
        }
        return "\(object.entity.name) { \(values.joined(separator: ", ")) }"
    }
}
