/// The cells of one selected row, wherever they are read from: a ``RowSnapshot``'s array, or
/// a statement's current row as it is stepped. ``RowColumns`` says which cell holds what.
protocol RowCells {
    /// The value of the column at `position` of the row's ``RowColumns``.
    func cell(_ position: Int) -> DatabaseValue
    /// The value of the column at `position` as an attribute of `type` holds it:
    /// ``AttributeValue/init(_:type:)`` of ``cell(_:)``, which a reader may take a shorter way to.
    func attributeValue(_ position: Int, type: AttributeType) -> AttributeValue?
}

extension RowCells {
    func attributeValue(_ position: Int, type: AttributeType) -> AttributeValue? {
        AttributeValue(cell(position), type: type)
    }
}

/// One entity row as the store keeps it: its key, entity, version and column values.
package struct RowSnapshot: RowCells, Sendable, Equatable {
    /// The row's entity (a sub-entity's rows name the sub-entity).
    package var entityName: String
    /// `Z_PK`.
    package var primaryKey: Int64
    /// `Z_OPT`: raised on every save of the row; an update names the version it read.
    package var version: Int64
    /// Where the row's properties are among ``cells``; `nil` for a row read without its values.
    let columns: RowColumns?
    /// The values selected, as the statement returned them: ``columns`` counts positions from
    /// ``firstCell``. Kept whole, so that a row costs no copy of its values.
    let cells: [DatabaseValue]
    let firstCell: Int

    /// A row read without its values.
    init(entityName: String, primaryKey: Int64, version: Int64) {
        (self.entityName, self.primaryKey, self.version) = (entityName, primaryKey, version)
        (columns, cells, firstCell) = (nil, [], 0)
    }

    /// A row whose properties `columns` finds in `cells` from `firstCell` on.
    init(entityName: String, primaryKey: Int64, version: Int64, columns: RowColumns, cells: [DatabaseValue], firstCell: Int) {
        (self.entityName, self.primaryKey, self.version) = (entityName, primaryKey, version)
        (self.columns, self.cells, self.firstCell) = (columns, cells, firstCell)
    }

    /// The value in the column at `position` of ``columns``.
    @inline(__always)
    func cell(_ position: Int) -> DatabaseValue {
        cells[firstCell + position]
    }

    /// The values by property name: attributes, and to-one relationships as the destination's `Z_PK`.
    package var values: [String: DatabaseValue] {
        guard let columns else { return [:] }
        return Dictionary(columns.values.map { ($0.property, cell($0.position)) }, uniquingKeysWith: { _, last in last })
    }

    /// The to-one relationships that hold a row, by relationship name, with the destination's
    /// exact entity (read from the `Z<n>_` column where the destination has sub-entities).
    package var references: [String: RowReference] {
        guard let columns else { return [:] }
        var references: [String: RowReference] = [:]
        for index in columns.references.indices {
            if let reference = reference(index) { references[columns.references[index].relationship] = reference }
        }
        return references
    }

    /// The row the to-one `columns.references[index]` holds, if any.
    func reference(_ index: Int) -> RowReference? {
        columns?.reference(index, in: self)
    }

    package static func == (lhs: RowSnapshot, rhs: RowSnapshot) -> Bool {
        lhs.entityName == rhs.entityName && lhs.primaryKey == rhs.primaryKey && lhs.version == rhs.version
            && lhs.values == rhs.values && lhs.references == rhs.references
    }
}

/// Where one entity's properties are among the columns a read selects, shared by every row of
/// that entity the read returns.
final class RowColumns: Sendable {
    /// Attributes and to-ones (as the destination's key column), by position.
    let values: [(property: String, position: Int)]
    /// To-one relationships: key position, the destination's `Z_ENT` position if stored, and
    /// the destination entity named by the model.
    let references: [(relationship: String, key: Int, entity: Int?, destination: String)]
    /// Entity names by `Z_ENT`, for the exact entity of a reference.
    let entityNames: [Int: String]
    /// The slots of the entity's objects' values, and which column fills each stored one: what
    /// loading a row into an object reads, without looking a property up by name.
    let slots: PropertySlots
    /// Every stored attribute and to-one of the entity, with the column or reference that holds
    /// it (`nil` when the store has no column for it: the value is then nil).
    let attributeSlots: [(slot: Int, position: Int?, type: AttributeType)]
    let referenceSlots: [(slot: Int, reference: Int?)]

    init(
        values: [(property: String, position: Int)], references: [(relationship: String, key: Int, entity: Int?, destination: String)],
        entityNames: [Int: String], slots: PropertySlots, stored: StoredSlots
    ) {
        (self.values, self.references, self.entityNames, self.slots) = (values, references, entityNames, slots)
        let positions = Dictionary(values.map { ($0.property, $0.position) }, uniquingKeysWith: { first, _ in first })
        let referenceIndexes = Dictionary(references.indices.map { (references[$0].relationship, $0) }, uniquingKeysWith: { first, _ in first })
        attributeSlots = stored.attributes.map { ($0.slot, positions[slots.names[$0.slot]], $0.type) }
        referenceSlots = stored.toOnes.map { ($0.slot, referenceIndexes[$0.name]) }
    }

    /// The row the to-one `references[index]` holds in `cells`, if any.
    func reference(_ index: Int, in cells: some RowCells) -> RowReference? {
        let reference = references[index]
        guard let key = cells.cell(reference.key).int64Value else { return nil }
        let exact = reference.entity.flatMap { cells.cell($0).int64Value }.flatMap { entityNames[Int($0)] }
        return RowReference(entityName: exact ?? reference.destination, primaryKey: key)
    }
}
