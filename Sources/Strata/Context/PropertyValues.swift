/// An object's values by property name, kept in slots numbered by its entity's
/// ``PropertySlots``: a dictionary's operations without a hash table per object. A name the
/// entity lacks is kept aside by name, so that any key round-trips as in a dictionary.
struct PropertyValues: Sequence, Equatable, @unchecked Sendable {
    // Sendable as an array is: its storage is shared only while no one writes it, and a write
    // to shared storage copies it first (`uniqueStorage()`).

    private(set) var slots: PropertySlots
    /// The values, their number and those kept by name; `nil` until a value is set, so that
    /// empty values cost no allocation (most objects' changes are empty).
    private(set) var storage: Storage?

    /// No values, in the slots of an entity's properties.
    init(slots: PropertySlots) {
        self.slots = slots
    }

    /// The values `storage` holds in the slots of `slots`, which it was made for: what an
    /// object, which keeps its slots once for its entity (``ObjectBinding``), reads its values as.
    init(slots: PropertySlots, storage: Storage?) {
        self.slots = slots
        self.storage = storage
    }

    /// The storage of these values numbered by `slots`: their own when they are in those
    /// slots, else a copy of the values set by name in storage made for them. What an object
    /// keeps of values assigned to it, so that its values are always in its entity's slots.
    @inline(__always)
    consuming func storage(numberedBy slots: PropertySlots) -> Storage? {
        // Inlined, so that the identity comparison of the common case retains nothing.
        self.slots === slots ? storage : renumbered(in: slots)
    }

    private func renumbered(in slots: PropertySlots) -> Storage? {
        var renumbered = PropertyValues(slots: slots)
        for (key, value) in self { renumbered[key] = value }
        return renumbered.storage
    }

    /// The value in slot `number` of `storage`, `nil` when there is none or no storage: a read
    /// in place, for an object's hottest reads, which need not form values to read a slot.
    static func value(inSlot number: Int, of storage: Storage?) -> PropertyValue? {
        guard let storage, number < Int(storage.headerPointer.pointee.slotCount) else { return nil }
        return storage.slots[number]
    }

    /// Whether `storage` holds no value: what empty values' storage reads as.
    static func isEmpty(_ storage: Storage?) -> Bool {
        storage.map { $0.headerPointer.pointee.count == 0 } ?? true
    }

    /// Values in the slots of `slots`, which `fill` writes, each slot at most once and over a
    /// `nil` (which owns nothing, so a slot may be initialized without destroying it first),
    /// returning how many it set. What a fetched row's values are made with.
    init(slots: PropertySlots, filling fill: (UnsafeMutableBufferPointer<PropertyValue?>) -> Int) {
        self.slots = slots
        let storage = Storage.empty(slotCount: slots.names.count)
        storage.headerPointer.pointee.count = Int32(fill(storage.slots))
        self.storage = storage
    }

    /// The number of properties that hold a value.
    var count: Int { storage.map { Int($0.headerPointer.pointee.count) } ?? 0 }

    var isEmpty: Bool { Self.isEmpty(storage) }

    /// The values of names the entity lacks.
    private var others: [String: PropertyValue] { storage?.headerPointer.pointee.others ?? [:] }

    subscript(key: String) -> PropertyValue? {
        get {
            if let number = slots.number(of: key) { return self[slot: number] }
            guard let storage, !storage.headerPointer.pointee.others.isEmpty else { return nil }
            return storage.headerPointer.pointee.others[key]
        }
        set {
            if let number = slots.number(of: key) {
                self[slot: number] = newValue
            } else {
                guard newValue.holdsValue || !others.isEmpty else { return }
                let header = uniqueStorage().headerPointer
                header.pointee.count += (newValue == nil ? 0 : 1) - (header.pointee.others[key] == nil ? 0 : 1)
                header.pointee.others[key] = newValue
            }
        }
    }

    /// The value in the slot `number` of ``slots``. Written only through numbers of these
    /// values' own slots (see the setter).
    private(set) subscript(slot number: Int) -> PropertyValue? {
        get {
            // Out of range reads as unset, as it did from an array of fewer slots: values of
            // other slots than the number came from hold no value there.
            Self.value(inSlot: number, of: storage)
        }
        set { Self.setValue(newValue, inSlot: number, of: &storage, slotCount: slots.names.count) }
    }

