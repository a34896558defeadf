import Foundation
import Testing
@testable import Strata

@Suite struct PermanentIDsTests {
    private static func temporary(_ entity: String = "Book") -> ObjectID {
        .newTemporary(in: .named(entity, inStore: "S"))
    }

    private static func permanent(_ entity: String = "Book", _ key: Int64) -> ObjectID {
        ObjectID(entityName: entity, storeIdentifier: "S", key: .permanent(key))
    }

    /// IDs made one after another and given keys in a row read back one by one, iterate in
    /// the order they were made, and count as many as were given.
    @Test func pairsInARowReadBackAndIterateInOrder() {
        let temporaries = (0..<1000).map { _ in Self.temporary() }
        var ids = PermanentIDs()
        for (offset, id) in temporaries.enumerated() { ids[id] = Self.permanent("Book", Int64(offset) + 7) }
        #expect(ids.count == 1000)
        for (offset, id) in temporaries.enumerated() { #expect(ids[id] == Self.permanent("Book", Int64(offset) + 7)) }
        #expect(ids.map(\.key) == temporaries)
        #expect(ids.map(\.value) == (7..<1007).map { Self.permanent("Book", $0) })
        #expect(ids[Self.temporary()] == nil, "an ID made later has no pair")
        #expect(ids[ObjectID(entityName: "Author", storeIdentifier: "S", key: temporaries[3].key)] == nil, "nor one of another entity")
    }

    /// Temporary IDs made elsewhere (here time-based UUIDs, counting up), whose keys the
    /// process numbers in its table of other keys, are kept as a run like the process's own,
    /// and read back and iterate as the very IDs given: a run remakes them from its words.
    @Test func aRunOfIDsMadeElsewhereIteratesAsTheyWere() {
        let made = (0..<50).map { offset in
            ObjectID(entityName: "Book", storeIdentifier: "S", key: .temporary(UUID(uuid: (
                0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0xF6, 0x1F, 0x07, 0x9A, 0, 0, 0, 0, 0, 0, UInt8(offset)))))
        }
        var ids = PermanentIDs()
        for (offset, id) in made.enumerated() { ids[id] = Self.permanent("Book", Int64(offset) + 100) }
        #expect(ids.map(\.key) == made)
        for (offset, id) in made.enumerated() { #expect(ids[id] == Self.permanent("Book", Int64(offset) + 100)) }
    }

    /// Replacing and removing pairs in the middle of a row, mixing entities, and IDs made by
    /// hand (any UUID) all behave as a dictionary's entries.
    @Test func itBehavesAsADictionary() {
        var ids = PermanentIDs(), reference: [ObjectID: ObjectID] = [:]
        let made = (0..<200).map { $0 % 7 == 3 ? Self.temporary("Author") : Self.temporary() }
        for (offset, id) in made.enumerated() {
            let value = Self.permanent(id.entityName, Int64(offset + 1))
            ids[id] = value
            reference[id] = value
        }
        let byHand = ObjectID(entityName: "Book", storeIdentifier: "S", key: .temporary(UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 0x01, 10, 11, 12, 13, 14, 15, 16))))
        ids[byHand] = Self.permanent("Book", 900)
        reference[byHand] = Self.permanent("Book", 900)
        for index in [0, 50, 51, 199, 120] {
            ids[made[index]] = nil
            reference[made[index]] = nil
        }
        ids[made[60]] = Self.permanent("Book", 5000)
        reference[made[60]] = Self.permanent("Book", 5000)
        #expect(ids.count == reference.count)
        #expect(Dictionary(uniqueKeysWithValues: ids.map { ($0.key, $0.value) }) == reference)
        for id in made + [byHand] { #expect(ids[id] == reference[id]) }
        #expect(ids == PermanentIDs(reference))
    }

    /// A later save's pairs join the earlier ones; pairs given again replace theirs.
    @Test func mergeKeepsBothAndTheLaterPairsWin() {
        let first = (0..<10).map { _ in Self.temporary() }, second = (0..<10).map { _ in Self.temporary() }
        var earlier = PermanentIDs(), later = PermanentIDs()
        for (offset, id) in first.enumerated() { earlier[id] = Self.permanent("Book", Int64(offset + 1)) }
        for (offset, id) in second.enumerated() { later[id] = Self.permanent("Book", Int64(offset + 11)) }
        later[first[4]] = Self.permanent("Book", 99)
        earlier.merge(later)
        #expect(earlier.count == 20)
        #expect(earlier[first[3]] == Self.permanent("Book", 4) && earlier[first[4]] == Self.permanent("Book", 99))
        #expect(earlier[second[9]] == Self.permanent("Book", 20))
        var empty = PermanentIDs()
        empty.merge(later)
        #expect(empty == later)
    }

    /// Regression: an ID made by hand with another entity's name and a temporary key a run
    /// held started a second run at the same key, and the run's other IDs were lost.
    @Test func aKeyOfAnotherEntityLeavesTheRunHoldingItAlone() {
        let books = (0..<3).map { _ in Self.temporary() }
        var ids = PermanentIDs()
        for (offset, id) in books.enumerated() { ids[id] = Self.permanent("Book", Int64(offset + 10)) }
        var author = books[0]
        author.entityName = "Author"
        ids[author] = Self.permanent("Author", 5)
        #expect(ids.count == 4)
        for (offset, id) in books.enumerated() { #expect(ids[id] == Self.permanent("Book", Int64(offset + 10))) }
        #expect(ids[author] == Self.permanent("Author", 5))
        ids[author] = nil
        #expect(ids.count == 3 && ids[books[0]] == Self.permanent("Book", 10))
    }

    /// Pairs given out of the order of their temporary keys (two contexts' saves interleaved,
    /// a parent saving two children's pushes), merged or built, read back as given, and a
    /// pair set aside (its permanent ID of another entity) is not counted twice.
    @Test func pairsOutOfOrderAndPairsSetAsideMergeAsADictionaryWould() {
        let made = (0..<400).map { _ in Self.temporary() }
        var even = PermanentIDs(), odd = PermanentIDs(), reference: [ObjectID: ObjectID] = [:]
        for (offset, id) in made.enumerated() {
            let value = Self.permanent("Book", Int64(offset + 1))
            if offset.isMultiple(of: 2) { even[id] = value } else { odd[id] = value }
            reference[id] = value
        }
        var merged = even
        merged.merge(odd)
        #expect(merged == PermanentIDs(reference) && merged.count == 400)

        var builder = PermanentIDs.Builder()
        for (offset, id) in made.enumerated().reversed() { builder.add(id, Self.permanent("Book", Int64(offset + 1))) }
        #expect(builder.build() == PermanentIDs(reference))

        var aside = PermanentIDs()
        aside[made[398]] = Self.permanent("Author", 1)
        aside.merge(PermanentIDs([made[398]: Self.permanent("Book", 399), made[399]: Self.permanent("Book", 400)]))
        #expect(aside.count == 2 && aside.map(\.key).count == 2)
        #expect(aside[made[398]] == Self.permanent("Book", 399) && aside[made[399]] == Self.permanent("Book", 400))
    }
}
