/// The objects a context holds, one per ID: a dictionary's operations, with the objects kept
/// in the order they were registered.
///
/// The order is what makes a large context cheap to let go of. Objects are freed in the
/// order they were made, so memory is walked forward; a hash table frees them in its own
/// order, touching memory at random. Letting go of 100,000 fetched objects took 70 ms that
/// way and takes 17 ms in order, next to 120 ms for the fetch itself. Removing an object
/// moves the last one into its place, so once objects leave the order is only mostly that of
/// registration.
///
/// The IDs' positions are kept in a table of 8-byte slots (``Positions``), not in a
/// `[ObjectID: Int]` of 40-byte ones: at 100,000 objects such a dictionary outgrew the cache,
/// and a fetch paid two probes of it for each object it made (a look-up that missed, then the
/// insertion), with a rehash of every entry at each doubling: a fifth of the Swift side of
/// fetching 100,000 objects.
///
/// An object is registered under its own ``ManagedObject/objectID``, which the map reads
/// rather than keeping a copy: an array of the IDs beside the objects cost 32 bytes an object
/// (a quarter of a fetch's page faults went to growing it). Only the map changes a registered
/// object's ID (``changeKey(_:to:)``), so that the two never disagree.
struct IdentityMap: Sequence {
    /// Each ID's position in ``values``.
    private var positions = Positions()
    /// The objects, in their order.
    private(set) var values: ContiguousArray<ManagedObject> = []

    /// The IDs, in the objects' order.
    var keys: LazyMapSequence<ContiguousArray<ManagedObject>, ObjectID> { values.lazy.map(\.objectID) }

    var count: Int { values.count }
    var isEmpty: Bool { values.isEmpty }

    subscript(id: ObjectID) -> ManagedObject? {
        get { positions.find(id, among: values).position.map { values[$0] } }
        set {
            if let newValue { updateValue(newValue, forKey: id) } else { removeValue(forKey: id) }
        }
    }

    /// Registers `object` under `id`, its own ID, in the place of the object registered there
    /// before, which it returns.
    @discardableResult
    mutating func updateValue(_ object: ManagedObject, forKey id: ObjectID) -> ManagedObject? {
        precondition(object.objectID == id, "an object is registered under its own ID")
        positions.reserve(count + 1)
        let (slot, position) = positions.find(id, among: values)
        if let position {
            defer { values[position] = object }
            return values[position]
        }
        append(object, forKey: id, slot: slot)
        return nil
    }

    /// The object registered under `id`, else the one `make` makes, registered under `id`:
    /// one probe of the table either way, where a look-up and then ``updateValue(_:forKey:)``
    /// take two for a new ID. `make` must make an object with the ID `id` and must not register
    /// it itself.
    mutating func object(forKey id: ObjectID, orRegister make: () -> ManagedObject) -> ManagedObject {
        positions.reserve(count + 1)
        var (slot, position) = positions.find(id, among: values)
        if let position { return values[position] }
        let changes = positions.changes
        let object = make()
        precondition(object.objectID == id, "an object is registered under its own ID")
        if positions.changes != changes {
            // The object's initializer changed the map: the free slot found may be taken.
            positions.reserve(count + 1)
            (slot, position) = positions.find(id, among: values)
            precondition(position == nil, "the initializer of \(type(of: object)) registered an object under its own ID")
        }
        append(object, forKey: id, slot: slot)
        return object
    }

    private mutating func append(_ object: ManagedObject, forKey id: ObjectID, slot: Int) {
        positions.insert(id, position: values.count, at: slot)
        values.append(object)
    }

    /// Forgets the object registered under `id`, returned, and moves the last object into its
    /// place.
    @discardableResult
    mutating func removeValue(forKey id: ObjectID) -> ManagedObject? {
        let (slot, found) = positions.find(id, among: values)
        guard let position = found else { return nil }
        positions.remove(at: slot)
        let last = values.count - 1
        if position != last {
            positions.move(values[last].objectID, from: last, to: position)
            values.swapAt(position, last)
        }
        return values.removeLast()
    }

    /// Gives the object held under `old` the ID `new` (its ``ManagedObject/objectID``), in the
    /// same place. Returns it with the object `new` held before, which leaves; `nil`, changing
    /// nothing, when `old` holds no object. Call it under ``ManagedObject/ownershipLock``:
    /// other threads read the ID through ``ManagedObject/ownership``.
    mutating func changeKey(_ old: ObjectID, to new: ObjectID) -> (object: ManagedObject, displaced: ManagedObject?)? {
        let (oldSlot, found) = positions.find(old, among: values)
        guard var position = found else { return nil }
        positions.remove(at: oldSlot)
        var displaced: ManagedObject?
        let (otherSlot, other) = positions.find(new, among: values)
        if let other {
            positions.remove(at: otherSlot)
            let last = values.count - 1
            if other != last {
                // The object of `old`, out of the table, may be the last one.
                if last == position { position = other } else { positions.move(values[last].objectID, from: last, to: other) }
                values.swapAt(other, last)
            }
            displaced = values.removeLast()
        }
        values[position].objectID = new
        // The removals above shifted slots: the free one for `new` is found again.
        positions.insert(new, position: position, at: positions.find(new, among: values).slot)
        return (values[position], displaced)
    }

