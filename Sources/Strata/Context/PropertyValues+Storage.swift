extension PropertyValues {
    /// What ``PropertyValues`` holds once a value is set, in one allocation: one optional
    /// value per slot, after a header with the number of slots, the number of values set and
    /// the values kept by name. With all of it here, ``PropertyValues`` itself is two words;
    /// an object holds two of them, its saved values and its changes, where an array of slots,
    /// a dictionary and a count beside it took 32 bytes each (see BENCHMARKS.md, the stop
    /// after 82c486f).
    ///
    /// Shared between copies of ``PropertyValues`` until one of them writes, which copies it
    /// first (``PropertyValues``' `uniqueStorage()`), as an array is.
    final class Storage: ManagedBuffer<Storage.Header, PropertyValue?> {
        struct Header {
            /// The number of slots after the header.
            var slotCount: Int32
            /// The number of values set, in the slots and by name.
            var count: Int32
            /// The values of names the entity lacks.
            var others: [String: PropertyValue]
        }

        /// `slotCount` empty slots and no values by name.
        static func empty(slotCount: Int) -> Storage {
            let storage = unsafeDowncast(create(minimumCapacity: slotCount) { _ in
                Header(slotCount: Int32(slotCount), count: 0, others: [:])
            }, to: Storage.self)
            storage.withUnsafeMutablePointerToElements { $0.initialize(repeating: nil, count: slotCount) }
            return storage
        }

        /// A copy of these slots and values, for a value about to write.
        func copy() -> Storage {
            withUnsafeMutablePointers { header, slots in
                let count = Int(header.pointee.slotCount)
                let copy = unsafeDowncast(Storage.create(minimumCapacity: count) { _ in header.pointee }, to: Storage.self)
                copy.withUnsafeMutablePointerToElements { $0.initialize(from: slots, count: count) }
                return copy
            }
        }

        // The header is read and written through its pointer: `header`, a stored property of a
        // class, would be checked for exclusive access at run time on every use, which cost
        // more than the rest of a read (measured in a fetch).
        var headerPointer: UnsafeMutablePointer<Header> { withUnsafeMutablePointerToHeader { $0 } }

        /// The slots, in place; valid while the storage lives.
        var slots: UnsafeMutableBufferPointer<PropertyValue?> {
            withUnsafeMutablePointers { header, slots in UnsafeMutableBufferPointer(start: slots, count: Int(header.pointee.slotCount)) }
        }

        deinit {
            // Slot by slot, not `deinitialize(count:)`: that destroys an array of values through
            // the runtime's generic witnesses, three calls a slot, empty or not, which took a
            // fifth of the time a context of fetched objects took to go away (BENCHMARKS.md, the
            // stop after c82f73e). An empty slot owns nothing.
            withUnsafeMutablePointers { header, slots in
                for slot in slots..<slots + Int(header.pointee.slotCount) where slot.pointee.holdsValue {
                    _ = slot.move()
                }
            }
        }
    }
}
