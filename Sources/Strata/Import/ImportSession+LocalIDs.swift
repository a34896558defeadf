import Foundation

/// Document-local identifiers: `"@id"` names an object within one payload, as JSON-LD's `@id`
/// does, for objects that have no identity value to be named by.
///
/// A record that holds `"@id": "Artist/3"` among its values defines the object; a nested
/// record that holds nothing but `"@id"` (`{"@id": "Artist/3"}`) is a reference to it, wherever
/// the definition is in the payload: before, after, in the same batch or another entity's.
/// No property can have the key (Core Data's property names start with a letter), so it never
/// clashes with a value. An `@id` is local to the session: it never finds an object the store
/// held before, and a reference that no record of the session defines is reported in
/// ``ImportReport/unresolvedLinks`` (`Book.publisher: @id Publisher/3`), as an identity value
/// that names no object is.
///
/// ```swift
/// try session.import(try JSONReader.parse(Data("""
///     {"books": [{"id": 1, "publisher": {"@id": "p1", "name": "Ace"}}, {"id": 2, "publisher": {"@id": "p1"}}]}
///     """.utf8)))   // both books link the one publisher
/// ```
extension ImportSession {
    /// The key of a record's document-local identifier.
    public static let localIDKey = "@id"

    /// The `@id` a record defines or refers to, if it holds one as text.
    func localID(in record: JSONRecordIndex) -> String? {
        record.value(atPath: [Self.localIDKey])?.stringValue
    }

    /// The `@id` that `json` refers to when it is a reference: an object whose only member is `@id`.
    static func localReference(in json: JSONValue) -> String? {
        guard let members = json.objectMembers, members.count == 1, members[0].key == localIDKey else { return nil }
        return members[0].value.stringValue
    }

    /// The object the session made for `localID`, unless none was or it was deleted since.
    func localObject(_ localID: String) -> ManagedObject? {
        guard let id = localObjects[localID] else { return nil }
        let object = context.object(with: id)
        return object.isDeleted ? nil : object
    }

    /// Remembers that `object` stands for `localID` from now on in this session.
    func register(_ object: ManagedObject, as localID: String) {
        let id = object.objectID
        localObjects[localID] = id
        // Its ID changes at the next save: saveAndReset() rekeys only these.
        if id.isTemporary { unsavedLocalIDs.append(localID) }
    }

    /// Follows the objects of ``localObjects`` that the last save gave permanent IDs.
    func rekeyLocalObjects() {
        for localID in unsavedLocalIDs {
            if let id = localObjects[localID], let permanent = context.lastPermanentIDs[id] { localObjects[localID] = permanent }
        }
        unsavedLocalIDs = []
    }

    /// The object `localID` names for `relationship`, or `nil` when no record defined it yet.
    ///
    /// - Throws: ``ImportError`` when the object is of an entity the relationship cannot hold.
    func localObject(_ localID: String, for relationship: RelationshipDescription, ownerEntity: String) throws -> ManagedObject? {
        guard let object = localObject(localID) else { return nil }
        guard let destination = model.entity(named: relationship.destinationEntityName), model.entity(object.entity, isKindOf: destination) else {
            throw ImportError("\(ownerEntity).\(relationship.name): @id \(localID) names a \(object.entity.name) object, not a \(relationship.destinationEntityName)", entity: ownerEntity)
        }
        return object
    }

    /// The object of each record, as ``findOrCreate(_:labels:mapping:)`` gives them, but a
    /// record whose `@id` the session met already stands for that object, and the others are
    /// registered under theirs.
    func findOrCreateWithLocalIDs(
        _ records: [JSONRecordIndex], labels: [RecordLabel], mapping: EntityImportMapping,
        byIdentity: ([JSONRecordIndex], [RecordLabel]) throws -> [(object: ManagedObject, isNew: Bool)]
    ) throws -> [(object: ManagedObject, isNew: Bool)] {
        let localIDs = records.map(localID(in:))
        guard localIDs.contains(where: { $0 != nil }) else { return try byIdentity(records, labels) }
        var known: [Int: ManagedObject] = [:], rest: [Int] = [], firstInBatch: Set<String> = []
        for (index, localID) in localIDs.enumerated() {
            if let localID, let object = localObject(localID) {
                known[index] = object
            } else if let localID, !firstInBatch.insert(localID).inserted {
                // Defined twice in one batch: the first record's object, found once it is made.
                continue
            } else {
                rest.append(index)
            }
        }
        let made = try byIdentity(rest.map { records[$0] }, rest.map { labels[$0] })
        var result = Array(repeating: (object: ManagedObject?.none, isNew: false), count: records.count)
        for (index, found) in zip(rest, made) {
            result[index] = (found.object, found.isNew)
            if let localID = localIDs[index] { register(found.object, as: localID) }
        }
        for (index, object) in known { result[index] = (object, createdObjects.contains(ObjectIdentifier(object))) }
        return try result.enumerated().map { index, entry in
            if let object = entry.object { return (object, entry.isNew) }
            guard let localID = localIDs[index], let object = localObject(localID) else {
                throw ImportError("@id \(localIDs[index] ?? "") names no object", entity: mapping.entity.name, key: Self.localIDKey, label: labels[index])
            }
            return (object, createdObjects.contains(ObjectIdentifier(object)))
        }
    }
}