    /// Sets the slot `number` of `storage`, made with `slotCount` slots when there is none and
    /// copied first when other values share it: what every write by number goes through, here
    /// and in an object, which keeps its values' storage apart from their slots.
    static func setValue(_ value: PropertyValue?, inSlot number: Int, of storage: inout Storage?, slotCount: Int) {
        // Whether a slot is empty is matched, not compared with `nil`: `== nil` on these
        // optionals took `Optional`'s `==` for two values, which copied the value and
        // destroyed a tuple of both through the runtime's generic witnesses (about 190
        // instructions a set; see BENCHMARKS.md, the save path's fourth steps).
        let sets = value.holdsValue
        guard sets || storage != nil else { return }
        let storage = unique(&storage, slotCount: slotCount)
        // Writes take their numbers from the slots the storage was made for: checked in debug
        // builds only, since the check in release builds slowed saves (BENCHMARKS.md, the stop
        // after 82c486f).
        assert(number >= 0 && number < storage.slots.count, "slot out of range")
        let slot = storage.slots.baseAddress.unsafelyUnwrapped + number
        storage.headerPointer.pointee.count += (sets ? 1 : 0) - (slot.pointee.holdsValue ? 1 : 0)
        slot.pointee = value
    }

    /// The storage, made for these slots when there is none, and copied first when another
    /// value shares it: what every write goes through.
    private mutating func uniqueStorage() -> Storage {
        Self.unique(&storage, slotCount: slots.names.count)
    }

    private static func unique(_ storage: inout Storage?, slotCount: Int) -> Storage {
        if storage == nil {
            storage = Storage.empty(slotCount: slotCount)
        } else if !isKnownUniquelyReferenced(&storage) {
            storage = storage.unsafelyUnwrapped.copy()
        }
        return storage.unsafelyUnwrapped
    }

    /// These values in storage of their own: what values handed to another context hold.
    ///
    /// Sharing storage between contexts would be safe, as an array's is: the reference count
    /// orders one context's last read before another's first write in place. But the Swift
    /// run time that keeps the counts is not built for ThreadSanitizer, which therefore cannot
    /// see that order and reports a race (a merge reading a did-save notification's values
    /// while the saving context wrote the values it had shared with it; CI, 2026-11-28). Each
    /// context keeps to storage of its own, which only its queue touches.
    func unshared() -> PropertyValues {
        var copy = self
        copy.storage = storage?.copy()
        return copy
    }

    /// The names of the properties that hold a value.
    var keys: [String] { map(\.key) }

    mutating func removeAll() {
        storage = nil
    }

    /// Takes the values `other` holds, in place of these.
    mutating func merge(_ other: PropertyValues) {
        guard !other.isEmpty else { return }
        if other.slots === slots, isEmpty || (others.isEmpty && other.others.isEmpty && other.count == slots.names.count) {
            // `other` holds every slot, or these hold nothing: it replaces them whole.
            self = other
        } else if other.slots === slots, other.others.isEmpty {
            other.withSlots { theirs in
                for number in theirs.indices where theirs[number].holdsValue { self[slot: number] = theirs[number] }
            }
        } else {
            for (key, value) in other { self[key] = value }
        }
    }

    func merging(_ other: PropertyValues) -> PropertyValues {
        var merged = self
        merged.merge(other)
        return merged
    }

    func mapValues(_ transform: (PropertyValue) throws -> PropertyValue) rethrows -> PropertyValues {
        guard !isEmpty else { return self }
        var mapped = self
        let storage = mapped.uniqueStorage()
        for number in storage.slots.indices {
            if let value = storage.slots[number] { storage.slots[number] = try transform(value) }
        }
        storage.headerPointer.pointee.others = try others.mapValues(transform)
        return mapped
    }

