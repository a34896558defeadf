import Foundation

/// An identity value or `@id` reference of a relationship that named no object when its batch ran.
struct PendingLink {
    /// What a link names its destination by.
    enum Target {
        /// The destination's identity value.
        case identity(AttributeValue)
        /// The `@id` of the record that defines the destination (``ImportSession/localIDKey``).
        case local(String)

        var displayText: String {
            switch self {
            case .identity(let value): value.displayText
            case .local(let localID): "@id " + localID
            }
        }
    }

    var owner: ObjectID
    let relationship: RelationshipDescription
    let target: Target
    /// Where in an ordered to-many's payload the destination goes.
    let position: Int
    /// The record that named the destination, for the report of a link that stays unresolved.
    let record: RecordLabel

    /// Whether the owner is invalid without the link.
    var isRequired: Bool { !relationship.isOptional || relationship.minCount > 0 }
}

/// A record's name in errors (`record 12`, `record 3.pages[2]`): its text is made only when an
/// error needs it, not for each of a million records that import without one.
enum RecordLabel: CustomStringConvertible {
    /// The `number`th record of a payload, counting from 1.
    case record(Int)
    /// The `number`th nested record of `relationship` in the record `owner`, counting from 1.
    indirect case nested(owner: RecordLabel, relationship: String, number: Int)

    var description: String {
        switch self {
        case .record(let number): "record \(number)"
        case .nested(let owner, let relationship, let number): "\(owner).\(relationship)[\(number)]"
        }
    }

    /// The number of the payload's record: for a nested record, of the record it is nested in.
    var recordNumber: Int {
        switch self {
        case .record(let number): number
        case .nested(let owner, _, _): owner.recordNumber
        }
    }
}

/// The records of one entity, imported as one batch: identities looked up in one query, then
/// attributes, then each relationship's nested records as a batch of their own.
extension ImportSession {
    /// A record being imported: its members, the object it stands for, and its name in errors.
    private struct Entry {
        let record: JSONRecordIndex
        let json: JSONValue
        let object: ManagedObject
        let label: RecordLabel
        let isNew: Bool
    }

    /// Imports `records` into `entityName` and returns the object each stands for, in order.
    func importRecords(_ records: [JSONValue], into entityName: String, labels: [RecordLabel]) throws -> [ManagedObject] {
        let mapping = try mapping(for: entityName)
        let indexes = try indexRecords(records, labels: labels, mapping: mapping)
        let found = try findOrCreateWithLocalIDs(indexes, labels: labels, mapping: mapping) { records, labels in
            try findOrCreate(records, labels: labels, mapping: mapping)
        }
        var entries: [Entry] = []
        var before: [ObjectIdentifier: PropertyValues] = [:]
        for (index, record) in indexes.enumerated() {
            let (object, isNew) = found[index]
            seen[object.objectID] = ()
            touched.append(object)
            if !isNew, try !shouldUpdate(object, from: record, json: records[index], mapping: mapping, label: labels[index]) {
                // DKDBManager's should-update: nothing of it or below it changes, all of it stays.
                try markSeen(below: object, record: record, mapping: mapping)
                setState(.unchanged, of: object)
                try hooks.hook(hooks.afterImport, for: object.entity, in: model)?(object, records[index], .unchanged)
                continue
            }
            // A new object's state is `created` whatever changed: only others need their changes before.
            if !isNew, before[ObjectIdentifier(object)] == nil { before[ObjectIdentifier(object)] = object.effectiveChanges }
            try applyAttributes(of: record, to: object, mapping: mapping, label: labels[index])
            entries.append(Entry(record: record, json: records[index], object: object, label: labels[index], isNew: isNew))
        }
        for relationship in mapping.relationships {
            try importRelationship(relationship, of: entries)
        }
        for entry in entries {
            let state: ImportState = entry.isNew ? .created
                : entry.object.hasEffectiveChanges(since: before[ObjectIdentifier(entry.object)] ?? PropertyValues(slots: entry.object.slots)) ? .updated : .unchanged
            setState(state, of: entry.object)
            try hooks.hook(hooks.afterImport, for: entry.object.entity, in: model)?(entry.object, entry.json, state)
        }
        return found.map(\.object)
    }

