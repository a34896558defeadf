/// An object's values by property name, kept in slots numbered by its entity's
/// ``PropertySlots``: a dictionary's operations without a hash table per object. A name the
/// entity lacks is kept aside by name, so that any key round-trips as in a dictionary.
struct PropertyValues: Sequence, Equatable, @unchecked Sendable {
    // Sendable as an array is: its storage is shared only while no one writes it, and a write
    // to shared storage copies it first (`uniqueStorage()`).

    private(set) var slots: PropertySlots
    /// The values, their number and those kept by name; `nil` until a value is set, so that
    /// empty values cost no allocation (most objects' changes are empty).
    private var storage: Storage?

    /// No values, in the slots of an entity's properties.
    init(slots: PropertySlots) {
        self.slots = slots
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

    var isEmpty: Bool { count == 0 }

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

    /// Sets the slot `number` of ``slots``, a number these values' own ``slots`` gave (or the
    /// same slots held by other values: one instance per entity of a model).
    mutating func setValue(_ value: PropertyValue?, inSlot number: Int) {
        self[slot: number] = value
    }

    /// The value in the slot `number` of ``slots``. Written only through numbers of these
    /// values' own slots (see the setter).
    private(set) subscript(slot number: Int) -> PropertyValue? {
        get {
            // Out of range reads as unset, as it did from an array of fewer slots: values of
            // other slots than the number came from hold no value there.
            guard let storage, number < storage.slots.count else { return nil }
            return storage.slots[number]
        }
        set {
            // Whether a slot is empty is matched, not compared with `nil`: `== nil` on these
            // optionals took `Optional`'s `==` for two values, which copied the value and
            // destroyed a tuple of both through the runtime's generic witnesses (about 190
            // instructions a set; see BENCHMARKS.md, the save path's fourth steps).
            let sets = newValue.holdsValue
            guard sets || storage != nil else { return }
            let storage = uniqueStorage()
            // Writes take their numbers from these values' own slots, which the storage was
            // made for (see `setValue(_:inSlot:)`): checked in debug builds only,
            // since the check in release builds slowed saves (BENCHMARKS.md, the stop after
            // 82c486f).
            assert(number >= 0 && number < storage.slots.count, "slot out of range")
            let slot = storage.slots.baseAddress.unsafelyUnwrapped + number
            storage.headerPointer.pointee.count += (sets ? 1 : 0) - (slot.pointee.holdsValue ? 1 : 0)
            slot.pointee = newValue
        }
    }

    /// The storage, made for these slots when there is none, and copied first when another
    /// value shares it: what every write goes through.
    private mutating func uniqueStorage() -> Storage {
        if storage == nil {
            storage = Storage.empty(slotCount: slots.names.count)
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
