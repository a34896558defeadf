import Foundation

// MARK: - Records read in SQL

extension Exporter {
    /// Writes the records of `request`'s entity from rows read in SQL, without making objects:
    /// attributes and the identity values of to-one destinations in one query, the members of
    /// to-manys (identity values, or nested records that hold no links) in one query per
    /// relationship and batch. A row whose record needs an object (a nested record with links
    /// of its own, a destination without identity value, an object without its own) is
    /// written from its object, so the records are those the objects make.
    ///
    /// - Returns: `false`, having written nothing, when the context has unsaved changes or a
    ///   parent (whose changes the store does not hold), or an exported attribute has no column.
    func forEachRecordFromRows(_ request: FetchRequest, _ body: (JSONValue) throws -> Void) throws -> Bool {
        let entityName = request.entityName
        guard context.parent == nil, !context.hasChanges else { return false }
        let plan = try plan(for: entityName)
        guard !plan.attributes.contains(where: { $0.attribute.isTransient }) else { return false }
        let shape = try RowShape(self, entityName: entityName, plan: plan)
        var rowRequest = request
        rowRequest.resultType = .dictionary
        rowRequest.propertiesToFetch = shape.properties
        var release = ReleaseSchedule(context: context)
        var batch: [[FetchedValue?]] = []
        batch.reserveCapacity(Self.batchSize)
        func writeBatch() throws {
            let loaded = try writeRows(batch, of: entityName, shape: shape, to: body)
            release.afterBatch(loaded)
            batch.removeAll(keepingCapacity: true)
        }
        try context.store.forEachDictionary(rowRequest) { values in
            batch.append(values)
            if batch.count == Self.batchSize { try writeBatch() }
        }
        if !batch.isEmpty { try writeBatch() }
        return true
    }

    /// What a row of the export's query holds, and where.
    struct RowShape {
        /// The selected values: the object's ID, the attributes in plan order, then per link
        /// what ``RowLink/Source`` says.
        let properties: [FetchedProperty]
        let attributes: [(attribute: AttributeDescription, keys: [String])]
        /// The entity whose records the rows make.
        let entityName: String
        /// The links a record may write; of a pair of nested inverses, the side that writes it
        /// is chosen when a record first meets it (``Exporter/writtenLinks(of:through:)``).
        let links: [RowLink]
        let plan: Exporter.Plan
        /// Whether a link is one of a pair of nested inverses.
        let hasPairs: Bool
        /// Where the object's own identity value is, when its entity has one.
        let ownIdentityPosition: Int?
        /// Whether each record carries an `@id`: the entity has no identity attribute and is shared.
        let carriesLocalIDs: Bool

        init(_ exporter: Exporter, entityName: String, plan: Exporter.Plan) throws {
            var properties: [FetchedProperty] = [.keyPath("self", as: "object")]
            for (index, entry) in plan.attributes.enumerated() { properties.append(.keyPath(entry.attribute.name, as: "a\(index)")) }
            ownIdentityPosition = try exporter.identity(of: entityName).map { identity in
                if let index = plan.attributes.firstIndex(where: { $0.attribute.name == identity.attribute.name }) { return 1 + index }
                properties.append(.keyPath(identity.attribute.name, as: "own"))
                return properties.count - 1
            }
            carriesLocalIDs = try ownIdentityPosition == nil && exporter.carriesLocalIDs(entityName)
            var links: [RowLink] = []
            for (index, link) in plan.links.enumerated() where exporter.writes(link) {
                let relationship = link.relationship, destination = relationship.destinationEntityName
                let source: RowLink.Source
                if !relationship.isToMany {
                    let identity = link.kind == .identity ? try exporter.identity(of: destination)?.attribute : nil
                    source = .toOne(position: properties.count, identity: identity)
                    properties.append(.keyPath(relationship.name, as: "l\(index)"))
                    if let identity { properties.append(.keyPath(relationship.name + "." + identity.name, as: "i\(index)")) }
                } else if link.kind == .identity, let identity = try exporter.identity(of: destination)?.attribute {
                    source = .identities(identity)
                } else if link.kind != .reference, let leaf = try exporter.leafShape(of: destination, through: relationship) {
                    source = .leafRecords(leaf)
                } else {
                    source = .counted(position: properties.count)
                    properties.append(.keyPath(relationship.name + ".@count", as: "l\(index)"))
                }
                links.append(RowLink(link, source: source))
            }
            hasPairs = links.contains { $0.isPaired }
            (self.properties, self.links, self.plan) = (properties, links, plan)
            attributes = plan.attributes.map { ($0.attribute, $0.keys.exportKey) }
            self.entityName = entityName
        }
    }

