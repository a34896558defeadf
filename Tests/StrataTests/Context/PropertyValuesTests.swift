import Foundation
import Testing
@testable import Strata

/// Objects keep values in slots found by comparing names' machine words first, or the
/// addresses of typed properties' names: every way of spelling a name must still reach the
/// same slot, and IDs must stay equal however they are made.
@Suite struct PropertyValuesTests {
    private let slots = PropertySlots(
        attributes: [
            AttributeDescription(name: "title", type: .string),
            AttributeDescription(name: "aVeryLongAttributeNameIndeed", type: .integer64),
            AttributeDescription(name: "cafétéria", type: .double),
        ],
        relationships: [RelationshipDescription(name: "author", destination: "Author")])

    @Test func aNameIsFoundHoweverItsStringWasMade() {
        let built = ["aVeryLong", "AttributeName", "Indeed"].joined()
        #expect(slots.number(of: "title") == 0)
        #expect(slots.number(of: String("tit") + "le") == 0)
        #expect(slots.number(of: "aVeryLongAttributeNameIndeed") == 1)
        #expect(slots.number(of: built) == 1)
        #expect(slots.number(of: "cafe\u{301}te\u{301}ria") == 2)
        #expect(slots.number(of: "author") == 3)
        #expect(slots.number(of: "nope") == nil)
        #expect(slots.attributeType(named: "title") == .string)
        #expect(slots.attributeType(named: ["aVeryLong", "AttributeName", "Indeed"].joined()) == .integer64)
        #expect(slots.attributeType(named: "author") == nil)
        #expect(slots.attributeType(named: "nope") == nil)
    }

    /// A typed property keeps its name as the address of its bytes: a literal's own, or those
    /// interned for a `String`, one copy per distinct name.
    @Test func aTypedPropertysNameIsALiteralsBytesOrOneInternedCopy() {
        let literal: StaticString = "title"
        #expect(PropertyName(literal).utf8Start == literal.utf8Start)
        #expect(PropertyName(literal).string == "title")
        let built = PropertyName(interning: ["caf", "étéria"].joined())
        #expect(built.utf8Start == PropertyName(interning: String("cafétéri") + "a").utf8Start)
        #expect(built.utf8Start != PropertyName(interning: "title").utf8Start)
        #expect(built.string == "cafétéria")
        #expect(PropertyName(interning: "").string.isEmpty)
    }