    /// The records' members indexed by key, each record checked to be an object; keys no
    /// property reads are reported as ignored, the others as read.
    func indexRecords(_ records: [JSONValue], labels: [RecordLabel], mapping: EntityImportMapping) throws -> [JSONRecordIndex] {
        let entityName = mapping.entity.name
        var indexes: [JSONRecordIndex] = []
        indexes.reserveCapacity(records.count)
        for (record, label) in zip(records, labels) {
            let previous = indexes.last
            guard let index = JSONRecordIndex(record, sharingLayoutOf: previous) else {
                throw ImportError("expected an object for \(entityName), found \(record.kindDescription)", entity: entityName, label: label, at: record.location)
            }
            indexes.append(index)
            // Records keyed alike ignore the same keys: checked once per layout.
            guard index.layout !== previous?.layout else { continue }
            for key in index.layout.keys where key != Self.localIDKey {
                if mapping.knownKeys.contains(key.lowercased()) {
                    let name = "\(entityName).\(key)"
                    report.readKeys.insert(name)
                    callReadKeys.insert(name)
                } else if report.ignoredKeys.insert("\(entityName).\(key)").inserted {
                    report.ignoredKeyRecords["\(entityName).\(key)"] = label.description
                }
            }
        }
        return indexes
    }

    /// Whether an existing object is updated from its record: the entity's should-update hook
    /// decides, else its `strata.updatedAtKey` (a changed value), else yes.
    private func shouldUpdate(_ object: ManagedObject, from record: JSONRecordIndex, json: JSONValue, mapping: EntityImportMapping, label: RecordLabel) throws -> Bool {
        if let hook = hooks.hook(hooks.shouldUpdate, for: object.entity, in: model) { return try hook(object, json) }
        guard let key = mapping.updatedAtAttribute else { return true }
        return try !isUnchanged(object, record, mapping: mapping, key: key, label: label)
    }

    // MARK: - Identity

    /// The object of each record, with whether it is new: one query for the identity values
    /// the session has not met yet; a value repeated in the payload gives the same object.
    private func findOrCreate(_ records: [JSONRecordIndex], labels: [RecordLabel], mapping: EntityImportMapping) throws -> [(object: ManagedObject, isNew: Bool)] {
        let entity = mapping.entity.name
        switch mapping.identity {
        case .neverMatch:
            return try records.map { _ in
                let object = try context.insert(entity)
                createdObjects.insert(ObjectIdentifier(object))
                return (object, true)
            }
        case .singleton:
            if let known = singletons[entity] { return records.map { _ in (known, false) } }
            var request = FetchRequest(entityName: entity)
            request.fetchLimit = 1
            let existing = try context.fetch(request).first
            let object = try existing ?? context.insert(entity)
            if existing == nil { createdObjects.insert(ObjectIdentifier(object)) }
            singletons[entity] = object
            return records.map { _ in (object, existing == nil) }
        case .attribute:
            // EntityImportMapping refuses an identity it cannot read, so this always holds.
            guard let identity = mapping.identityReader else {
                throw ImportError("\(entity) has no attribute to identify records by", entity: entity)
            }
            var values: [AttributeValue?] = []
            values.reserveCapacity(records.count)
            for (record, label) in zip(records, labels) {
                values.append(try value(of: identity, in: record, label: label) ?? nil)
            }
            // The entity's objects by identity value, taken out while the batch adds to them
            // so that each addition does not look the entity up again.
            var known = byIdentity.removeValue(forKey: entity) ?? [:]
            defer { byIdentity[entity] = known }
            var unknown: [AttributeValue] = [], asked: Set<AttributeValue> = []
            for case let value? in values where known[mapping.identityKey(value)] == nil && asked.insert(mapping.identityKey(value)).inserted {
                unknown.append(value)
            }
            for (key, object) in try existingObjects(unknown, mapping: mapping) where known[key] == nil { known[key] = object }
            var result: [(ManagedObject, Bool)] = []
            result.reserveCapacity(values.count)
            for value in values {
                if let value, let object = known[mapping.identityKey(value)] {
                    result.append((object, createdObjects.contains(ObjectIdentifier(object))))
                    continue
                }
                let object = try context.insert(entity)
                createdObjects.insert(ObjectIdentifier(object))
                if let value {
                    try object.setAttribute(value, forKey: identity.name)
                    known[mapping.identityKey(value)] = object
                }
                result.append((object, true))
            }
            return result
        }
    }

