import Foundation
import Synchronization

extension ObjectID {
    /// An ID's ``ObjectID/Key`` in one word, so that an ID takes 16 bytes and an optional one
    /// no more. As an enum holding a UUID the key made an ID 25 bytes, 32 in an array, and
    /// every object's values 8 bytes a slot larger (BENCHMARKS.md, the stop after b3413ce).
    ///
    /// The top two bits say what the other 62 hold:
    /// - `00`: a permanent key from 0 to 2^62 − 1 as it is, which every `Z_PK` Core Data
    ///   gives is;
    /// - `10`: a temporary key of this process's form: the number in its UUID (see
    ///   ``temporaryUUID(high:low:)``);
    /// - `01` and `11`: a permanent or temporary key of neither form (a negative `Z_PK`, a
    ///   UUID made elsewhere), by its number in a table of such keys kept for the life of the
    ///   process. They come from IDs made by hand and from stores written by hand, so the
    ///   table stays small.
    ///
    /// A key has one word only: a UUID of this process's form takes the `10` form whoever made
    /// it, and the table numbers a key once. Words therefore compare and hash as their keys.
    struct KeyWord: Hashable, Sendable, Strideable {
        private var rawValue: UInt64

        private init(rawValue: UInt64) {
            self.rawValue = rawValue
        }

        private static let temporaryFlag: UInt64 = 1 << 63
        private static let outlyingFlag: UInt64 = 1 << 62
        private static let payload: UInt64 = outlyingFlag - 1

        /// The word of `key`.
        init(_ key: Key) {
            if case .permanent(let primaryKey) = key, primaryKey >= 0, UInt64(primaryKey) <= Self.payload {
                rawValue = UInt64(primaryKey)
            } else {
                self = Self.encodeTemporaryOrOutlying(key)
            }
        }

        // Out of line, so that making the word of a row's key inlines to a test and a move:
        // inlined whole, it made callers retain the ID's scope around the call it may make.
        @inline(never)
        private static func encodeTemporaryOrOutlying(_ key: Key) -> KeyWord {
            guard case .temporary(let uuid) = key else { return KeyWord(rawValue: outlyingFlag | outlyingNumber(of: key)) }
            if let (high, low) = temporaryParts(of: uuid), high == temporaryPrefix { return KeyWord(rawValue: temporaryFlag | low) }
            return KeyWord(rawValue: temporaryFlag | outlyingFlag | outlyingNumber(of: key))
        }

        /// A new temporary key, unique to this process run and never a row's key.
        ///
        /// Its UUID is a random 64-bit prefix drawn once per process, then a counter, so that
        /// inserting many objects does not read the system's random source once per object.
        static func newTemporary() -> KeyWord {
            KeyWord(rawValue: temporaryFlag | temporarySequence.wrappingAdd(1, ordering: .relaxed).newValue & payload)
        }

        var isTemporary: Bool { rawValue & Self.temporaryFlag != 0 }

        /// The permanent key, `nil` for a temporary one.
        var primaryKey: Int64? {
            rawValue >> 62 == 0 ? Int64(rawValue) : outlyingPrimaryKey
        }

        /// For a key kept in the word itself (a permanent key, or a temporary one of this
        /// process's form), a word standing for its group of eight neighbours (`8k` to `8k + 7`
        /// make the group `k`) and its place in the group; `nil` for a key of the table. The
        /// group of a temporary word keeps its flag, shifted: groups of the two forms differ.
        var rowGroup: (group: KeyWord, place: UInt64)? {
            rawValue & Self.outlyingFlag == 0 ? (KeyWord(rawValue: rawValue >> 3), rawValue & 7) : nil
        }

        var key: Key {
            switch rawValue >> 62 {
            case 0b00: .permanent(Int64(rawValue))
            case 0b10: .temporary(temporaryUUID(high: temporaryPrefix, low: rawValue & Self.payload))
            default: outlyingKey!
            }
        }

        /// The bits an ID's hash is made from.
        var bits: UInt64 { rawValue }

