import Foundation

/// Core Data's persistent history format: the three tables a store that tracks history holds
/// beside the entities' tables, and how their values are read.
///
/// Confirmed on stores Core Data wrote (`corpus/stores/coredataplus/SampleModel2_V1.sqlite`,
/// `SampleModel2_V2.sqlite`, Core Data 1344–1345):
/// - the `CREATE TABLE` and `CREATE INDEX` statements of ``createStatements`` (copied from
///   those stores, spacing included);
/// - `Z_PRIMARYKEY` rows 16001 `CHANGE`, 16002 `TRANSACTION`, 16003 `TRANSACTIONSTRING`, whose
///   `Z_MAX` counts the rows handed out, and `Z_ENT` of each history row set to its table's
///   number, `Z_OPT` left NULL;
/// - one `ATRANSACTION` row for a save, its author, bundle, context name and process interned
///   in `ATRANSACTIONSTRING` (the `…TS` columns hold the string's `Z_PK`, the `VARCHAR` twins
///   stay NULL), `ZTIMESTAMP` in seconds since 2001-01-01;
/// - one `ACHANGE` row per inserted object, `ZCHANGETYPE` 0, `ZENTITY` the row's own `Z_ENT`
///   (a sub-entity's, not its root's), `ZENTITYPK` its `Z_PK`, `ZCOLUMNS` NULL.
///
/// Not in those stores, which hold inserts only, and so inferred (from Core Data's
/// `NSPersistentHistoryChangeType` and from published reading of other apps' stores):
/// `ZCHANGETYPE` 1 for an update and 2 for a deletion; `ZCOLUMNS` of an update as a bitmap
/// read from the most significant bit of its first byte, bit *i* standing for the *i*-th of
/// the entity's stored properties (attributes and relationships, inherited ones included) in
/// order of name; one `ZTOMBSTONE<n> BLOB` column per attribute marked to be preserved after
/// deletion, *n* its place among the entity's preserved attributes in order of name, holding
/// the value as the attribute's own column held it (none for an attribute that allows
/// external binary storage, whose values Core Data is reported not to keep). Core Data fills
/// these tables with SQLite
/// triggers; the stores hold none, so Strata's are temporary ones of its own connection, and a
/// context's save of many rows of a table writes their changes itself, that table's triggers
/// dropped for its writes (``PersistentHistoryRecorder``).
enum PersistentHistory {
    /// The table of changes, one row per object a transaction inserted, updated or deleted.
    static let changeTable = "ACHANGE"
    /// The table of transactions, one row per save.
    static let transactionTable = "ATRANSACTION"
    /// The table of interned strings (authors, bundles, context names, processes).
    static let stringTable = "ATRANSACTIONSTRING"
    /// The three tables, in `Z_ENT` order.
    static let tables = [changeTable, transactionTable, stringTable]

    /// The `Z_PRIMARYKEY` numbers and names of the three tables.
    static let changeEntity = (number: 16001, name: "CHANGE")
    static let transactionEntity = (number: 16002, name: "TRANSACTION")
    static let stringEntity = (number: 16003, name: "TRANSACTIONSTRING")
    static let primaryKeyRows = [changeEntity, transactionEntity, stringEntity]

    /// Whether a `Z_PRIMARYKEY` row is one of the history tables' rather than an entity's.
    static func isHistoryRow(number: Int, name: String) -> Bool {
        primaryKeyRows.contains { $0.number == number && $0.name == name }
    }

    /// Whether `table` is one of the three history tables.
    static func isHistoryTable(_ table: String) -> Bool {
        tables.contains { $0.caseInsensitiveCompare(table) == .orderedSame }
    }

