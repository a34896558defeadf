import Foundation

/// Imports of plain entities written straight to their rows (``ImportSession/writesRowsDirectly``):
/// the records' values checked as a save checks them, then inserted, updated or deleted by
/// ``RowWritePlan``s, with no object made. The report, the objects seen (for
/// ``ImportSession/removeDeprecated(_:where:)``) and the invalid objects deleted are those the
/// objects would give.
extension ImportSession {
    /// What writing one entity's records as rows needs, made once per entity.
    final class RowImport {
        let mapping: EntityImportMapping
        /// Inserts every stored attribute, in the model's order.
        let plan: RowWritePlan
        /// The stored attributes, in the plan's order.
        let attributes: [AttributeDescription]
        /// Their types, read for each value without copying a description.
        let types: [AttributeType]
        /// Where the value each of the mapping's readers reads goes, among `attributes`.
        let readerPositions: [Int]
        /// The identity attribute's position among `attributes` and the reader's among the
        /// mapping's readers, when records are matched by one.
        let identity: (position: Int, reader: Int)?
        /// The attributes with rules (required, ranges, lengths, patterns), by position.
        let ruledPositions: [Int]
        /// A new row's values: the model's defaults.
        let defaults: [AttributeValue?]
        /// Update plans by the attributes they write, a bit per position.
        var updatePlans: [UInt64: RowWritePlan] = [:]

        init?(mapping: EntityImportMapping, model: ObjectModel, store: PersistentStore) throws {
            let entity = mapping.entity
            let identityName: String?
            switch mapping.identity {
            case .attribute(let name, ignoringCase: false): identityName = name
            case .neverMatch: identityName = nil
            case .attribute, .singleton: return nil
            }
            let attributes = model.allAttributes(of: entity).filter { !$0.isTransient }
            // Rows stand alone only where no link, rule of another entity, or value kept
            // outside the row is involved: anything else goes through objects.
            guard !entity.isAbstract, entity.superentityName == nil, model.allSubentities(of: entity).isEmpty,
                model.allRelationships(of: entity).isEmpty,
                !model.entities.contains(where: { $0.relationships.contains { $0.destinationEntityName == entity.name } }),
                mapping.updatedAtAttribute == nil, entity.userInfo["strata.invalidIf"] == nil,
                entity.uniquenessConstraints.allSatisfy({ $0 == identityName.map { [$0] } }),
                !mapping.readers.isEmpty, attributes.count <= UInt64.bitWidth,
                attributes.allSatisfy(Self.isPlain)
            else { return nil }
            let plan = try store.rowWritePlan(for: entity.name)
            guard plan.attributes == attributes.map(\.name), plan.toOnes.isEmpty else { return nil }
            let positions = Dictionary(uniqueKeysWithValues: attributes.enumerated().map { ($1.name, $0) })
            let readerPositions = mapping.readers.compactMap { positions[$0.name] }
            guard readerPositions.count == mapping.readers.count else { return nil }
            self.mapping = mapping
            self.plan = plan
            self.attributes = attributes
            types = attributes.map(\.type)
            self.readerPositions = readerPositions
            identity = identityName.flatMap { name in
                mapping.readers.firstIndex { $0.name == name }.map { (position: readerPositions[$0], reader: $0) }
            }
            guard identityName == nil || identity != nil else { return nil }
            let ruled = Set(model.ruledProperties(of: entity).attributes.map(\.name))
            ruledPositions = attributes.indices.filter { ruled.contains(attributes[$0].name) }
            defaults = attributes.map(\.defaultAttributeValue)
        }

        /// Whether an attribute's value lives in its column as it is, with nothing computed.
        private static func isPlain(_ attribute: AttributeDescription) -> Bool {
            switch attribute.type {
            case .transformable, .objectID, .undefined, .composite: false
            default: !attribute.isDerived && attribute.compositeName == nil && !attribute.allowsExternalBinaryDataStorage
            }
        }