    /// The objects of `mapping`'s entity whose identity attribute holds one of `values`,
    /// pending changes included, in queries of at most 500 values, each with its value as
    /// ``EntityImportMapping/identityKey(_:)`` gives it; where several objects hold one value
    /// (in other cases), the first saved.
    private func existingObjects(_ values: [AttributeValue], mapping: EntityImportMapping) throws -> [(AttributeValue, ManagedObject)] {
        guard let identity = mapping.identityAttribute, !values.isEmpty else { return [] }
        // Identity values are unique across the hierarchy that shares the attribute: look in
        // all of it, so that a record never makes a second object beside one of a sibling entity.
        let scope = ([mapping.entity] + model.ancestors(of: mapping.entity))
            .last { model.attribute(named: identity.attribute.name, in: $0) != nil } ?? mapping.entity
        var found: [(AttributeValue, ManagedObject)] = []
        for start in stride(from: 0, to: values.count, by: 500) {
            let chunk = values[start..<min(start + 500, values.count)].map(PredicateValue.init)
            let predicate = ObjectPredicate.comparison(.init(
                .keyPath([identity.attribute.name]), .in, .value(.array(chunk)), options: mapping.identityIgnoresCase ? .caseInsensitive : []))
            var request = FetchRequest(entityName: scope.name, predicate: predicate)
            // Each object's identity value is read at once: faults would cost a query apiece.
            request.returnsObjectsAsFaults = false
            for object in try context.fetch(request) {
                guard let value = try object.attributeValue(forKey: identity.attribute.name) else { continue }
                guard model.entity(object.entity, isKindOf: mapping.entity) else {
                    throw ImportError("\(mapping.entity.name) \(identity.attribute.name) \(value.displayText): the object with this value is of entity \(object.entity.name), not \(mapping.entity.name) or one of its sub-entities", entity: mapping.entity.name)
                }
                found.append((mapping.identityKey(value), object))
            }
        }
        return found
    }

    // MARK: - Attributes

    /// The typed value of an attribute in a record: `nil` when the key is missing, `.some(nil)`
    /// for `null`.
    func value(of attribute: EntityImportMapping.AttributeReader, in record: JSONRecordIndex, label: RecordLabel) throws -> AttributeValue?? {
        try typedValue(of: attribute, json: attribute.keys.value(in: record), in: record, label: label)
    }

    /// ``value(of:in:label:)`` for the JSON value a caller found already.
    func typedValue(of attribute: EntityImportMapping.AttributeReader, json: JSONValue??, in record: JSONRecordIndex, label: RecordLabel) throws -> AttributeValue?? {
        guard let json else { return nil }
        guard let json else { return .some(nil) }
        switch AttributeValue.fromJSON(json, type: attribute.type, dateFormat: attribute.dateFormat, valueTransformerName: attribute.valueTransformerName) {
        case .success(let value): return .some(value)
        case .failure(let mismatch):
            let key = Self.keyName(of: json, in: record) ?? attribute.keys.names.first ?? attribute.name
            throw ImportError("key '\(key)' for \(attribute.name) (\(attribute.type)): \(Self.excerpt(json)) — \(mismatch.reason)", entity: attribute.entity, key: key, label: label, at: json.location)
        }
    }

    private func applyAttributes(of record: JSONRecordIndex, to object: ManagedObject, mapping: EntityImportMapping, label: RecordLabel) throws {
        // findOrCreate set the identity attribute, or found the object by it: it holds the
        // value already, unless in another case.
        let identityName = mapping.identityIgnoresCase ? nil : mapping.identityReader?.name
        for attribute in mapping.readers where attribute.name != identityName {
            guard let value = try value(of: attribute, in: record, label: label) else { continue }
            try object.setAttribute(value, forKey: attribute.name)
        }
    }

    private func isUnchanged(_ object: ManagedObject, _ record: JSONRecordIndex, mapping: EntityImportMapping, key: String, label: RecordLabel) throws -> Bool {
        guard let attribute = mapping.readers.first(where: { $0.name == key }),
            let incoming = try value(of: attribute, in: record, label: label)
        else { return false }
        return try incoming == object.attributeValue(forKey: key)
    }

    // MARK: - Relationships

