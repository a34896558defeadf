/// The objects inserted into a context and not saved yet, in the order of insertion.
///
/// Membership is a flag on the object (``ManagedObject/isPendingInsert``), not a set of IDs:
/// a set cost a hash and a probe of a table larger than the cache for every object inserted,
/// another probe for each when the context sorted its changed objects, and a look-up in the
/// identity map for each when a save listed them in order (about 4% of inserting and saving
/// 100,000 objects; see BENCHMARKS.md). An object is in one context only, so one flag is
/// enough, and the objects keep their places when their IDs become permanent.
///
/// The context keeps the rule that makes the flag true: an object is flagged only while it
/// is registered. Every path that unregisters an inserted object removes it here first.
struct InsertedObjects {
    /// The objects in the order they were inserted. A removed object stays, so that a removal
    /// costs no search, until the next insertion finds removed ones more than those inserted
    /// and compacts the list (a save that takes every object out, one by one, compacts none).
    private var order: [ManagedObject] = []
    /// How many objects are inserted: ``order``'s length when nothing was removed.
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    /// Adds `object`, unless it is in already.
    mutating func insert(_ object: ManagedObject) {
        guard !object.isPendingInsert else { return }
        if order.count > 2 * count + 64 { order = objects }
        object.isPendingInsert = true
        order.append(object)
        count += 1
    }

    /// Takes `object` out; `false` when it was not in.
    @discardableResult
    mutating func remove(_ object: ManagedObject) -> Bool {
        guard object.isPendingInsert else { return false }
        object.isPendingInsert = false
        count -= 1
        if count == 0 { order = [] } else if order.last === object { order.removeLast() }
        return true
    }

    /// The objects in the order of insertion.
    var objects: [ManagedObject] {
        guard count != order.count else { return order }
        // An object removed and inserted again has two places: the first one counts.
        var seen = Set<ObjectIdentifier>()
        return order.filter { $0.isPendingInsert && seen.insert(ObjectIdentifier($0)).inserted }
    }

    /// Takes every object out.
    mutating func removeAll() {
        for object in order { object.isPendingInsert = false }
        self = InsertedObjects()
    }
}