        /// The plan that writes the attributes of `changed`.
        func updatePlan(_ changed: UInt64, store: PersistentStore) throws -> RowWritePlan {
            if let known = updatePlans[changed] { return known }
            let names = attributes.indices.filter { changed & (1 << UInt64($0)) != 0 }.map { attributes[$0].name }
            let plan = try store.rowWritePlan(for: mapping.entity.name, attributes: names, toOnes: [])
            updatePlans[changed] = plan
            return plan
        }
    }

    /// A row the batch writes: a record's values over the row it found, or over the defaults.
    private struct PendingRow {
        let identity: AttributeValue?
        var values: [AttributeValue?]
        /// The row's key and version, when it exists.
        var existing: (primaryKey: Int64, version: Int64)?
        /// The values the row holds now, when it exists.
        var stored: [AttributeValue?] = []
    }

    // MARK: - Choosing the way

    /// Imports `records` into `entityName`: as rows when the entity and the session allow it
    /// (see ``writesRowsDirectly``), else through objects.
    func importBatch(_ records: [JSONValue], into entityName: String, labels: [RecordLabel]) throws {
        try hooks.beforeBatch?(records.count)
        if let rows = try rowImport(for: entityName) {
            try importRows(records, labels: labels, with: rows)
        } else {
            _ = try importRecords(records, into: entityName, labels: labels)
        }
    }

    /// How `entityName`'s records are written as rows, or `nil` when they must go through
    /// objects: a hook, a callback or a log line needs each object, the context holds some of
    /// the entity's objects (which rows written behind them would leave stale), or the model
    /// gives the entity links or rules that only objects keep.
    private func rowImport(for entityName: String) throws -> RowImport? {
        guard writesRowsDirectly, onObject == nil, context.parent == nil else { return nil }
        let mapping = try mapping(for: entityName)
        let entity = mapping.entity
        guard hooks.hook(hooks.invalidReason, for: entity, in: model) == nil,
            hooks.hook(hooks.shouldUpdate, for: entity, in: model) == nil,
            hooks.hook(hooks.afterImport, for: entity, in: model) == nil,
            activity.logger.logLevel > activity.level(for: entityName).loggerLevel,
            context.registeredClass(for: entityName) == nil,
            !context.registered.keys.contains(where: { $0.entityName == entityName })
        else { return nil }
        if let known = rowImports[entityName] { return known }
        let made = try RowImport(mapping: mapping, model: model, store: context.store)
        rowImports[entityName] = .some(made)
        return made
    }

    // MARK: - Writing rows

    private func importRows(_ records: [JSONValue], labels: [RecordLabel], with rows: RowImport) throws {
        let readerCount = rows.mapping.readers.count
        let incoming = try values(of: try indexRecords(records, labels: labels, mapping: rows.mapping), labels: labels, with: rows)
        // One pending row per identity value: a value repeated in the batch updates one row.
        var pending: [PendingRow] = []
        var slots: [Int] = []
        slots.reserveCapacity(records.count)
        var slotByIdentity: [AttributeValue: Int] = [:]
        slotByIdentity.reserveCapacity(records.count)
        for start in stride(from: 0, to: incoming.count, by: readerCount) {
            let identity = rows.identity.flatMap { incoming[start + $0.reader] ?? nil }
            var slot = pending.count
            if let identity {
                // One look-up: the access stores the new slot when the value is new.
                slot = { $0 }(&slotByIdentity[identity, default: slot])
            }
            if slot == pending.count { pending.append(PendingRow(identity: identity, values: rows.defaults)) }
            slots.append(slot)
        }
        try findExistingRows(of: &pending, slotByIdentity: slotByIdentity, with: rows)
        for (record, slot) in slots.enumerated() {
            for (reader, position) in rows.readerPositions.enumerated() {
                if let value = incoming[record * readerCount + reader] { pending[slot].values[position] = value }
            }
        }
        try write(pending, with: rows)
    }