    /// The slots find a name by its address, whichever of its copies a property keeps, and
    /// answer the same once the address is remembered; a name the entity lacks stays unknown.
    @Test func aTypedPropertysNameIsFoundByItsAddress() {
        let slots = PropertySlots(attributes: slots.names.prefix(3).map { AttributeDescription(name: $0, type: .string) },
                                  relationships: [RelationshipDescription(name: "author", destination: "Author")])
        let names: [(PropertyName, Int?)] = [
            (PropertyName("title"), 0), (PropertyName(interning: "ti" + "tle"), 0),
            (PropertyName("aVeryLongAttributeNameIndeed"), 1), (PropertyName("cafe\u{301}te\u{301}ria"), 2),
            (PropertyName(interning: "author"), 3), (PropertyName("nope"), nil), (PropertyName(interning: "nope"), nil),
        ]
        for _ in 0..<2 {
            for (name, number) in names { #expect(slots.number(of: name) == number, "\(name.string)") }
        }
        for (name, number) in names {
            #expect(slots.numbersByAddress.number(at: name.utf8Start) == .some(number), "\(name.string) remembered")
        }
        // More addresses than the table remembers: the rest are found by their text each time.
        let many = (0..<200).map { PropertyName(interning: "spare\($0)") }
        for _ in 0..<2 {
            #expect(many.allSatisfy { slots.number(of: $0) == nil })
            for (name, number) in names { #expect(slots.number(of: name) == number, "\(name.string)") }
            #expect(slots.number(of: PropertyName("author")) == 3)
        }
    }

    @Test func valuesRoundTripBySlotAndByNameAndKeepUnknownNamesAside() {
        var values = PropertyValues(slots: slots)
        values[["aVeryLong", "AttributeName", "Indeed"].joined()] = .attribute(.integer(7))
        values["extra"] = .attribute(.string("kept"))
        #expect(values[slot: 1] == .attribute(.integer(7)))
        #expect(values["aVeryLongAttributeNameIndeed"] == .attribute(.integer(7)))
        #expect(values["extra"] == .attribute(.string("kept")))
        #expect(values.count == 2)
        #expect(Set(values.keys) == ["aVeryLongAttributeNameIndeed", "extra"])

        var other = PropertyValues(slots: slots)
        other["title"] = .attribute(.string("Dune"))
        other["aVeryLongAttributeNameIndeed"] = .attribute(.integer(8))
        values.merge(other)
        #expect(values["title"] == .attribute(.string("Dune")))
        #expect(values[slot: 1] == .attribute(.integer(8)))
        #expect(values.count == 3)
        #expect(values.contains(differingFrom: other))
        values["extra"] = nil
        #expect(values == other)
    }

    /// Values share their storage when copied, as an array does: a write to either copy,
    /// in a slot or by name, leaves the other as it was.
    @Test func aCopyKeepsItsValuesWhenTheOriginalChanges() {
        var original = PropertyValues(slots: slots) { slots in
            slots[0] = .attribute(.string("Dune"))
            slots[3] = .toOne(nil)
            return 2
        }
        #expect(original.count == 2)
        #expect(original["title"] == .attribute(.string("Dune")))
        let copy = original
        original["title"] = .attribute(.string("Emma"))
        original["extra"] = .attribute(.integer(1))
        var second = original
        second["extra"] = nil
        second["author"] = nil
        #expect(copy["title"] == .attribute(.string("Dune")))
        #expect(copy["extra"] == nil)
        #expect(copy.count == 2)
        #expect(original["title"] == .attribute(.string("Emma")))
        #expect(original["extra"] == .attribute(.integer(1)))
        #expect(original.count == 3)
        #expect(second.count == 1)
        #expect(Set(second.keys) == ["title"])

        let mapped = original.mapValues { _ in .attribute(.boolean(true)) }
        #expect(mapped["title"] == .attribute(.boolean(true)))
        #expect(mapped["extra"] == .attribute(.boolean(true)))
        #expect(original["extra"] == .attribute(.integer(1)))

        var emptied = original
        emptied.removeAll()
        #expect(emptied.isEmpty && emptied["title"] == nil && emptied["extra"] == nil)
        #expect(original.count == 3)
        // A slot number of a larger entity's slots reads as unset, with values or without.
        #expect(original[slot: 40] == nil && emptied[slot: 40] == nil)
        // Two words (the slots and one reference): an object holds two of these.
        #expect(MemoryLayout<PropertyValues>.size == 16)
    }

    /// Values that go away release what their slots held, between empty slots and by name:
    /// an array they held is again its owner's alone, so appending to it copies nothing.
    @Test func valuesReleaseWhatTheyHeldWhenTheyGo() {
        let store = UUID().uuidString
        var ids = [ObjectID(entityName: "Author", storeIdentifier: store, key: .permanent(1))]
        ids.reserveCapacity(8)
        let buffer = ids.withUnsafeBufferPointer { $0.baseAddress }
        do {
            var values = PropertyValues(slots: slots) { slots in
                slots[1] = .attribute(.integer(3))
                slots[3] = .toMany(ids)
                return 2
            }
            values["extra"] = .toMany(ids)
            var copy = values
            copy["title"] = .attribute(.string(String(repeating: "long title ", count: 4)))
            #expect(copy["author"] == .toMany(ids) && values["extra"] == .toMany(ids))
        }
        ids.append(ObjectID(entityName: "Author", storeIdentifier: store, key: .permanent(2)))
        #expect(ids.withUnsafeBufferPointer { $0.baseAddress } == buffer)
    }

    /// A save lists each changed object's changed names; objects changed alike share the list
    /// of the one before, and any other change gets a list of its own, in slot order.
    @Test func changedNamesReuseTheListBeforeOnlyWhenTheyAreTheSame() {
        var saved = PropertyValues(slots: slots)
        saved["title"] = .attribute(.string("Dune"))
        saved["aVeryLongAttributeNameIndeed"] = .attribute(.integer(1))
        saved["cafétéria"] = .attribute(.double(2))
        func changed(_ edits: [String: AttributeValue]) -> PropertyValues {
            var values = saved
            for (name, value) in edits { values[name] = .attribute(value) }
            return values
        }
        let twoChanged = changed(["title": .string("Emma"), "cafétéria": .double(3)])
        let first = twoChanged.orderedKeys(differingFrom: saved)
        #expect(first == ["title", "cafétéria"])
        let same = changed(["title": .string("Ulysses"), "cafétéria": .double(4)]).orderedKeys(differingFrom: saved, reusing: first)
        #expect(same == first)
        #expect(same.withUnsafeBufferPointer { $0.baseAddress } == first.withUnsafeBufferPointer { $0.baseAddress })
        #expect(changed(["title": .string("Ulysses")]).orderedKeys(differingFrom: saved, reusing: first) == ["title"])
        #expect(changed(["cafétéria": .double(5)]).orderedKeys(differingFrom: saved, reusing: first) == ["cafétéria"])
        #expect(changed(["title": .string("Emma"), "aVeryLongAttributeNameIndeed": .integer(9), "cafétéria": .double(6)])
            .orderedKeys(differingFrom: saved, reusing: first) == ["title", "aVeryLongAttributeNameIndeed", "cafétéria"])
        #expect(saved.orderedKeys(differingFrom: saved, reusing: first).isEmpty)
    }

    @Test func idsOfOneStoreAndEntityAreEqualHoweverTheyAreMade() throws {
        let store = UUID().uuidString
        let first = ObjectID(entityName: "Book", storeIdentifier: store, key: .permanent(3))
        let second = ObjectID(entityName: String("Bo") + "ok", storeIdentifier: String(store), key: .permanent(3))
        #expect(first == second)
        #expect(first.hashValue == second.hashValue)
        #expect(first != ObjectID(entityName: "Book", storeIdentifier: UUID().uuidString, key: .permanent(3)))
        #expect(first != ObjectID(entityName: "Page", storeIdentifier: store, key: .permanent(3)))
        var moved = first
        moved.entityName = "Page"
        #expect(moved == ObjectID(entityName: "Page", storeIdentifier: store, key: .permanent(3)))
        #expect(try #require(ObjectID(uri: first.uriRepresentation())) == first)
    }
}
