import Foundation

extension PersistentStore {
    /// The number of stored objects of `entityName` (its sub-entities' too, unless
    /// `includesSubentities` is false) that satisfy `predicate`, counted in SQL.
    ///
    /// It reads the store as it is on disk: a context's unsaved changes are not counted.
    ///
    /// ```swift
    /// let rated = try store.count(of: "Book", matching: Predicate(format: "rating >= 4"))
    /// ```
    ///
    /// - Throws: ``StoreError/unknownEntity(path:name:known:)`` for an entity the model lacks,
    ///   ``PredicateKeyError`` for a key path the entity does not have (with the nearest names),
    ///   ``PredicateCompileError`` for a predicate the store cannot evaluate, and
    ///   ``DatabaseError`` when SQLite fails.
    public func count(of entityName: String, matching predicate: Predicate? = nil, includesSubentities: Bool = true) throws -> Int {
        guard let entity = model.entity(named: entityName), let table = layout.entity(named: entityName) else {
            throw StoreError.unknownEntity(path: path, name: entityName, known: layout.entities.map(\.name).sorted())
        }
        let kind = includesSubentities ? table.kindCondition : "Z_ENT = \(table.number)"
        var sql = "SELECT COUNT(*) FROM \(table.tableName) t0 WHERE t0.\(kind)"
        var arguments: [DatabaseValue] = []
        if let predicate {
            try predicate.checkKeys(for: entity, in: model)
            let compiled = try PredicateSQL(predicate, entity: entity, model: model, layout: layout)
            sql += " AND (\(compiled.condition))"
            arguments = compiled.arguments
        }
        return Int(try database.scalar(sql, arguments)?.int64Value ?? 0)
    }
}