    /// Each record's value for each of the mapping's readers, record after record: every value
    /// is read and checked before anything is written.
    private func values(of records: [JSONRecordIndex], labels: [RecordLabel], with rows: RowImport) throws -> [AttributeValue??] {
        let readers = rows.mapping.readers
        var incoming: [AttributeValue??] = []
        incoming.reserveCapacity(records.count * readers.count)
        var layout: JSONRecordIndex.KeyLayout?
        var placements: [ImportKeys.Placement] = []
        for (record, label) in zip(records, labels) {
            if record.layout !== layout {
                layout = record.layout
                placements = readers.map { $0.keys.placement(in: record.layout) }
            }
            // By index: iterating the readers would copy each one, strings and all, per record.
            for index in readers.indices {
                let json: JSONValue??
                switch placements[index] {
                case .member(let position):
                    let value = record.members[position].value
                    json = value.isNull ? .some(nil) : value
                case .missing: json = nil
                case .nested: json = readers[index].keys.value(in: record)
                }
                incoming.append(try typedValue(of: readers[index], json: json, in: record, label: label))
            }
        }
        return incoming
    }

    /// Fills in the rows that hold the pending rows' identity values: of several rows holding
    /// one value, the first saved.
    private func findExistingRows(of pending: inout [PendingRow], slotByIdentity: [AttributeValue: Int], with rows: RowImport) throws {
        guard let identity = rows.identity, !slotByIdentity.isEmpty else { return }
        let values = pending.compactMap { $0.identity?.databaseValue }
        let type = rows.types[identity.position]
        for row in try context.store.rows(rows.plan, where: rows.attributes[identity.position].name, isIn: values) {
            guard let value = AttributeValue(row.values[identity.position], type: type), let slot = slotByIdentity[value],
                pending[slot].existing == nil
            else { continue }
            let stored = zip(row.values, rows.types).map { AttributeValue($0, type: $1) }
            pending[slot].existing = (row.primaryKey, row.version)
            pending[slot].stored = stored
            pending[slot].values = stored
        }
    }

    /// Writes the batch's rows in one transaction (a savepoint of the caller's), then records
    /// what happened to each: created, updated, unchanged, or deleted as invalid.
    private func write(_ pending: [PendingRow], with rows: RowImport) throws {
        let entityName = rows.mapping.entity.name
        let store = context.store
        let reasons = pending.map { invalidReason(of: $0.values, with: rows) }
        let newCount = zip(pending, reasons).count { $0.existing == nil && $1 == nil }
        var outcomes: [(key: Int64, state: ImportState)] = []
        outcomes.reserveCapacity(pending.count)
        try writingRows {
            var nextKey = newCount > 0 ? try store.allocatePrimaryKeys(for: entityName, count: newCount).lowerBound : 0
            for (row, reason) in zip(pending, reasons) {
                if let existing = row.existing {
                    if reason != nil {
                        try store.delete(entityName, primaryKey: existing.primaryKey, expectedVersion: existing.version)
                        outcomes.append((existing.primaryKey, .deleted))
                        continue
                    }
                    var changed: UInt64 = 0
                    for position in row.values.indices where row.values[position] != row.stored[position] { changed |= 1 << UInt64(position) }
                    if changed != 0 {
                        let values = row.values.indices.compactMap { changed & (1 << UInt64($0)) != 0 ? (row.values[$0]?.databaseValue ?? .null) : nil }
                        try store.updateRow(
                            try rows.updatePlan(changed, store: store), primaryKey: existing.primaryKey, expectedVersion: existing.version,
                            values: values, toOne: [])
                    }
                    outcomes.append((existing.primaryKey, changed != 0 ? .updated : .unchanged))
                } else if reason == nil {
                    try store.insertRow(rows.plan, key: nextKey, values: row.values.map { $0?.databaseValue ?? .null }, toOne: [])
                    outcomes.append((nextKey, .created))
                    nextKey += 1
                }
            }
        }
        for (row, reason) in zip(pending, reasons) {
            guard let reason else { continue }
            let label = row.identity?.displayText
                ?? (row.existing.map { context.permanentID(entityName: entityName, primaryKey: $0.primaryKey) } ?? context.newTemporaryID(for: entityName)).description
            report.invalid.append(ImportReport.InvalidObject(entity: entityName, object: label, reason: reason))
            // A record whose row was never written leaves only its count.
            if row.existing == nil { setRowDeleted(entityName: entityName) }
        }
        record(outcomes, of: entityName)
        if context.hearsBatchChanges { announce(outcomes, of: entityName) }
    }