    /// ``changeKey(_:to:)`` for each pair of `map`, calling `moved` with each object that
    /// changed key, its new ID and the object the new ID held before (which leaves). When the
    /// pairs are a good part of the map (a save of many inserted objects), it finds the old
    /// IDs walking the objects forward (pairs in the order the objects were registered, as a
    /// save's are, are found without a look-up), gives the objects their new IDs as it finds
    /// them and rebuilds the table in one pass: per object one hash and one write into the
    /// table, where ``changeKey(_:to:)`` probes it three times. The pairs are read from `map`
    /// as they go, not copied into an array first (6.4 MB for 100,000 pairs, with a page
    /// fault per 4 KB). Call it under ``ManagedObject/ownershipLock``, as ``changeKey(_:to:)``.
    mutating func changeKeys(_ map: PermanentIDs, moved: (ManagedObject, ObjectID, ManagedObject?) -> Void) {
        guard map.count >= 64, map.count * 4 >= count else {
            for (old, new) in map {
                if let (object, displaced) = changeKey(old, to: new) { moved(object, new, displaced) }
            }
            return
        }
        var found: [Int] = []
        found.reserveCapacity(map.count)
        var next = 0
        for (old, new) in map {
            var position = -1
            while next < values.count {
                defer { next += 1 }
                if values[next].objectID == old {
                    position = next
                    break
                }
            }
            // Pairs out of the order of registration (an object moved by a removal) are looked
            // up; the table still holds the old IDs, and the objects re-keyed so far no longer match.
            if position < 0, let at = positions.find(old, among: values).position { position = at }
            if position >= 0 { values[position].objectID = new }
            found.append(position)
        }
        guard positions.rebuild(for: values) else {
            // A new ID that the map holds already: the other object leaves, which moves
            // objects, so each pair goes the slow way, from the IDs as they were.
            for ((old, _), position) in zip(map, found) where position >= 0 { values[position].objectID = old }
            for (old, new) in map {
                if let (object, displaced) = changeKey(old, to: new) { moved(object, new, displaced) }
            }
            return
        }
        for position in found where position >= 0 { moved(values[position], values[position].objectID, nil) }
    }

    /// The objects that something besides the map holds, in their order. It asks each object
    /// in place, without copying the map's storage.
    mutating func objectsHeldElsewhere(where include: (ManagedObject) -> Bool) -> [ManagedObject] {
        var held: [ManagedObject] = []
        for position in values.indices where include(values[position]) && !isKnownUniquelyReferenced(&values[position]) {
            held.append(values[position])
        }
        return held
    }

    mutating func reserveCapacity(_ capacity: Int) {
        positions.reserve(capacity)
        values.reserveCapacity(capacity)
    }

    mutating func removeAll() {
        self = IdentityMap()
    }

    func makeIterator() -> LazyMapSequence<ContiguousArray<ManagedObject>, (ObjectID, ManagedObject)>.Iterator {
        values.lazy.map { ($0.objectID, $0) }.makeIterator()
    }
}

extension IdentityMap {
    /// Positions in ``IdentityMap/values`` by ID: open addressing with linear probing in a
    /// power-of-two table at most half full. A slot holds the position plus one in its high 32
    /// bits (0: free) and the low 32 bits of the ID's hash, which also give its first slot;
    /// an ID is compared (with the object's) only where those bits match. Growing moves the
    /// entries by the hash bits they hold, reading the old table forward and no object. A
    /// removal shifts the slots after it back (no tombstones), so a look-up stops at the first
    /// free slot.
    struct Positions {
        private var slots: ContiguousArray<UInt64> = []
        private(set) var count = 0
        /// Raised by every change: a caller holding a slot knows whether it still stands.
        private(set) var changes = 0

        /// A hash that keeps neighbouring rows together: the permanent IDs of one entity's rows
        /// `8k` to `8k + 7` share their high bits (the hash of `k`) and take slots next to each
        /// other, one cache line, from a first slot spread like any hash. Fetches read rows
        /// mostly in key order, so a fetch of 1,000,000 objects into a table of 16 MB misses
        /// the cache once per eight objects instead of once per object, and growing the table
        /// writes it in runs. Temporary IDs of this process are numbered in the order objects
        /// are made, so they are kept together the same way: inserting 100,000 objects probed
        /// a random slot for each (6% of the Swift side of case 1 before). IDs of neither form
        /// are hashed whole.
        private static func hash(_ id: ObjectID) -> UInt64 {
            guard let (group, place) = id.word.rowGroup else { return UInt64(UInt32(truncatingIfNeeded: id._rawHashValue(seed: 0))) }
            let groupHash = ObjectID(scope: id.scope, word: group)._rawHashValue(seed: 0)
            return UInt64(UInt32(truncatingIfNeeded: groupHash << 3 | Int(place)))
        }

