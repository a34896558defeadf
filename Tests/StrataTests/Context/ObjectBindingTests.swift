import Foundation
import Testing
@testable import Strata

/// The objects of one entity in one context share one ``ObjectBinding`` (the link to their
/// context, their entity and their values' slots) instead of holding each: what an object
/// reads and writes must still be its own.
@Suite struct ObjectBindingTests {
    @Test func objectsOfOneEntityInOneContextShareOneBinding() throws {
        let fixture = try LibraryFixture()
        let context = fixture.context, other = try fixture.otherContext()
        let (first, second, author) = try context.performAndWait {
            (try context.insert("Book"), try context.insert("Book"), try context.insert("Author"))
        }
        let elsewhere = try other.performAndWait { try other.insert("Book") }
        #expect(first.binding === second.binding)
        #expect(first.binding !== author.binding && first.binding !== elsewhere.binding)
        #expect(first.entity == fixture.store.model.entity(named: "Book"))
        #expect(author.entity.name == "Author" && elsewhere.managedObjectContext === other)
        #expect(first.managedObjectContext === context)
    }

    /// An object made with an entity unlike the model's of that name keeps the entity it was
    /// given, and objects of the model's entity, made before or after, keep theirs.
    @Test func anEntityUnlikeTheModelsKeepsABindingOfItsOwn() throws {
        let fixture = try LibraryFixture()
        let context = fixture.context
        let (modelBook, custom) = try Self.book(of: fixture, madeBy: "hand")
        try context.performAndWait {
            let before = try context.insert("Book")
            let odd = Self.object(of: custom, in: context)
            let after = try context.insert("Book")
            #expect(odd.entity == custom && odd.entity != modelBook)
            #expect(before.entity == modelBook && after.entity == modelBook)
            #expect(before.binding === after.binding && odd.binding !== before.binding)
        }
    }

    /// A description equal to the model's but stored apart, met first, still leaves the
    /// binding holding the model's own description, which later objects find by identity.
    @Test func anEqualDescriptionMetFirstLeavesTheModelsInTheBinding() throws {
        let fixture = try LibraryFixture()
        let context = fixture.context
        let (modelBook, copy) = try Self.book(of: fixture, madeBy: nil)
        // Identity of the storage the two descriptions hold: `==` cannot tell them apart.
        func storage(_ entity: EntityDescription) -> ObjectIdentifier { ObjectIdentifier(unsafeBitCast(entity, to: AnyObject.self)) }
        #expect(copy == modelBook && storage(copy) != storage(modelBook))
        try context.performAndWait {
            let first = Self.object(of: copy, in: context)
            let next = try context.insert("Book")
            #expect(first.binding === next.binding)
            #expect(storage(next.entity) == storage(modelBook))
        }
    }

    /// The model's `Book`, and a copy in storage of its own whose `userInfo["made"]` is
    /// `madeBy` (with `nil`, a copy equal to the model's).
    private static func book(of fixture: LibraryFixture, madeBy: String?) throws -> (model: EntityDescription, copy: EntityDescription) {
        let model = try #require(fixture.store.model.entity(named: "Book"))
        var copy = model
        copy.userInfo["made"] = "by hand"
        copy.userInfo["made"] = madeBy.map { "by \($0)" }
        return (model, copy)
    }

    /// A new object of `entity` in `context`, made as a context makes its objects.
    private static func object(of entity: EntityDescription, in context: ObjectContext) -> ManagedObject {
        ManagedObject(entity: entity, objectID: context.newTemporaryID(for: entity.name), context: context, isFault: false)
    }

    /// Values numbered by other slots than the object's, assigned to it, are kept in its own:
    /// its saved values and its changes are always numbered alike, so a read by number finds
    /// the value assigned.
    @Test func valuesAssignedInOtherSlotsAreRenumbered() throws {
        let fixture = try LibraryFixture()
        let context = fixture.context
        let reordered = PropertySlots(
            attributes: [AttributeDescription(name: "isbn", type: .string), AttributeDescription(name: "title", type: .string)],
            relationships: [])
        try context.performAndWait {
            let book = try context.insert("Book")
            #expect(reordered.number(of: "title") != book.slots.number(of: "title"))
            var saved = PropertyValues(slots: reordered), changed = saved
            saved["title"] = .attribute(.string("Dune"))
            changed["isbn"] = .attribute(.string("9780441013593"))
            book.committedValues = saved
            book.changedValues = changed
            #expect(book.committedValues.slots === book.slots && book.changedValues.slots === book.slots)
            #expect(try book.attributeValue(forKey: "title") == .string("Dune"))
            #expect(try book.value(forKey: "isbn") as? String == "9780441013593")
            #expect(book.committedValues["isbn"] == nil)
        }
    }

    /// A write through an object's values writes their storage in place once it is the
    /// object's own, and copies it first while another object shares it.
    @Test func writesToAnObjectsValuesCopyOnlySharedStorage() throws {
        let fixture = try LibraryFixture()
        let context = fixture.context
        try context.performAndWait {
            let first = try context.insert("Book"), second = try context.insert("Book")
            // New objects share their entity's template of saved values.
            #expect(first.committedStorage != nil && first.committedStorage === second.committedStorage)
            first.committedValues["title"] = .attribute(.string("Dune"))
            // Identities, not references: holding the storage would share it.
            let own = first.committedStorage.map(ObjectIdentifier.init)
            #expect(own != nil && own != second.committedStorage.map(ObjectIdentifier.init))
            first.committedValues["title"] = .attribute(.string("Emma"))
            #expect(first.committedStorage.map(ObjectIdentifier.init) == own)
            #expect(second.committedValues["title"] == .attribute(nil))
            #expect(try context.insert("Book").committedValues["title"] == .attribute(nil))

            try first.setValue("Persuasion", forKey: "title")
            let changes = first.changedStorage.map(ObjectIdentifier.init)
            try first.setValue("Sanditon", forKey: "title")
            #expect(changes != nil && first.changedStorage.map(ObjectIdentifier.init) == changes)
            #expect(try first.value(forKey: "title") as? String == "Sanditon")
        }
    }
}