    /// Runs `body` in the transaction open on the store's connection, else in one of its own.
    /// A savepoint per batch would copy every page the batch touches to a journal first: the
    /// caller of the open transaction rolls it back whole when an import fails.
    private func writingRows(_ body: () throws -> Void) throws {
        let store = context.store
        do {
            try store.withConnection {
                store.setHistoryOrigin(author: context.transactionAuthor, contextName: context.name)
                if store.database.isInTransaction { try body() } else { try store.database.inTransaction(body) }
            }
        } catch let error as DatabaseError {
            throw ContextError(storeFailure: error)
        }
    }

    /// Why a row with `values` is invalid by the model's rules, worded as
    /// ``ManagedObject/invalidReason()`` words it, or `nil`.
    private func invalidReason(of values: [AttributeValue?], with rows: RowImport) -> String? {
        var reasons: [String] = []
        for position in rows.ruledPositions {
            let attribute = rows.attributes[position]
            if let problem = attribute.problem(with: values[position]) { reasons.append("\(attribute.name) \(problem)") }
        }
        return reasons.isEmpty ? nil : reasons.joined(separator: "; ")
    }

    // MARK: - States of rows

    /// ``setState(_:of:)`` and ``setDeleted(_:)`` for the rows of one batch: each row met once.
    private func record(_ outcomes: [(key: Int64, state: ImportState)], of entityName: String) {
        var added: [ImportState: Int] = [:], removed: [ImportState: Int] = [:]
        seen.updateTable(entityName) { seen in
            states.updateTable(entityName) { states in
                callStates.updateTable(entityName) { callStates in
                    for (key, state) in outcomes {
                        if state == .deleted {
                            if let previous = states[key] { removed[previous, default: 0] += 1 }
                            states[key] = .deleted
                            callStates[key] = .deleted
                            seen[key] = nil
                            added[.deleted, default: 0] += 1
                            continue
                        }
                        seen[key] = ()
                        if Self.isStronger(state, than: callStates[key]) { callStates[key] = state }
                        let previous = states[key]
                        guard Self.isStronger(state, than: previous) else { continue }
                        if let previous { removed[previous, default: 0] += 1 }
                        states[key] = state
                        added[state, default: 0] += 1
                    }
                }
            }
        }
        for (state, count) in removed { report.counts[entityName]?[state]? -= count }
        for (state, count) in added { report.counts[entityName, default: [:]][state, default: 0] += count }
    }

    /// Counts a record whose row was never written as deleted: it was invalid when new.
    private func setRowDeleted(entityName: String) {
        report.record(entityName, .deleted)
        callStates[context.newTemporaryID(for: entityName)] = .deleted
    }

    /// Tells the contexts that merge this one's saves which rows the batch wrote.
    private func announce(_ outcomes: [(key: Int64, state: ImportState)], of entityName: String) {
        var inserted: [ObjectID] = [], updated: [ObjectID] = [], deleted: [ObjectID] = []
        for (key, state) in outcomes {
            let id = context.permanentID(entityName: entityName, primaryKey: key)
            switch state {
            case .created: inserted.append(id)
            case .updated: updated.append(id)
            case .deleted: deleted.append(id)
            case .unchanged: break
            }
        }
        context.announceBatchChanges(inserted: inserted, updated: updated, deleted: deleted)
    }
}
