/// Turns the rows of a `SELECT` on one entity table into ``RowSnapshot``s, for every entity
/// whose rows the selection may return (an entity and its sub-entities share a table).
///
/// The select list is `Z_PK, Z_ENT, Z_OPT` followed by ``columns``, each read from the
/// alias given; a caller may append columns of its own after them.
struct RowReader {
    /// The columns after `Z_PK, Z_ENT, Z_OPT`, in select order.
    let columns: [String]
    /// What each entity reads: its properties' positions in ``columns``.
    private let readers: [Int: EntityColumns]
    private let entityNames: [Int: String]
    private let fallbackEntity: String
    /// The entity's number when it holds its table alone: then every row is its, whatever `Z_ENT` says.
    private let soleEntityNumber: Int?

    private struct EntityColumns {
        var values: [(property: String, position: Int)]
        /// To-one relationships: key position, the destination's `Z_ENT` position if stored, and
        /// the destination entity named by the model.
        var references: [(relationship: String, key: Int, entity: Int?, destination: String)]
    }

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
        var readers: [Int: EntityColumns] = [:]
        for member in entities {
            var reader = EntityColumns(values: [], references: [])
            for (name, column) in member.attributeColumns.sorted(by: { $0.key < $1.key }) {
                if let index = position(of: column) { reader.values.append((name, index)) }
            }
            for (name, toOne) in member.toOneColumns.sorted(by: { $0.key < $1.key }) {
                guard let key = position(of: toOne.key) else { continue }
                reader.values.append((name, key))
                let destination = model.entity(named: member.name).flatMap { model.relationship(named: name, in: $0) }?.destinationEntityName
                reader.references.append((name, key, toOne.entity.flatMap(position(of:)), destination ?? name))
            }
            readers[member.number] = reader
        }
        self.columns = columns
        self.readers = readers
        entityNames = Dictionary(layout.entities.map { ($0.number, $0.name) }, uniquingKeysWith: { first, _ in first })
        fallbackEntity = entity.name
        soleEntityNumber = entity.holdsTableAlone ? entity.number : nil
    }

    /// `Z_PK, Z_ENT, Z_OPT` and the reader's columns, each prefixed with `alias.`.
    func selectList(alias: String) -> String {
        (["Z_PK", "Z_ENT", "Z_OPT"] + columns).map { "\(alias).\($0)" }.joined(separator: ", ")
    }

    /// The snapshot of a row selected with ``selectList(alias:)``.
    func snapshot(_ row: [DatabaseValue]) -> RowSnapshot {
        let number = soleEntityNumber ?? Int(row[1].int64Value ?? 0)
        var values: [String: DatabaseValue] = [:]
        var references: [String: RowReference] = [:]
        if let reader = readers[number] {
            values.reserveCapacity(reader.values.count)
            for (property, position) in reader.values { values[property] = row[3 + position] }
            for reference in reader.references {
                guard let key = row[3 + reference.key].int64Value else { continue }
                let exact = reference.entity.flatMap { row[3 + $0].int64Value }.flatMap { entityNames[Int($0)] }
                references[reference.relationship] = RowReference(entityName: exact ?? reference.destination, primaryKey: key)
            }
        }
        return RowSnapshot(
            entityName: entityNames[number] ?? fallbackEntity, primaryKey: row[0].int64Value ?? 0,
            version: row[2].int64Value ?? 0, values: values, references: references)
    }
}
