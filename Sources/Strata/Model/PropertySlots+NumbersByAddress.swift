import Synchronization

extension PropertySlots {
    /// The numbers of property names by the address of their bytes (``PropertyName``), read
    /// and written by every thread that reads objects of the entity, without a lock.
    ///
    /// Open addressing with linear probing in a power-of-two table kept about half full. An
    /// entry is one atomic word, so a reader sees all of it or none: the address in its low
    /// 48 bits and the number in its high 16 (all ones for a name the entity lacks); 0 is a
    /// free entry. Entries are added, never changed or removed. Once half the table is taken
    /// (a program that names a property through many different literals or strings), further
    /// addresses are not remembered and their names are looked up by their text each time;
    /// so are addresses above 48 bits, which no Linux process of ours is given. Threads that
    /// remember at once may take a few entries past the half (the count is read before an
    /// entry is taken): probes stop after one turn of the table, so even a full one only
    /// makes a look-up of an unknown address slower.
    ///
    /// A value of two words that the ``PropertySlots`` owning the entries frees: a reader
    /// copies it out of the slots and probes the entries without keeping the slots alive
    /// itself, where a method of a class holding the atomics made every read of an object
    /// retain and release its slots around the probe.
    struct NumbersByAddress: @unchecked Sendable {
        // Sendable: the entries are only read and written through their atomics.

        private let entries: UnsafeMutablePointer<Atomic<UInt64>>
        private let mask: Int

        private static let absent: UInt64 = 0xFFFF

        /// A table for the names of an entity with `names` properties, each named through a
        /// few different addresses; one more entry, after the table's, counts those taken.
        init(names: Int) {
            var size = 16
            while size < names * 4 { size *= 2 }
            entries = .allocate(capacity: size + 1)
            for index in 0...size { (entries + index).initialize(to: Atomic(0)) }
            mask = size - 1
        }

        /// Frees the entries; call it once, when the slots go.
        func deallocate() {
            entries.deinitialize(count: mask + 2)
            entries.deallocate()
        }

        private var taken: UnsafeMutablePointer<Atomic<UInt64>> { entries + mask + 1 }

        private static func firstIndex(of address: UInt64) -> Int {
            // Fibonacci hashing: names' bytes lie close together, a few bytes apart.
            Int(truncatingIfNeeded: (address &* 0x9E37_79B9_7F4A_7C15) >> 40)
        }

        /// The number remembered for `address` (`.some(nil)` for a name the entity lacks), or
        /// `nil` when the address was not met before.
        @inline(__always)
        func number(at address: UnsafePointer<UInt8>) -> Int?? {
            let bits = UInt64(UInt(bitPattern: address))
            var index = Self.firstIndex(of: bits) & mask
            for _ in 0...mask {
                let entry = entries[index].load(ordering: .relaxed)
                if entry == 0 { return nil }
                if entry & 0xFFFF_FFFF_FFFF == bits {
                    let number = entry >> 48
                    return .some(number == Self.absent ? nil : Int(number))
                }
                index = (index + 1) & mask
            }
            return nil
        }

        /// Remembers `number` (`nil`: the entity lacks the name) for `address`, unless the table
        /// is half full or the address or number does not fit its entry.
        func remember(_ number: Int?, at address: UnsafePointer<UInt8>) {
            let bits = UInt64(UInt(bitPattern: address))
            guard bits >> 48 == 0, (number ?? 0) < Self.absent, taken.pointee.load(ordering: .relaxed) * 2 < mask + 1 else { return }
            let entry = bits | (number.map(UInt64.init) ?? Self.absent) << 48
            var index = Self.firstIndex(of: bits) & mask
            for _ in 0...mask {
                let (stored, found) = entries[index].compareExchange(expected: 0, desired: entry, ordering: .relaxed)
                if stored {
                    taken.pointee.add(1, ordering: .relaxed)
                    return
                }
                // Another thread may have remembered the same address meanwhile.
                if found & 0xFFFF_FFFF_FFFF == bits { return }
                index = (index + 1) & mask
            }
        }
    }
}