    /// Imports one relationship for a batch: nested records as one batch of the destination,
    /// identity values resolved in one query, `null` clearing it.
    private func importRelationship(_ mapping: EntityImportMapping.RelationshipMapping, of entries: [Entry]) throws {
        let relationship = mapping.relationship
        var nested: [(entry: Entry, records: [JSONValue])] = []
        var links: [(entry: Entry, values: [JSONValue])] = []
        for entry in entries {
            guard let payload = mapping.keys.value(in: entry.record) ?? entry.record.valueIgnoringCase(mapping.identityKey).map({ $0.isNull ? nil : $0 }) else {
                continue
            }
            guard let payload else {
                try entry.object.setValue(relationship.isToMany ? [ManagedObject]() : nil, forKey: relationship.name)
                continue
            }
            let items = relationship.isToMany ? payload.arrayValue : [payload]
            guard let items, !(relationship.isToMany == false && payload.arrayValue != nil) else {
                let key = Self.keyName(of: payload, in: entry.record) ?? relationship.name
                throw ImportError(
                    "key '\(key)' for \(relationship.name): expected \(relationship.isToMany ? "an array" : "an object or an identity value"), found \(payload.kindDescription)",
                    entity: entry.object.entity.name, key: key, label: entry.label, at: payload.location)
            }
            if items.allSatisfy({ $0.objectMembers != nil }) {
                nested.append((entry, items))
            } else if items.allSatisfy({ $0.objectMembers == nil && $0.arrayValue == nil }) {
                links.append((entry, items))
            } else {
                throw ImportError(
                    "\(relationship.name) mixes nested objects with other values", entity: entry.object.entity.name,
                    key: Self.keyName(of: payload, in: entry.record) ?? relationship.name, label: entry.label, at: payload.location)
            }
        }
        if !nested.isEmpty {
            // `@id` references are links, not records: resolved once the batch's records, which may define them, are in.
            var records: [JSONValue] = [], labels: [RecordLabel] = []
            for (entry, items) in nested {
                for (index, item) in items.enumerated() where Self.localReference(in: item) == nil {
                    records.append(item)
                    labels.append(.nested(owner: entry.label, relationship: relationship.name, number: index + 1))
                }
            }
            var objects: [ManagedObject] = []
            if !records.isEmpty {
                try hooks.beforeBatch?(records.count)
                objects = try importRecords(records, into: relationship.destinationEntityName, labels: labels)
            }
            var next = 0
            for (entry, items) in nested {
                var slice: [ManagedObject] = []
                for (index, item) in items.enumerated() {
                    guard let reference = Self.localReference(in: item) else {
                        slice.append(objects[next])
                        next += 1
                        continue
                    }
                    if let object = try localObject(reference, for: relationship, ownerEntity: entry.object.entity.name) {
                        seen[object.objectID] = ()
                        slice.append(object)
                    } else {
                        pendingLinks.append(PendingLink(owner: entry.object.objectID, relationship: relationship, target: .local(reference), position: index, record: entry.label))
                    }
                }
                // As for identity values: an unresolved to-one keeps its value until the link resolves or is reported.
                if relationship.isToMany || !slice.isEmpty { try assign(slice, to: relationship, of: entry.object) }
            }
        }
        if !links.isEmpty { try link(links, through: relationship) }
    }

    /// Links existing objects named by identity values: one query for all the batch's values.
    private func link(_ links: [(entry: Entry, values: [JSONValue])], through relationship: RelationshipDescription) throws {
        let destination = try mapping(for: relationship.destinationEntityName)
        guard let identity = destination.identityAttribute else {
            throw ImportError(
                "\(relationship.name) holds identity values, but \(destination.entity.name) has no identity attribute to find them by",
                entity: links[0].entry.object.entity.name, label: links[0].entry.label)
        }
        var typed: [[AttributeValue]] = []
        for (entry, values) in links {
            var row: [AttributeValue] = []
            for json in values {
                switch AttributeValue.fromJSON(json, type: identity.attribute.type) {
                case .success(let value): row.append(value)
                case .failure(let mismatch):
                    throw ImportError(
                        "\(relationship.name) identity \(Self.excerpt(json)) for \(destination.entity.name).\(identity.attribute.name) — \(mismatch.reason)",
                        entity: entry.object.entity.name, label: entry.label, at: json.location)
                }
            }
            typed.append(row)
        }
        let entity = destination.entity.name
        let unknown = Set(typed.flatMap { $0 }).filter { byIdentity[entity]?[destination.identityKey($0)] == nil }
        for (key, object) in try existingObjects(Array(unknown), mapping: destination) {
            if byIdentity[entity, default: [:]][key] == nil { byIdentity[entity, default: [:]][key] = object }
        }
        for ((entry, _), values) in zip(links, typed) {
            var objects: [ManagedObject] = []
            for (position, value) in values.enumerated() {
                if let object = byIdentity[entity]?[destination.identityKey(value)] {
                    // Linked by the payload, so it stays when deprecated objects are removed.
                    seen[object.objectID] = ()
                    objects.append(object)
                } else {
                    // Perhaps a later batch brings it: linked once every record is in.
                    pendingLinks.append(PendingLink(owner: entry.object.objectID, relationship: relationship, target: .identity(value), position: position, record: entry.label))
                }
            }
            // An unresolved to-one keeps its value until the link resolves or is reported.
            if relationship.isToMany || !objects.isEmpty || values.isEmpty { try assign(objects, to: relationship, of: entry.object) }
        }
    }

