/// The members added to and removed from a to-many that was not read: how an inverse is kept
/// in step without loading the relationship (Core Data does the same), so that linking one
/// more book to an author costs the same whatever number of books the author has.
///
/// The changes apply to the members when the relationship is read, are written as they are
/// when saved (a link for each addition, an unlink for each removal), and travel so to a
/// parent context and to the contexts that merge the save. Only unordered relationships
/// collect them: an ordered one needs its members' positions.
struct ToManyChanges: Hashable, Sendable {
    /// Added members in the order they were added.
    private(set) var added: [ObjectID] = []
    private var addedSet: Set<ObjectID> = []
    private(set) var removed: Set<ObjectID> = []

    init(added: some Sequence<ObjectID>, removed: some Sequence<ObjectID>) {
        for id in added { insert(id) }
        for id in removed { remove(id) }
    }

    /// What makes the members `before` into `after`.
    init(from before: [ObjectID], to after: [ObjectID]) {
        let kept = Set(before)
        self.init(added: after.filter { !kept.contains($0) }, removed: kept.subtracting(after))
    }

    var isEmpty: Bool { added.isEmpty && removed.isEmpty }

    mutating func insert(_ id: ObjectID) {
        if removed.remove(id) == nil, addedSet.insert(id).inserted { added.append(id) }
    }

    mutating func remove(_ id: ObjectID) {
        if addedSet.remove(id) != nil {
            added.removeAll { $0 == id }
        } else {
            removed.insert(id)
        }
    }

    /// `members` with the changes made: removed ones left out, added ones at the end once.
    func applied(to members: [ObjectID]) -> [ObjectID] {
        var result = removed.isEmpty ? members : members.filter { !removed.contains($0) }
        guard !added.isEmpty else { return result }
        var present = Set(result)
        for id in added where present.insert(id).inserted { result.append(id) }
        return result
    }

    /// The changes with IDs replaced through `map`.
    func rekeyed(_ map: PermanentIDs) -> ToManyChanges {
        ToManyChanges(added: added.map { map[$0] ?? $0 }, removed: removed.map { map[$0] ?? $0 })
    }
}

extension ManagedObject {
    /// Whether the to-many `key` holds members read or set in this context, rather than
    /// nothing yet or only ``ToManyChanges``.
    func hasReadToMany(_ key: String) -> Bool {
        switch changedValues[key] ?? committedValues[key] {
        case .toMany?: true
        default: false
        }
    }
}
