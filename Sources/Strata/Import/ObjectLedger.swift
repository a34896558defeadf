/// A value per object, kept compactly for imports of millions of records: saved objects by
/// entity and primary key (about a byte each, see ``PrimaryKeyTable``), unsaved ones by their
/// temporary ID.
struct ObjectLedger<Value> {
    private var saved: [String: PrimaryKeyTable<Value>] = [:]
    private var unsaved: [ObjectID: Value] = [:]

    subscript(id: ObjectID) -> Value? {
        get { id.primaryKey.map { saved[id.entityName]?[$0] } ?? unsaved[id] }
        set {
            if let key = id.primaryKey {
                saved[id.entityName, default: PrimaryKeyTable()][key] = newValue
            } else {
                unsaved[id] = newValue
            }
        }
    }

    /// Runs `body` on the values of `entityName`'s saved objects: an import that writes rows
    /// updates a batch of them with one look-up of the entity.
    mutating func updateTable<Result>(_ entityName: String, _ body: (inout PrimaryKeyTable<Value>) throws -> Result) rethrows -> Result {
        try body(&saved[entityName, default: PrimaryKeyTable()])
    }

    /// Calls `body` with each object's entity name and value, saved objects first.
    func forEach(_ body: (String, Value) -> Void) {
        for (entityName, table) in saved { table.forEach { _, value in body(entityName, value) } }
        for (id, value) in unsaved { body(id.entityName, value) }
    }

    /// The entities with an object in the ledger.
    var entityNames: Set<String> {
        Set(saved.filter { !$0.value.isEmpty }.keys).union(unsaved.keys.map(\.entityName))
    }

    /// Moves the values of objects a save gave permanent IDs.
    mutating func rekey(_ permanentIDs: PermanentIDs) {
        for (temporary, permanent) in permanentIDs {
            if let value = unsaved.removeValue(forKey: temporary) { self[permanent] = value }
        }
    }
}

/// Values by primary key. The store hands keys out in sequence, so they are nearly always
/// dense: those are kept in an array indexed by key, a few bytes each where a dictionary takes
/// dozens and rehashes as it grows; keys far beyond the others go in a dictionary.
struct PrimaryKeyTable<Value> {
    /// The value of each key below its count, `nil` for none.
    private var dense: [Value?] = []
    /// The values of keys at or beyond `dense.count` when they were set.
    private var sparse: [Int64: Value] = [:]
    /// How many keys have a value.
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    subscript(key: Int64) -> Value? {
        get {
            if key >= 0, key < dense.count { return dense[Int(key)] }
            return sparse[key]
        }
        set {
            if key >= dense.count, newValue != nil, fitsDense(key) {
                growDense(through: key)
            }
            let old: Value?
            if key >= 0, key < dense.count {
                old = dense[Int(key)]
                dense[Int(key)] = newValue
            } else if let newValue {
                old = sparse.updateValue(newValue, forKey: key)
            } else {
                old = sparse.removeValue(forKey: key)
            }
            count += (newValue == nil ? 0 : 1) - (old == nil ? 0 : 1)
        }
    }

    /// Calls `body` with each key that has a value, and the value.
    func forEach(_ body: (Int64, Value) -> Void) {
        for (key, value) in dense.enumerated() {
            if let value { body(Int64(key), value) }
        }
        for (key, value) in sparse { body(key, value) }
    }

    /// Whether the array may grow to hold `key`: while keys with values would fill a quarter
    /// of it, so that a stray large key costs a dictionary entry rather than a huge array.
    private func fitsDense(_ key: Int64) -> Bool {
        key < 1024 || key / 4 <= Int64(count)
    }

    /// Grows the array to hold `key`, doubling to keep growth amortized, and moves into it the
    /// sparse keys it now covers.
    private mutating func growDense(through key: Int64) {
        let newCount = max(Int(key) + 1, dense.count * 2)
        dense += repeatElement(nil, count: newCount - dense.count)
        guard !sparse.isEmpty else { return }
        let covered = sparse.filter { $0.key < newCount }
        for (sparseKey, value) in covered {
            dense[Int(sparseKey)] = value
            sparse[sparseKey] = nil
        }
    }
}
