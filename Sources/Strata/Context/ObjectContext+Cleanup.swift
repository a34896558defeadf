import Foundation
import Logging

/// DKDBManager's clean-up calls: `deleteAllEntities` and `deleteEntityWithReason`, over an
/// ``ObjectContext`` (`invalidReason` / `deleteIfInvalid` are in `ObjectContext+InvalidObjects.swift`;
/// the import deletes invalid objects by their rule).
///
/// Every deletion follows the model's delete rules as ``delete(_:)`` does (Nullify, Cascade,
/// No Action now; Deny when the context saves) and is logged with its reason through an
/// ``EntityActivityLog``: at info level for the entities marked `strata.verbose`, at verbose
/// level for the others.
///
/// ```swift
/// try context.performAndWait {
///     let drafts = try context.delete("Book", where: ObjectPredicate(format: "title BEGINSWITH 'DRAFT'"), reason: "drafts are not published")
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
    /// let count = try context.delete("Book", where: ObjectPredicate(format: "rating < 1"), reason: "poorly rated")
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
    public func delete(_ entityName: String, where predicate: ObjectPredicate? = nil, reason: String? = nil, activity: EntityActivityLog? = nil) throws -> Int {
        try delete(matching: FetchRequest(entityName: entityName, predicate: predicate), reason: reason, activity: activity)
    }

    /// Deletes every object of `entityName` and of its sub-entities, following the model's
    /// delete rules (DKDBManager's `deleteAllEntities`, for one entity).
    ///
    /// ```swift
    /// try context.deleteAll("Tag", reason: "tags are rebuilt from the server")
    /// try context.save()
    /// ```
    ///
    /// - Throws: as ``delete(_:where:reason:activity:)`` does: an unknown entity, a failure of the
    ///   store, or the ``ContextError`` of reading an object its delete rules follow.
    @discardableResult
    public func deleteAll(_ entityName: String, reason: String? = nil, activity: EntityActivityLog? = nil) throws -> Int {
        try delete(entityName, where: nil, reason: reason, activity: activity)
    }

    /// Deletes the objects `request` selects (its predicate, sub-entities setting, sort,
    /// offset and limit all apply; pending changes count), as ``delete(_:where:reason:activity:)`` does.
    ///
    /// ```swift
    /// var oldest = FetchRequest(entityName: "Book", sortDescriptors: [ObjectSortDescriptor("published")])
    /// oldest.fetchLimit = 10
    /// try context.delete(matching: oldest, reason: "keep the shelf short")
    /// ```
    ///
    /// - Throws: what ``fetch(_:)`` throws for the request; the ``ContextError`` of applying an
    ///   object's delete rules.
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
    ///
    /// - Throws: what ``delete(_:)`` throws.
    public func delete(_ object: ManagedObject, reason: String?, activity: EntityActivityLog? = nil) throws(ContextError) {
        assertOnQueue()
        try delete(
            object, logging: "Deleting \(activityDescription(of: object))\(reason.map { ": \($0)" } ?? "")",
            activity: activity ?? defaultCleanupLog)
    }

    // MARK: - Checking before a save

    /// Checks what ``save()`` checks, without saving: the Deny delete rules of deleted objects
    /// that still hold others, and the validation of inserted and changed objects. Useful to
    /// stop before asking a user to confirm changes that could not be saved.
    ///
    /// ```swift
    /// try context.delete("Author", where: ObjectPredicate(format: "name == 'Anon'"))
    /// try context.validatePendingChanges()   // throws ContextError.deleteDenied while books remain
    /// ```
    public func validatePendingChanges() throws(ContextError) {
        assertOnQueue()
        try validateForSave()
    }

    // MARK: - Logging deletions

    /// The log deletions go to when the caller gives none.
    var defaultCleanupLog: EntityActivityLog {
        EntityActivityLog(logger: StrataLog.logger(label: "strata.delete"), verboseEntities: model.verboseEntityNames)
    }

    /// Deletes `object` after logging `message`, then logs the objects its Cascade rules took.
    func delete(_ object: ManagedObject, logging message: @autoclosure () -> String, activity: EntityActivityLog) throws(ContextError) {
        activity.record(message(), entity: object.entity.name)
        for cascaded in try delete(object).dropFirst() {
            activity.record("Deleting \(activityDescription(of: cascaded)): cascade from \(object.objectID)", entity: cascaded.entity.name)
        }
    }

    /// Whether `object` is deleted in this context already (an earlier match's cascade, say),
    /// inserted objects deleted again included.
    func isDeletedHere(_ object: ManagedObject) -> Bool {
        deletedIDs.contains(object.objectID) || pendingDroppedInserts.contains(object.objectID)
    }

    /// `Book { title: "LOTR", rating: 4.9 }`: an object as activity logs show it, its
    /// attributes with values in the model's order.
    func activityDescription(of object: ManagedObject) -> String {
        activityDescription(of: object.entity) { try? object.attributeValue(forKey: $0) }
    }

    /// An object of `entity` as activity logs show it, its attribute values read by `value`.
    func activityDescription(of entity: EntityDescription, value: (String) -> AttributeValue?) -> String {
        let values = model.allAttributes(of: entity).compactMap { attribute -> String? in
            value(attribute.name).map { "\(attribute.name): \($0.displayText)" }
        }
        return "\(entity.name) { \(values.joined(separator: ", ")) }"
    }
}