        /// The slot holding `id` and its position, or the free slot where it would go (the
        /// table must not be empty there: ``reserve(_:)`` first).
        func find(_ id: ObjectID, among objects: ContiguousArray<ManagedObject>) -> (slot: Int, position: Int?) {
            guard !slots.isEmpty else { return (0, nil) }
            let hash = Self.hash(id), mask = slots.count - 1
            return slots.withUnsafeBufferPointer { slots in
                var slot = Int(hash) & mask
                while true {
                    let entry = slots[slot]
                    if entry == 0 { return (slot, nil) }
                    if entry & 0xFFFF_FFFF == hash, objects[Int(entry >> 32) - 1].objectID == id { return (slot, Int(entry >> 32) - 1) }
                    slot = (slot + 1) & mask
                }
            }
        }

        /// Puts `id` at `position` in the free slot ``find(_:among:)`` gave.
        mutating func insert(_ id: ObjectID, position: Int, at slot: Int) {
            precondition(position < Int(UInt32.max), "an identity map holds fewer than 2^32 objects")
            slots[slot] = UInt64(position + 1) << 32 | Self.hash(id)
            count += 1
            changes &+= 1
        }

        /// Records that `id`, in the table at position `old`, is now at `new`.
        mutating func move(_ id: ObjectID, from old: Int, to new: Int) {
            let hash = Self.hash(id), mask = slots.count - 1, entry = UInt64(old + 1) << 32 | hash
            var slot = Int(hash) & mask
            while slots[slot] != entry {
                precondition(slots[slot] != 0, "identity map: an ID moved that the table does not hold")
                slot = (slot + 1) & mask
            }
            slots[slot] = UInt64(new + 1) << 32 | hash
            changes &+= 1
        }

        /// Frees `slot`, moving back each entry after it that may then be found nearer its first slot.
        mutating func remove(at slot: Int) {
            let mask = slots.count - 1
            slots.withUnsafeMutableBufferPointer { slots in
                var hole = slot, next = (slot + 1) & mask
                while slots[next] != 0 {
                    let home = Int(slots[next] & 0xFFFF_FFFF) & mask
                    if (next &- home) & mask >= (next &- hole) & mask {
                        slots[hole] = slots[next]
                        hole = next
                    }
                    next = (next + 1) & mask
                }
                slots[hole] = 0
            }
            count -= 1
            changes &+= 1
        }

        /// Puts the ID of every object of `objects` (the map's, each at its position) in a new
        /// table of the same size, in one pass; `false`, changing nothing, when two of them are
        /// equal.
        mutating func rebuild(for objects: ContiguousArray<ManagedObject>) -> Bool {
            guard !slots.isEmpty else { return objects.isEmpty }
            var rebuilt = ContiguousArray<UInt64>(repeating: 0, count: slots.count)
            let mask = slots.count - 1
            let unique = rebuilt.withUnsafeMutableBufferPointer { rebuilt in
                objects.withUnsafeBufferPointer { objects in
                    for position in objects.indices {
                        let id = objects[position].objectID
                        let hash = Self.hash(id)
                        var slot = Int(hash) & mask
                        while rebuilt[slot] != 0 {
                            if rebuilt[slot] & 0xFFFF_FFFF == hash, objects[Int(rebuilt[slot] >> 32) - 1].objectID == id { return false }
                            slot = (slot + 1) & mask
                        }
                        rebuilt[slot] = UInt64(position + 1) << 32 | hash
                    }
                    return true
                }
            }
            guard unique else { return false }
            slots = rebuilt
            changes &+= 1
            return true
        }

        /// Grows the table, if need be, to hold `capacity` IDs at most half full.
        mutating func reserve(_ capacity: Int) {
            guard capacity * 2 > slots.count else { return }
            var size = Swift.max(16, slots.count)
            while capacity * 2 > size { size *= 2 }
            var grown = ContiguousArray<UInt64>(repeating: 0, count: size)
            let mask = size - 1
            grown.withUnsafeMutableBufferPointer { grown in
                slots.withUnsafeBufferPointer { slots in
                    // An entry's first slot comes from the hash bits it holds, the same bits a
                    // look-up starts from, so no object is read.
                    for entry in slots where entry != 0 {
                        var slot = Int(entry & 0xFFFF_FFFF) & mask
                        while grown[slot] != 0 { slot = (slot + 1) & mask }
                        grown[slot] = entry
                    }
                }
            }
            slots = grown
            changes &+= 1
        }
    }
}