    /// Links the identity values no object had when their batch ran, now that every record is
    /// in; those still without an object are reported as unresolved. Objects whose required
    /// relationship waited for such a link are then checked, and deleted as invalid if it
    /// did not resolve.
    ///
    /// - Throws: the ``ContextError`` of reading the objects the links name or of deleting an
    ///   owner left invalid.
    public func resolvePendingLinks() throws {
        context.assertOnQueue()
        // Owners deleted as invalid before their links could resolve have nothing to link.
        let pending = pendingLinks.filter { states[$0.owner] != .deleted }
        pendingLinks = []
        var waited: [ManagedObject] = []
        for (destinationName, links) in Dictionary(grouping: pending, by: \.relationship.destinationEntityName) {
            let destination = try mapping(for: destinationName)
            let values = links.compactMap { link -> AttributeValue? in
                if case .identity(let value) = link.target { return value }
                return nil
            }
            let found = Dictionary(try existingObjects(Array(Set(values)), mapping: destination), uniquingKeysWith: { first, _ in first })
            for link in links {
                let owner = context.object(with: link.owner)
                if link.isRequired, !owner.isDeleted { waited.append(owner) }
                let object: ManagedObject?
                switch link.target {
                case .identity(let value): object = found[destination.identityKey(value)]
                case .local(let localID): object = try localObject(localID, for: link.relationship, ownerEntity: link.owner.entityName)
                }
                guard let object, !owner.isDeleted else {
                    report.unresolvedLinks.append("\(link.owner.entityName).\(link.relationship.name): \(link.target.displayText) (\(link.record))")
                    continue
                }
                seen[object.objectID] = ()
                try attach(object, to: owner, as: link)
            }
        }
        // Owners that waited for a required link are judged now, linked or not.
        let others = touched
        touched = waited
        try deleteInvalidObjects()
        touched = others
    }

    /// Adds the destination of a pending link to its owner; in an ordered to-many, where the
    /// payload put it: links resolve in payload order, so each goes back to its own position.
    private func attach(_ object: ManagedObject, to owner: ManagedObject, as link: PendingLink) throws {
        let relationship = link.relationship
        guard relationship.isToMany else { return try owner.setValue(object, forKey: relationship.name) }
        var members = try owner.objects(forKey: relationship.name)
        guard !members.contains(where: { $0 === object }) else { return }
        guard relationship.isOrdered else { return try owner.add(object, toKey: relationship.name) }
        members.insert(object, at: min(link.position, members.count))
        try owner.setValue(members, forKey: relationship.name)
    }

    private func assign(_ objects: [ManagedObject], to relationship: RelationshipDescription, of owner: ManagedObject) throws {
        if relationship.isToMany {
            // Setting an equal set would still count as a change of order for an unordered to-many.
            let current = try owner.objects(forKey: relationship.name)
            let same = relationship.isOrdered ? current.map(\.objectID) == objects.map(\.objectID) : Set(current.map(\.objectID)) == Set(objects.map(\.objectID))
            guard !same else { return }
            try owner.setValue(objects, forKey: relationship.name)
            if let inverse = requiredInverse(of: relationship) {
                let kept = Set(objects.map(\.objectID))
                droppedMembers += current.filter { !kept.contains($0.objectID) }.map { ($0, inverse) }
            }
        } else if try (owner.value(forKey: relationship.name) as? ManagedObject) !== objects.first {
            try owner.setValue(objects.first, forKey: relationship.name)
        }
    }

