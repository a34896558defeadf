/// An object's values by property name, kept in slots numbered by its entity's
/// ``PropertySlots``: a dictionary's operations without a hash table per object. A name the
/// entity lacks is kept aside by name, so that any key round-trips as in a dictionary.
struct PropertyValues: Sequence, Equatable, Sendable {
    private(set) var slots: PropertySlots
    /// The values by slot number; empty until a value is set, so that empty values cost no
    /// allocation (most objects' changes are empty).
    private var values: [PropertyValue?] = []
    /// Made with `init()`, not `[:]`, which called the literal initializer for each object
    /// (see ``ManagedObject``'s `fetchedResults`).
    private var others = [String: PropertyValue]()
    /// The number of properties that hold a value.
    private(set) var count = 0

    /// No values, in the slots of an entity's properties.
    init(slots: PropertySlots) {
        self.slots = slots
    }

    /// The values of `slots` in the array `values`, one per slot, `count` of them set.
    init(slots: PropertySlots, values: [PropertyValue?], count: Int) {
        precondition(values.count == slots.names.count, "one value per slot")
        (self.slots, self.values, self.count) = (slots, values, count)
    }

    var isEmpty: Bool { count == 0 }

    subscript(key: String) -> PropertyValue? {
        get {
            if let number = slots.number(of: key) { return number < values.count ? values[number] : nil }
            return others.isEmpty ? nil : others[key]
        }
        set {
            if let number = slots.number(of: key) {
                self[slot: number] = newValue
            } else {
                count += (newValue == nil ? 0 : 1) - (others[key] == nil ? 0 : 1)
                others[key] = newValue
            }
        }
    }

    /// The value in the slot `number` of ``slots``.
    subscript(slot number: Int) -> PropertyValue? {
        get { number < values.count ? values[number] : nil }
        set {
            // Whether a slot is empty is matched, not compared with `nil`: `== nil` on these
            // optionals took `Optional`'s `==` for two values, which copied the value and
            // destroyed a tuple of both through the runtime's generic witnesses (about 190
            // instructions a set; see BENCHMARKS.md, the save path's fourth steps).
            let sets = newValue.holdsValue
            if values.isEmpty {
                guard sets else { return }
                values = Self.emptySlots(slots.names.count)
            }
            count += (sets ? 1 : 0) - (values[number].holdsValue ? 1 : 0)
            values[number] = newValue
        }
    }

    /// `count` empty slots. `Array(repeating:count:)` is not inlinable, so for an element
    /// type the standard library has no code of its own for it looks the array's type up at
    /// run time on every call, and copying an array of empty slots copies each through its
    /// type's value witness; reserving and appending is specialized and does neither (see
    /// BENCHMARKS.md, the fetch path's third steps).
    static func emptySlots(_ count: Int) -> [PropertyValue?] {
        var slots: [PropertyValue?] = []
        slots.reserveCapacity(count)
        for _ in 0..<count { slots.append(nil) }
        return slots
    }

    /// The names of the properties that hold a value.
    var keys: [String] { map(\.key) }

    mutating func removeAll() {
        guard count > 0 else { return }
        values = []
        others = [:]
        count = 0
    }

    /// Takes the values `other` holds, in place of these.
    mutating func merge(_ other: PropertyValues) {
        guard !other.isEmpty else { return }
        if other.slots === slots, isEmpty || (others.isEmpty && other.others.isEmpty && other.count == slots.names.count) {
            // `other` holds every slot, or these hold nothing: it replaces them whole.
            self = other
        } else if other.slots === slots, other.others.isEmpty {
            for (number, value) in other.values.enumerated() where value.holdsValue { self[slot: number] = value }
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
        var mapped = self
        for (number, value) in values.enumerated() { if let value { mapped.values[number] = try transform(value) } }
        mapped.others = try others.mapValues(transform)
        return mapped
    }

    func filter(_ isIncluded: ((key: String, value: PropertyValue)) throws -> Bool) rethrows -> PropertyValues {
        var kept = PropertyValues(slots: slots)
        for element in self where try isIncluded(element) { kept[element.key] = element.value }
        return kept
    }

    /// Whether a value is a change to a to-many that was not read.
    var containsToManyChanges: Bool {
        values.contains { $0?.isToManyChanges == true } || others.values.contains(where: \.isToManyChanges)
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
        values.withUnsafeBufferPointer { mine in
            other.values.withUnsafeBufferPointer { theirs in
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
            while number < values.values.count {
                defer { number += 1 }
                if let value = values.values[number] { return (values.slots.names[number], value) }
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