        /// Permanent keys first, by value; then temporary ones by their UUIDs' bytes, which
        /// for this process's keys is the order they were made in.
        func precedes(_ other: KeyWord) -> Bool {
            if rawValue >> 62 == other.rawValue >> 62, rawValue & Self.outlyingFlag == 0 { return rawValue < other.rawValue }
            return switch (key, other.key) {
            case (.permanent(let lhs), .permanent(let rhs)): lhs < rhs
            case (.permanent, .temporary): true
            case (.temporary, .permanent): false
            case (.temporary(let lhs), .temporary(let rhs)):
                withUnsafeBytes(of: lhs.uuid) { left in
                    withUnsafeBytes(of: rhs.uuid) { right in left.lexicographicallyPrecedes(right) }
                }
            }
        }

        // Strideable, by the raw word: the keys one save gives runs to (``PermanentIDs``) are
        // words one after another, and so are temporary keys made one after another.
        static func < (lhs: KeyWord, rhs: KeyWord) -> Bool { lhs.rawValue < rhs.rawValue }

        func distance(to other: KeyWord) -> Int64 { Int64(bitPattern: other.rawValue &- rawValue) }

        func advanced(by offset: Int64) -> KeyWord { KeyWord(rawValue: rawValue &+ UInt64(bitPattern: offset)) }

        // MARK: - Keys of neither form

        @inline(never)
        private var outlyingPrimaryKey: Int64? {
            guard case .permanent(let primaryKey) = outlyingKey else { return nil }
            return primaryKey
        }

        private var outlyingKey: Key? {
            guard rawValue & Self.outlyingFlag != 0 else { return nil }
            let number = Int(rawValue & Self.payload)
            return Self.outlyingKeys.withLock { $0.keys[number] }
        }

        private static func outlyingNumber(of key: Key) -> UInt64 {
            outlyingKeys.withLock { table in
                if let number = table.numbers[key] { return number }
                let number = UInt64(table.keys.count)
                table.keys.append(key)
                table.numbers[key] = number
                return number
            }
        }

        /// Never emptied: a word holds a number in it, not the key.
        private static let outlyingKeys = Locked<(keys: [Key], numbers: [Key: UInt64])>(([], [:]))
    }

    /// A temporary key's UUID from two numbers: `high` its first 8 bytes, `low` its last 8,
    /// big-endian, with the top 2 bits of `low` replaced by RFC 4122's variant bits, which
    /// ``temporaryParts(of:)`` takes off again. `high` is kept whole, version nibble included.
    private static func temporaryUUID(high: UInt64, low: UInt64) -> UUID {
        let low = (low & ((1 << 62) - 1)) | (0b10 << 62)
        var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &uuid) {
            $0.storeBytes(of: high.bigEndian, as: UInt64.self)
            $0.storeBytes(of: low.bigEndian, toByteOffset: 8, as: UInt64.self)
        }
        return UUID(uuid: uuid)
    }

    /// The two numbers of a UUID (see ``temporaryUUID(high:low:)``), `low` without the
    /// variant bits; `nil` for a UUID not of RFC 4122's variant.
    private static func temporaryParts(of uuid: UUID) -> (high: UInt64, low: UInt64)? {
        let (high, low) = withUnsafeBytes(of: uuid.uuid) {
            (UInt64(bigEndian: $0.loadUnaligned(as: UInt64.self)), UInt64(bigEndian: $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
        }
        guard low >> 62 == 0b10 else { return nil }
        return (high, low & ((1 << 62) - 1))
    }

    /// The first 8 bytes of this process's temporary keys, with the version nibble of a
    /// random-kind UUID (4).
    private static let temporaryPrefix = (UInt64.random(in: .min ... .max) & ~0xF000) | 0x4000
    /// An atomic counter rather than a locked one: taking and releasing a lock for every new
    /// object was 3% of `Person(context:)` in case 1's profile (BENCHMARKS.md).
    private static let temporarySequence = Atomic<UInt64>(0)
}