    /// The records of a nested destination that holds no link but the way back: made from
    /// its rows.
    struct LeafShape {
        let attributes: [(attribute: AttributeDescription, keys: [String])]
        /// The entity whose records the rows make.
        let entityName: String
        /// The destination's identity attribute, which orders the records of an unordered to-many.
        let identity: AttributeDescription?
        /// Whether a record without identity value carries an `@id`.
        let carriesLocalIDs: Bool
    }

    /// The ``LeafShape`` of the records of `entityName` nested under `relationship`, or `nil`
    /// when they hold links of their own or the entity has sub-entities.
    fileprivate func leafShape(of entityName: String, through relationship: RelationshipDescription) throws -> LeafShape? {
        guard let entity = context.model.entity(named: entityName), context.model.directSubentities(of: entity).isEmpty else { return nil }
        let plan = try plan(for: entityName)
        let holdsLinks = plan.links.contains { link in
            writes(link) && link.relationship.name != relationship.inverseName
        }
        guard !holdsLinks, !plan.attributes.contains(where: { $0.attribute.isTransient }) else { return nil }
        return LeafShape(
            attributes: plan.attributes.map { ($0.attribute, $0.keys.exportKey) }, entityName: entityName,
            identity: try identity(of: entityName)?.attribute, carriesLocalIDs: try carriesLocalIDs(entityName))
    }

    /// A link of ``RowShape``, with what a record of it needs made once.
    final class RowLink {
        /// Where a record finds the link's value.
        enum Source {
            /// The destination's ID at `position` in the row, then its identity value when
            /// the link holds identity values.
            case toOne(position: Int, identity: AttributeDescription?)
            /// A to-many of identity values, read for each batch of rows.
            case identities(AttributeDescription)
            /// A to-many of nested records made from their rows, read for each batch.
            case leafRecords(LeafShape)
            /// A to-many of nested records that need their objects: its count at `position`.
            case counted(position: Int)
        }

        let id: String
        let relationship: String
        let isOrdered: Bool
        /// Where a nested record, or nil, goes.
        let exportKey: [String]
        /// Where identity values go.
        let identityKey: [String]
        let source: Source
        let isPaired: Bool

        init(_ link: Exporter.Link, source: Source) {
            (id, relationship, isOrdered, self.source) = (link.id, link.relationship.name, link.relationship.isOrdered, source)
            (exportKey, identityKey) = (link.keys.exportKey, [link.identityKey])
            isPaired = link.kind == .nested && link.inverse.map { $0.kind == .nested && $0.id != link.id } == true
        }
    }

    /// What a batch of rows reads besides them: the members of its to-manys, by link.
    private struct BatchMembers {
        var identities: [String: ToManyMembers] = [:]
        var records: [String: [Int64: [RowSnapshot]]] = [:]
    }

    /// Writes the records of a batch of rows; returns the IDs of the objects it had to load.
    private func writeRows(_ rows: [[FetchedValue?]], of entityName: String, shape: RowShape, to body: (JSONValue) throws -> Void) throws -> [ObjectID] {
        let keys = rows.compactMap { values -> Int64? in
            guard case .object(let id)? = values[0] else { return nil }
            return id.primaryKey
        }
        var members = BatchMembers()
        for link in shape.links {
            switch link.source {
            case .identities(let identity):
                members.identities[link.id] = try context.store.toManyMembers(entityName, link.relationship, attribute: identity.name, owners: keys)
            case .leafRecords:
                members.records[link.id] = try context.store.toManyRows(entityName, link.relationship, owners: keys, readsValues: true)
            case .toOne, .counted: break
            }
        }
        var loaded: [ObjectID] = []
        for values in rows {
            guard case .object(let id)? = values[0], written[id] == nil else { continue }
            let made = try record(of: id.primaryKey ?? 0, from: values, members: members, shape: shape)
            settleWarnings(written: made != nil)
            if let (record, nested) = made {
                written[id] = ()
                for member in nested { written[member] = () }
                try body(record)
            } else {
                loaded.append(id)
                try writeRecords(of: context.objects(with: [id], entityName: entityName), in: entityName, to: body)
            }
        }
        return loaded
    }

