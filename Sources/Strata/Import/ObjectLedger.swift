/// A value per object, kept compactly for imports of millions of records: saved objects by
/// entity and primary key (a few bytes each), unsaved ones by their temporary ID.
struct ObjectLedger<Value> {
    private var saved: [String: [Int64: Value]] = [:]
    private var unsaved: [ObjectID: Value] = [:]

    subscript(id: ObjectID) -> Value? {
        get { id.primaryKey.map { saved[id.entityName]?[$0] } ?? unsaved[id] }
        set {
            if let key = id.primaryKey {
                saved[id.entityName, default: [:]][key] = newValue
            } else {
                unsaved[id] = newValue
            }
        }
    }

    /// The entities with an object in the ledger.
    var entityNames: Set<String> {
        Set(saved.filter { !$0.value.isEmpty }.keys).union(unsaved.keys.map(\.entityName))
    }

    /// Moves the values of objects a save gave permanent IDs.
    mutating func rekey(_ permanentIDs: [ObjectID: ObjectID]) {
        for (temporary, permanent) in permanentIDs {
            if let value = unsaved.removeValue(forKey: temporary) { self[permanent] = value }
        }
    }
}