    func filter(_ isIncluded: ((key: String, value: PropertyValue)) throws -> Bool) rethrows -> PropertyValues {
        var kept = PropertyValues(slots: slots)
        for element in self where try isIncluded(element) { kept[element.key] = element.value }
        return kept
    }

    /// Calls `body` with the slots in place, none when no value is set: for reading.
    private func withSlots<Result>(_ body: (UnsafeMutableBufferPointer<PropertyValue?>) throws -> Result) rethrows -> Result {
        guard let storage else { return try body(UnsafeMutableBufferPointer(start: nil, count: 0)) }
        return try withExtendedLifetime(storage) { try body(storage.slots) }
    }

    /// Whether a value is a change to a to-many that was not read.
    var containsToManyChanges: Bool {
        withSlots { $0.contains { $0?.isToManyChanges == true } } || others.values.contains(where: \.isToManyChanges)
    }

    /// Whether any value differs from the one `other` holds under the same name.
    func contains(differingFrom other: PropertyValues) -> Bool {
        if other.slots === slots, others.isEmpty { return !slotsDiffering(from: other) { _ in false } }
        return contains { other[$0.key] != $0.value }
    }

    /// The names of the values that differ from those `other` holds under the same name, in
    /// slot order: what a save compares between objects without hashing a name.
    ///
    /// When the names are those of `previous`, returns `previous` itself: a bulk edit changes
    /// the same properties of every object, and its objects then share one list instead of
    /// each allocating its own.
    func orderedKeys(differingFrom other: PropertyValues, reusing previous: [String] = []) -> [String] {
        guard other.slots === slots, others.isEmpty else { return filter { other[$0.key] != $0.value }.keys }
        var matched = 0
        var keys: [String]?
        slotsDiffering(from: other) { number in
            let name = slots.names[number]
            if keys == nil {
                if matched < previous.count, previous[matched] == name {
                    matched += 1
                    return true
                }
                keys = Array(previous[..<matched])
            }
            keys!.append(name)
            return true
        }
        return keys ?? (matched == previous.count ? previous : Array(previous[..<matched]))
    }

    /// Calls `body` with the number of each slot holding a value that differs from `other`'s in
    /// the same slot, in order, while it returns true; returns false when it stopped. Both are
    /// read in place: walking `enumerated()` copied every value (retaining what it holds)
    /// before comparing it. For values in the same ``slots``.
    @discardableResult
    private func slotsDiffering(from other: PropertyValues, _ body: (Int) -> Bool) -> Bool {
        withSlots { mine in
            other.withSlots { theirs in
                for number in mine.indices {
                    // Matched rather than compared as optionals (see `subscript(slot:)`).
                    guard case .some(let value) = mine[number] else { continue }
                    if number < theirs.count, case .some(let saved) = theirs[number], saved == value { continue }
                    if !body(number) { return false }
                }
                return true
            }
        }
    }

    /// The names of the values that differ from those `other` holds under the same name.
    func keys(differingFrom other: PropertyValues) -> Set<String> {
        Set(lazy.filter { other[$0.key] != $0.value }.map(\.key))
    }

    static func == (lhs: PropertyValues, rhs: PropertyValues) -> Bool {
        lhs.count == rhs.count && !lhs.contains(differingFrom: rhs)
    }

    func makeIterator() -> Iterator {
        Iterator(values: self)
    }

    /// The properties that hold a value, in slot order, then those kept by name.
    struct Iterator: IteratorProtocol {
        fileprivate let values: PropertyValues
        private var number = 0
        private var others: Dictionary<String, PropertyValue>.Iterator

        fileprivate init(values: PropertyValues) {
            self.values = values
            others = values.others.makeIterator()
        }

        mutating func next() -> (key: String, value: PropertyValue)? {
            while number < values.slots.names.count {
                defer { number += 1 }
                if let value = values[slot: number] { return (values.slots.names[number], value) }
            }
            return others.next()
        }
    }
}

extension Optional where Wrapped == PropertyValue {
    /// Whether a slot holds a value: a match, which neither copies the value nor goes through
    /// `Optional`'s `==` (see ``PropertyValues/subscript(slot:)``).
    var holdsValue: Bool {
        if case .some = self { return true }
        return false
    }
}
