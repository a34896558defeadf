import Foundation
import Testing
@testable import Strata

/// An ID keeps its key in one word (``ObjectID/KeyWord``): these pin that every key still reads
/// back, compares and orders as the key it was made from, whichever form its word takes.
@Suite struct ObjectIDTests {
    private static func id(_ key: ObjectID.Key, entity: String = "Book") -> ObjectID {
        ObjectID(entityName: entity, storeIdentifier: "S", key: key)
    }

    /// Keys of the word's direct forms and of neither (negative, huge, a UUID made elsewhere)
    /// read back as given, say whether they are temporary, and give their `Z_PK`.
    @Test(arguments: [
        ObjectID.Key.permanent(0), .permanent(1), .permanent(1 << 62 - 1), .permanent(1 << 62), .permanent(.max),
        .permanent(-1), .permanent(.min), .temporary(UUID()), .temporary(UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 0x81, 10, 11, 12, 13, 14, 15, 16))),
    ])
    func everyKeyReadsBackAsGiven(key: ObjectID.Key) {
        let made = Self.id(key)
        #expect(made.key == key)
        #expect(made.isTemporary == (made.primaryKey == nil))
        if case .permanent(let primaryKey) = key { #expect(made.primaryKey == primaryKey) } else { #expect(made.isTemporary) }
        var changed = Self.id(.permanent(3))
        changed.key = key
        #expect(changed == made && changed.hashValue == made.hashValue)
    }

    /// The same key makes equal IDs however it is given: an ID of this process made again from
    /// its UUID, a key of neither form given twice. Different keys make different IDs.
    @Test func equalKeysMakeEqualIDsAndOthersDiffer() {
        let scope = ObjectIDScope.named("Book", inStore: "S")
        let own = ObjectID.newTemporary(in: scope)
        let again = Self.id(own.key)
        #expect(again == own && again.hashValue == own.hashValue)
        let uuid = UUID()
        #expect(Self.id(.temporary(uuid)) == Self.id(.temporary(uuid)))
        #expect(Self.id(.permanent(-5)) == Self.id(.permanent(-5)))
        let distinct = [own, ObjectID.newTemporary(in: scope), Self.id(.temporary(uuid)), Self.id(.temporary(UUID())),
                        Self.id(.permanent(5)), Self.id(.permanent(-5)), Self.id(.permanent(.max)), Self.id(.permanent(5), entity: "Author")]
        #expect(Set(distinct).count == distinct.count)
    }

    /// Saves write permanent objects by key (negative keys first), then new ones in the order
    /// they were made; temporary IDs made elsewhere go by their UUIDs' bytes.
    @Test func theOrderOfSavesHoldsForEveryForm() {
        let scope = ObjectIDScope.named("Book", inStore: "S")
        let made = (0..<3).map { _ in ObjectID.newTemporary(in: scope) }
        let permanent = [Int64.min, -1, 0, 7, 1 << 62, .max].map { Self.id(.permanent($0)) }
        let ordered = permanent + made
        for (earlier, later) in zip(ordered, ordered.dropFirst()) {
            #expect(earlier.precedes(later) && !later.precedes(earlier))
        }
        let low = Self.id(.temporary(UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1))))
        let high = Self.id(.temporary(UUID(uuid: (0xFF, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))))
        #expect(low.precedes(high) && !high.precedes(low))
        #expect(permanent.last!.precedes(low))
    }

    /// Memory per object, not speed: an ID fits in two words with room for `Optional`'s
    /// tag, and a property value in three, which is what keeps a fetched object's values at
    /// 24 bytes a slot (BENCHMARKS.md). A field added to either shows here first.
    @Test func anIDTakesTwoWordsAndAValueThree() {
        #expect(MemoryLayout<ObjectID>.size == 16)
        #expect(MemoryLayout<ObjectID?>.size == 16)
        #expect(MemoryLayout<PropertyValue?>.stride == 24)
    }
}