    /// The name of a to-many's inverse when it is a required to-one: members the to-many drops
    /// cannot be saved alone.
    private func requiredInverse(of relationship: RelationshipDescription) -> String? {
        guard let inverseName = relationship.inverseName, let destination = model.entity(named: relationship.destinationEntityName),
            let inverse = model.relationship(named: inverseName, in: destination), !inverse.isToMany, !inverse.isOptional
        else { return nil }
        return inverseName
    }

    /// Deletes the members replaced to-manys dropped that no later record of the import took:
    /// a page without its book cannot be saved, so the payload that left it out removes it.
    func deleteOrphans() throws {
        defer { droppedMembers = [] }
        for (member, inverse) in droppedMembers where !member.isDeleted && member.managedObjectContext != nil {
            guard try member.value(forKey: inverse) == nil else { continue }
            activity.record("Deleting \(describe(member)): its \(inverse) no longer holds it", entity: member.entity.name)
            try context.delete(member)
            setDeleted(member)
        }
    }

    /// Counts the objects below an unchanged object as seen, along the relationships its record holds.
    private func markSeen(below object: ManagedObject, record: JSONRecordIndex, mapping: EntityImportMapping) throws {
        for relationship in mapping.relationships {
            guard let payload = relationship.keys.value(in: record) ?? nil else { continue }
            let related: [ManagedObject] = relationship.relationship.isToMany
                ? try object.objects(forKey: relationship.relationship.name)
                : [try object.value(forKey: relationship.relationship.name) as? ManagedObject].compactMap { $0 }
            let nested = (payload.arrayValue ?? [payload]).compactMap { JSONRecordIndex($0) }
            let destination = try self.mapping(for: relationship.relationship.destinationEntityName)
            for child in related where seen[child.objectID] == nil {
                seen[child.objectID] = ()
                setState(.unchanged, of: child)
                if let first = nested.first { try markSeen(below: child, record: first, mapping: destination) }
            }
        }
    }

    // MARK: - States and messages

    /// Records an object's state once per import. An object met again keeps the strongest
    /// state: created over updated over unchanged.
    func setState(_ state: ImportState, of object: ManagedObject) {
        // Read once: each read of an object's ID copies it.
        let id = object.objectID
        let entity = id.entityName
        if Self.isStronger(state, than: callStates[id]) { callStates[id] = state }
        let previous = states[id]
        guard Self.isStronger(state, than: previous) else { return }
        if let previous { report.counts[entity]?[previous]? -= 1 }
        states[id] = state
        report.record(entity, state)
        if state == .created || state == .updated {
            activity.record("\(state == .created ? "Creating" : "Updating") \(describe(object))", entity: entity)
        }
        onObject?(object, state)
    }

    /// Counts `object` as deleted by this import, in place of any state it had.
    func setDeleted(_ object: ManagedObject) {
        let id = object.objectID
        if let previous = states[id] { report.counts[object.entity.name]?[previous]? -= 1 }
        states[id] = .deleted
        callStates[id] = .deleted
        report.record(object.entity.name, .deleted)
        seen[id] = nil
        onObject?(object, .deleted)
    }

    /// Whether `state` outranks `previous` for an object met again: created over updated over
    /// unchanged, and nothing over deleted.
    static func isStronger(_ state: ImportState, than previous: ImportState?) -> Bool {
        guard let previous else { return true }
        func strength(_ state: ImportState) -> Int? {
            switch state {
            case .unchanged: 0
            case .updated: 1
            case .created: 2
            case .deleted: nil
            }
        }
        guard let old = strength(previous), let new = strength(state) else { return false }
        return new > old
    }

    static func keyName(of json: JSONValue, in record: JSONRecordIndex) -> String? {
        record.members.first { $0.value.location == json.location && json.location != nil }?.key
    }

    static func excerpt(_ json: JSONValue) -> String {
        let text = JSONWriter.string(from: json, pretty: false)
        return text.count > 40 ? String(text.prefix(37)) + "..." : text
    }
}

extension ManagedObject {
    /// Whether ``effectiveChanges`` differs from `before`, found without building it: the
    /// question is asked of every updated record.
    fileprivate func hasEffectiveChanges(since before: PropertyValues) -> Bool {
        var unchangedCount = 0
        for (key, value) in changedValues where committedValues[key] != value {
            guard before[key] == value else { return true }
            unchangedCount += 1
        }
        return unchangedCount != before.count
    }
}