    /// The tables and indexes as Core Data creates them (without tombstone columns).
    static let createStatements = [
        "CREATE TABLE ACHANGE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCHANGETYPE INTEGER, ZENTITY INTEGER, ZENTITYPK INTEGER, ZTRANSACTIONID INTEGER, ZCOLUMNS BLOB )",
        "CREATE TABLE ATRANSACTION ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZAUTHORTS INTEGER, ZBUNDLEIDTS INTEGER, ZCONTEXTNAMETS INTEGER, ZPROCESSIDTS INTEGER, ZTIMESTAMP FLOAT, ZAUTHOR VARCHAR, ZBUNDLEID VARCHAR, ZCONTEXTNAME VARCHAR, ZPROCESSID VARCHAR, ZQUERYGEN BLOB )",
        "CREATE TABLE ATRANSACTIONSTRING ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR )",
        "CREATE INDEX ACHANGE_ZTRANSACTIONID_INDEX ON ACHANGE (ZTRANSACTIONID)",
        "CREATE INDEX ATRANSACTION_ZAUTHORTS_INDEX ON ATRANSACTION (ZAUTHORTS)",
        "CREATE INDEX ATRANSACTION_ZBUNDLEIDTS_INDEX ON ATRANSACTION (ZBUNDLEIDTS)",
        "CREATE INDEX ATRANSACTION_ZCONTEXTNAMETS_INDEX ON ATRANSACTION (ZCONTEXTNAMETS)",
        "CREATE INDEX ATRANSACTION_ZPROCESSIDTS_INDEX ON ATRANSACTION (ZPROCESSIDTS)",
        "CREATE INDEX Z_TRANSACTION_TransactionAuthorIndex ON ATRANSACTION (ZAUTHOR COLLATE BINARY ASC)",
        "CREATE INDEX Z_TRANSACTION_TransactionTimestampIndex ON ATRANSACTION (ZTIMESTAMP COLLATE BINARY ASC)",
        "CREATE UNIQUE INDEX Z_TRANSACTIONSTRING_UNIQUE_NAME ON ATRANSACTIONSTRING (ZNAME COLLATE BINARY ASC)",
    ]

    /// The statements that make the tables for `model`: `ACHANGE` with one tombstone column
    /// per preserved attribute of the entity that has the most (their place in the table
    /// inferred, as Core Data's stores in hand have none).
    static func createStatements(for model: ObjectModel) -> [String] {
        let tombstones = (0..<tombstoneCount(of: model)).map { ", \(tombstoneColumn($0)) BLOB" }.joined()
        return createStatements.map { $0.replacingOccurrences(of: "ZCOLUMNS BLOB )", with: "ZCOLUMNS BLOB\(tombstones) )") }
    }

    /// The name of tombstone column `index`.
    static func tombstoneColumn(_ index: Int) -> String { "ZTOMBSTONE\(index)" }

    // MARK: - Properties by number

    /// The names `ZCOLUMNS` bits stand for in `entity`'s changes: its stored attributes and
    /// relationships, inherited ones included, in order of name (inferred; see the type).
    static func propertyOrder(of entity: EntityDescription, in model: ObjectModel) -> [String] {
        (model.allAttributes(of: entity).filter { !$0.isTransient }.map(\.name)
            + model.allRelationships(of: entity).filter { !$0.isTransient }.map(\.name)).sorted()
    }

    /// The attributes whose values `entity`'s deletions keep, in tombstone column order.
    static func tombstoneAttributes(of entity: EntityDescription, in model: ObjectModel) -> [AttributeDescription] {
        model.allAttributes(of: entity).filter { $0.preservesValueInHistoryOnDeletion && !$0.isTransient }.sorted { $0.name < $1.name }
    }

    /// How many tombstone columns `model` needs: the most any entity preserves.
    static func tombstoneCount(of model: ObjectModel) -> Int {
        model.entities.map { tombstoneAttributes(of: $0, in: model).count }.max() ?? 0
    }

    /// `ZCOLUMNS` for `properties` of an entity whose properties are `order`: one bit per
    /// property, most significant first, in as many bytes as the properties need.
    static func bitmap(_ properties: Set<String>, order: [String]) -> Data {
        var bytes = [UInt8](repeating: 0, count: (order.count + 7) / 8)
        for (index, name) in order.enumerated() where properties.contains(name) {
            bytes[index / 8] |= 0x80 >> UInt8(index % 8)
        }
        return Data(bytes)
    }

    /// The properties a `ZCOLUMNS` bitmap names; `nil` when a bit lies past `order`, a store
    /// written with another model, of which a part would be read as the whole.
    static func properties(in bitmap: Data, order: [String]) -> Set<String>? {
        var names: Set<String> = []
        for (byteIndex, byte) in bitmap.enumerated() where byte != 0 {
            for bit in 0..<8 where byte & (0x80 >> UInt8(bit)) != 0 {
                let index = byteIndex * 8 + bit
                guard index < order.count else { return nil }
                names.insert(order[index])
            }
        }
        return names
    }
}