    /// The record of the row `values` and the IDs of the records nested in it, or `nil` when
    /// only its object can make it.
    private func record(
        of primaryKey: Int64, from values: [FetchedValue?], members: BatchMembers, shape: RowShape
    ) throws -> (JSONValue, nested: [ObjectID])? {
        // An object without its identity value may be nested where the other side holds it.
        if let position = shape.ownIdentityPosition, values[position] == nil { return nil }
        var record: [JSONMember] = []
        record.reserveCapacity(shape.attributes.count + shape.links.count + 1)
        if shape.carriesLocalIDs { record.append(Self.localIDMember(Self.localID(entityName: shape.entityName, primaryKey: primaryKey))) }
        for (index, (attribute, keys)) in shape.attributes.enumerated() {
            Self.insert(values[1 + index]?.attributeValue.map { json($0, of: attribute, in: shape.entityName) } ?? .null, at: keys, into: &record)
        }
        var nested: [ObjectID] = []
        let pairs = shape.hasPairs ? Set(writtenLinks(of: shape.plan, through: nil).map(\.id)) : []
        for link in shape.links where !link.isPaired || pairs.contains(link.id) {
            switch link.source {
            case .toOne(let position, let identity):
                guard values[position] != nil else {
                    Self.insert(.null, at: identity != nil ? link.identityKey : link.exportKey, into: &record)
                    continue
                }
                // A destination to nest, or one without identity value (or a row at all), needs its object.
                guard identity != nil, let value = values[position + 1]?.attributeValue else { return nil }
                Self.insert(json(value, dateFormat: nil), at: link.identityKey, into: &record)
            case .identities(let identity):
                guard let linked = members.identities[link.id] else { return nil }
                var items: [(value: AttributeValue, primaryKey: Int64)] = []
                for position in linked.positions(of: primaryKey) {
                    guard let value = AttributeValue(linked.values[position], type: identity.type) else { return nil }
                    items.append((value, linked.keys[position]))
                }
                if !link.isOrdered { items = Self.sortedByIdentity(items) { ($0.value.databaseValue, $0.primaryKey) } }
                Self.insert(.array(items.map { json($0.value, dateFormat: nil) }), at: link.identityKey, into: &record)
            case .leafRecords(let leaf):
                var rows = members.records[link.id]?[primaryKey] ?? []
                if !link.isOrdered, let identity = leaf.identity {
                    rows = Self.sortedByIdentity(rows) { row in
                        (row.values[identity.name].flatMap { AttributeValue($0, type: identity.type) }?.databaseValue ?? .null, row.primaryKey)
                    }
                }
                var items: [JSONValue] = []
                for row in rows {
                    let id = context.permanentID(entityName: row.entityName, primaryKey: row.primaryKey)
                    // A record written before is a reference here, which its object makes.
                    guard written[id] == nil else { return nil }
                    nested.append(id)
                    var members: [JSONMember] = []
                    if leaf.carriesLocalIDs, leaf.identity.flatMap({ identity in row.values[identity.name].flatMap { AttributeValue($0, type: identity.type) } }) == nil {
                        members.append(Self.localIDMember(Self.localID(entityName: row.entityName, primaryKey: row.primaryKey)))
                    }
                    for (attribute, keys) in leaf.attributes {
                        let value = row.values[attribute.name].flatMap { AttributeValue($0, type: attribute.type) }
                        Self.insert(value.map { json($0, of: attribute, in: leaf.entityName) } ?? .null, at: keys, into: &members)
                    }
                    items.append(.object(members))
                }
                Self.insert(.array(items), at: link.exportKey, into: &record)
            case .counted(let position):
                guard values[position]?.attributeValue?.databaseValue.int64Value == 0 else { return nil }
                Self.insert(.array([]), at: link.exportKey, into: &record)
            }
        }
        return (.object(record), nested)
    }
}
