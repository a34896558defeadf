import Foundation

// MARK: - Records read in SQL

extension Exporter {
    /// Writes the records of `request`'s entity from rows read in SQL, without making objects:
    /// attributes and the identity values of to-one destinations in one query, the members of
    /// to-manys of identity values in one query per relationship and batch. A row whose record needs an object
    /// (a nested record to write, a destination without identity value, an object without its
    /// own) is written from its object, so the records are those the objects make.
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
        /// The selected values: the object's ID, the attributes in plan order, then for each
        /// to-one its destination's ID and, for identity values, the destination's identity.
        let properties: [FetchedProperty]
        let attributes: [(keys: [String], dateFormat: String?)]
        /// The links a record may write; of a pair of nested inverses, the side that writes it
        /// is chosen when a record first meets it (``Exporter/writtenLinks(of:through:)``).
        let links: [RowLink]
        let plan: Exporter.Plan
        /// Whether a link is one of a pair of nested inverses.
        let hasPairs: Bool
        /// Where the object's own identity value is, when its entity has one.
        let ownIdentityPosition: Int?

        init(_ exporter: Exporter, entityName: String, plan: Exporter.Plan) throws {
            var properties: [FetchedProperty] = [.keyPath("self", as: "object")]
            for (index, entry) in plan.attributes.enumerated() { properties.append(.keyPath(entry.attribute.name, as: "a\(index)")) }
            ownIdentityPosition = try exporter.identity(of: entityName).map { identity in
                if let index = plan.attributes.firstIndex(where: { $0.attribute.name == identity.attribute.name }) { return 1 + index }
                properties.append(.keyPath(identity.attribute.name, as: "own"))
                return properties.count - 1
            }
            var links: [RowLink] = []
            for (index, link) in plan.links.enumerated() where link.kind != .omitted && !exporter.silenced.contains(link.id) {
                let relationship = link.relationship
                let identity = link.kind == .identity ? try exporter.identity(of: relationship.destinationEntityName)?.attribute : nil
                // A to-many of nested records is counted in the row: only a row with members needs its object.
                let counted = relationship.isToMany && identity == nil
                links.append(RowLink(link, position: relationship.isToMany && !counted ? nil : properties.count, identity: identity))
                if counted { properties.append(.keyPath(relationship.name + ".@count", as: "l\(index)")) }
                guard !relationship.isToMany else { continue }
                properties.append(.keyPath(relationship.name, as: "l\(index)"))
                if let identity { properties.append(.keyPath(relationship.name + "." + identity.name, as: "i\(index)")) }
            }
            hasPairs = links.contains { $0.isPaired }
            (self.properties, self.links, self.plan) = (properties, links, plan)
            attributes = plan.attributes.map { ($0.keys.exportKey, $0.attribute.userInfo["dateFormat"]) }
        }
    }

    /// A link of ``RowShape``, with what a record of it needs made once.
    final class RowLink {
        let id: String
        let relationship: String
        let isToMany: Bool
        let isOrdered: Bool
        /// Where a nested record, or nil, goes.
        let exportKey: [String]
        /// Where identity values go.
        let identityKey: [String]
        /// The destination's identity attribute, for a link of identity values.
        let identity: AttributeDescription?
        /// Where the row holds a to-one's destination ID (followed by its identity value), or the
        /// number of members of a to-many of nested records.
        let position: Int?
        let isPaired: Bool

        init(_ link: Exporter.Link, position: Int?, identity: AttributeDescription?) {
            (id, relationship, isToMany, isOrdered) = (link.id, link.relationship.name, link.relationship.isToMany, link.relationship.isOrdered)
            (exportKey, identityKey, self.identity, self.position) = (link.keys.exportKey, [link.identityKey], identity, position)
            isPaired = link.kind == .nested && link.inverse.map { $0.kind == .nested && $0.id != link.id } == true
        }
    }

    /// Writes the records of a batch of rows; returns the IDs of the objects it had to load.
    private func writeRows(_ rows: [[FetchedValue?]], of entityName: String, shape: RowShape, to body: (JSONValue) throws -> Void) throws -> [ObjectID] {
        let keys = rows.compactMap { values -> Int64? in
            guard case .object(let id)? = values[0] else { return nil }
            return id.primaryKey
        }
        var members: [String: ToManyMembers] = [:]
        for link in shape.links where link.isToMany && link.position == nil {
            guard let identity = link.identity else { continue }
            members[link.id] = try context.store.toManyMembers(entityName, link.relationship, attribute: identity.name, owners: keys)
        }
        var loaded: [ObjectID] = []
        for values in rows {
            guard case .object(let id)? = values[0], written[id] == nil else { continue }
            if let record = try record(of: id.primaryKey ?? 0, from: values, members: members, shape: shape) {
                written[id] = ()
                try body(record)
            } else {
                loaded.append(id)
                try writeRecords(of: context.objects(with: [id], entityName: entityName), in: entityName, to: body)
            }
        }
        return loaded
    }

    /// The record of the row `values`, or `nil` when only its object can make it.
    private func record(of primaryKey: Int64, from values: [FetchedValue?], members: [String: ToManyMembers], shape: RowShape) throws -> JSONValue? {
        // An object without its identity value may be nested where the other side holds it.
        if let position = shape.ownIdentityPosition, values[position] == nil { return nil }
        var record: [JSONMember] = []
        record.reserveCapacity(shape.attributes.count + shape.links.count)
        for (index, (keys, dateFormat)) in shape.attributes.enumerated() {
            Self.insert(values[1 + index]?.attributeValue.map { json($0, dateFormat: dateFormat) } ?? .null, at: keys, into: &record)
        }
        let pairs = shape.hasPairs ? Set(writtenLinks(of: shape.plan, through: nil).map(\.id)) : []
        for link in shape.links where !link.isPaired || pairs.contains(link.id) {
            if link.isToMany, let position = link.position {
                guard values[position]?.attributeValue?.databaseValue.int64Value == 0 else { return nil }
                Self.insert(.array([]), at: link.exportKey, into: &record)
                continue
            }
            if let position = link.position {
                guard values[position] != nil else {
                    Self.insert(.null, at: link.identity != nil ? link.identityKey : link.exportKey, into: &record)
                    continue
                }
                // A destination to nest, or one without identity value (or a row at all), needs its object.
                guard link.identity != nil, let value = values[position + 1]?.attributeValue else { return nil }
                Self.insert(json(value, dateFormat: nil), at: link.identityKey, into: &record)
                continue
            }
            guard let identity = link.identity, let linked = members[link.id] else { return nil }
            let positions = linked.positions(of: primaryKey)
            var items: [(value: AttributeValue, primaryKey: Int64)] = []
            items.reserveCapacity(positions.count)
            for position in positions {
                guard let value = AttributeValue(linked.values[position], type: identity.type) else { return nil }
                items.append((value, linked.keys[position]))
            }
            if !link.isOrdered {
                // As SQL sorts the identity values, then by key: the order the objects' records use.
                items.sort { a, b in
                    let order = a.value.databaseValue.sortOrder(b.value.databaseValue, caseInsensitive: false)
                    return order == .orderedSame ? a.primaryKey < b.primaryKey : order == .orderedAscending
                }
            }
            Self.insert(.array(items.map { json($0.value, dateFormat: nil) }), at: link.identityKey, into: &record)
        }
        return .object(record)
    }
}
