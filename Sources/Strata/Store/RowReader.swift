/// Turns the rows of a `SELECT` on one entity table into ``RowSnapshot``s, for every entity
/// whose rows the selection may return (an entity and its sub-entities share a table).
///
/// The select list is `Z_PK, Z_ENT, Z_OPT` followed by ``columns``, each read from the
/// alias given; a caller may append columns of its own after them.
struct RowReader {
    /// The columns after `Z_PK, Z_ENT, Z_OPT`, in select order.
    let columns: [String]
    /// What each entity reads: its properties' positions in ``columns``.
    private let readers: [Int: RowColumns]
    private let entityNames: [Int: String]
    private let fallbackEntity: String
    /// The entity's number when it holds its table alone: then every row is its, whatever `Z_ENT` says.
    private let soleEntityNumber: Int?
    /// The reader of ``soleEntityNumber``, found once rather than per row.
    private let soleReader: RowColumns?
    /// The columns that hold values of attributes allowing external storage, with the
    /// attribute each holds (`Book.cover`), and where their files are.
    private let externalPlaces: [String: String]
    private let externalStorage: ExternalBinaryStorage

    /// A reader for rows of `entity` and, unless `includesSubentities` is false, its sub-entities.
    init(entity: StoreLayout.Entity, includesSubentities: Bool = true, store: PersistentStore) {
        let layout = store.layout, model = store.model
        let stored = store.schema.table(named: entity.tableName).map { Set($0.columns.map(\.name)) }
        let range = includesSubentities ? entity.numberRange : entity.number...entity.number
        let entities = layout.entities.filter { $0.tableName == entity.tableName && range.contains($0.number) }
        var columns: [String] = []
        var positions: [String: Int] = [:]
        func position(of column: String) -> Int? {
            guard stored?.contains(column) ?? true else { return nil }
            if let known = positions[column] { return known }
            columns.append(column)
            positions[column] = columns.count - 1
            return columns.count - 1
        }
        let entityNames = layout.entityNamesByNumber
        var externalPlaces: [String: String] = [:]
        for (table, column, place) in store.externalDataColumns where table == entity.tableName { externalPlaces[column] = place }
        self.externalPlaces = externalPlaces
        externalStorage = store.externalStorage
        var readers: [Int: RowColumns] = [:]
        for member in entities {
            var values: [(property: String, position: Int)] = []
            var references: [(relationship: String, key: Int, entity: Int?, destination: String)] = []
            for (name, column) in member.attributeColumns.sorted(by: { $0.key < $1.key }) {
                if let index = position(of: column) { values.append((name, index)) }
            }
            let modelEntity = model.entity(named: member.name)
            for (name, toOne) in member.toOneColumns.sorted(by: { $0.key < $1.key }) {
                guard let key = position(of: toOne.key) else { continue }
                values.append((name, key))
                let destination = modelEntity.flatMap { model.relationship(named: name, in: $0) }?.destinationEntityName
                references.append((name, key, toOne.entity.flatMap(position(of:)), destination ?? name))
            }
            let slots = modelEntity.map(model.propertySlots(of:)) ?? .none
            let stored = modelEntity.flatMap(model.storedSlots(of:)) ?? StoredSlots(attributes: [], toOnes: [])
            readers[member.number] = RowColumns(values: values, references: references, entityNames: entityNames, slots: slots, stored: stored)
        }
        self.columns = columns
        self.readers = readers
        self.entityNames = entityNames
        fallbackEntity = entity.name
        soleEntityNumber = entity.holdsTableAlone ? entity.number : nil
        soleReader = entity.holdsTableAlone ? readers[entity.number] : nil
    }

    /// `Z_PK, Z_ENT, Z_OPT` and the reader's columns, each prefixed with `alias.`.
    func selectList(alias: String) -> String {
        guard !externalPlaces.isEmpty else { return (["Z_PK", "Z_ENT", "Z_OPT"] + columns).map { "\(alias).\($0)" }.joined(separator: ", ") }
        // External binary data is read as the data, from the row or its file.
        return (["Z_PK", "Z_ENT", "Z_OPT"] + columns).map { column in
            externalPlaces[column].map { externalStorage.readingSQL("\(alias).\(column)", key: "\(alias).Z_PK", place: $0) } ?? "\(alias).\(column)"
        }.joined(separator: ", ")
    }

    /// The snapshot of a row selected with ``selectList(alias:)``, from `firstCell` of `row` on.
    func snapshot(_ row: [DatabaseValue], from firstCell: Int = 0) -> RowSnapshot {
        let (entityName, primaryKey, version, columns) = header { row[firstCell + $0].int64Value }
        guard let columns else { return RowSnapshot(entityName: entityName, primaryKey: primaryKey, version: version) }
        return RowSnapshot(entityName: entityName, primaryKey: primaryKey, version: version, columns: columns, cells: row, firstCell: firstCell + 3)
    }

    /// The current row of `statement`, selected with ``selectList(alias:)`` first, read in place.
    func currentRow(of statement: Statement) -> StatementRow {
        let (entityName, primaryKey, version, columns) = header { statement.int64(at: Int32($0)) }
        return StatementRow(statement: statement, reference: RowReference(entityName: entityName, primaryKey: primaryKey), version: version, columns: columns)
    }

    /// What `Z_PK, Z_ENT, Z_OPT`, read as integers by `integer` at 0, 1 and 2, say of a row.
    private func header(_ integer: (Int) -> Int64?) -> (entityName: String, primaryKey: Int64, version: Int64, columns: RowColumns?) {
        let number = soleEntityNumber ?? Int(integer(1) ?? 0)
        let entityName = soleEntityNumber == nil ? entityNames[number] ?? fallbackEntity : fallbackEntity
        return (entityName, integer(0) ?? 0, integer(2) ?? 0, soleReader ?? readers[number])
    }
}

/// A row of a statement selected with ``RowReader/selectList(alias:)``, its cells read from
/// the statement: valid only until the statement steps again.
struct StatementRow: RowCells {
    let statement: Statement
    let reference: RowReference
    /// `Z_OPT`.
    let version: Int64
    /// Where the entity's properties are; `nil` for an entity the reader does not know.
    let columns: RowColumns?

    func cell(_ position: Int) -> DatabaseValue {
        statement.value(at: Int32(3 + position))
    }

    func attributeValue(_ position: Int, type: AttributeType) -> AttributeValue? {
        statement.attributeValue(at: Int32(3 + position), type: type)
    }

    /// The row copied out of the statement, to be kept.
    var snapshot: RowSnapshot {
        guard let columns else { return RowSnapshot(entityName: reference.entityName, primaryKey: reference.primaryKey, version: version) }
        return RowSnapshot(
            entityName: reference.entityName, primaryKey: reference.primaryKey, version: version, columns: columns,
            cells: statement.currentRow, firstCell: 3)
    }
}
