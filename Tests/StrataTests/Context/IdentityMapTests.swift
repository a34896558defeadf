import Foundation
import Testing
@testable import Strata

/// The identity map keeps its objects in an array and their positions in a hash table: every
/// removal and change of key must leave each ID finding its own object. The table puts the IDs
/// of neighbouring rows of one entity in neighbouring slots, so IDs of several entities with the
/// same keys, and runs of keys with gaps, must each find their own object too.
@Suite struct IdentityMapTests {
    private let fixture: LibraryFixture
    private let store = UUID().uuidString

    init() throws {
        fixture = try LibraryFixture()
    }

    private func id(_ key: Int64) -> ObjectID {
        id("Tag", key)
    }

    private func id(_ entity: String, _ key: Int64) -> ObjectID {
        ObjectID(entityName: entity, storeIdentifier: store, key: .permanent(key))
    }

    private func object(_ key: Int64) -> ManagedObject {
        let entity = fixture.context.model.entity(named: "Tag")!
        return ManagedObject(entity: entity, objectID: id(key), context: fixture.context, isFault: true)
    }

    /// Every ID maps to the object made for it, and the map holds nothing else.
    private func expectConsistent(_ map: IdentityMap, holding keys: [Int64], sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        #expect(map.count == keys.count, sourceLocation: sourceLocation)
        #expect(Set(map.keys) == Set(keys.map(id)), sourceLocation: sourceLocation)
        for (key, object) in map { #expect(map[key] === object, sourceLocation: sourceLocation) }
        for key in keys { #expect(map[id(key)]?.objectID == id(key), sourceLocation: sourceLocation) }
    }

    @Test func objectsKeepTheOrderTheyWereRegisteredInUntilOneLeaves() {
        var map = IdentityMap()
        let made = (1...5).map(object)
        for object in made { map[object.objectID] = object }
        #expect(map.values.elementsEqual(made, by: ===))
        #expect(map[id(3)] === made[2])
        let sixth = object(6)
        #expect(map.updateValue(sixth, forKey: id(6)) == nil)
        #expect(map.values.last === sixth)

        #expect(map.removeValue(forKey: id(2)) === made[1])
        #expect(map.removeValue(forKey: id(2)) == nil)
        expectConsistent(map, holding: [1, 3, 4, 5, 6])
        map[id(6)] = nil
        map[id(1)] = nil
        expectConsistent(map, holding: [3, 4, 5])
        let replacement = object(4)
        #expect(map.updateValue(replacement, forKey: id(4)) === made[3])
        #expect(map[id(4)] === replacement)
        map.removeAll()
        #expect(map.isEmpty)
    }

    @Test func aChangedKeyKeepsItsObjectAndDisplacesTheOneRegisteredUnderTheNewKey() throws {
        var map = IdentityMap()
        let made = (1...4).map(object)
        for object in made { map[object.objectID] = object }

        // A key no object holds changes nothing.
        #expect(map.changeKey(id(9), to: id(10)) == nil)
        expectConsistent(map, holding: [1, 2, 3, 4])

        // The last object takes the key of an earlier one, whose removal moves it into that place.
        let firstChange = map.changeKey(id(4), to: id(2))
        let moved = try #require(firstChange)
        #expect(moved.object === made[3])
        #expect(made[3].objectID == id(2))
        #expect(moved.displaced === made[1])
        #expect(map[id(2)] === made[3])
        #expect(map[id(4)] == nil)
        #expect(map.count == 3)

        // An earlier object takes the key of the last one.
        let secondChange = map.changeKey(id(1), to: id(2))
        let other = try #require(secondChange)
        #expect(other.object === made[0])
        #expect(other.displaced === made[3])
        #expect(map[id(2)] === made[0])
        #expect(Set(map.keys) == [id(2), id(3)])
        #expect(map.changeKey(id(3), to: id(7))?.displaced == nil)
        #expect(map[id(7)] === made[2])
        #expect(Set(map.keys) == [id(2), id(7)])
    }

    @Test func registeringByOneProbeMakesAnObjectOnlyForAnIDNotHeld() {
        var map = IdentityMap()
        let first = object(1)
        map[id(1)] = first
        var made = 0
        let held = map.object(forKey: id(1)) { made += 1; return object(1) }
        #expect(held === first)
        #expect(made == 0)
        let new = map.object(forKey: id(2)) { made += 1; return object(2) }
        #expect(made == 1)
        #expect(map[id(2)] === new)
        #expect(map.values.last === new)
        expectConsistent(map, holding: [1, 2])
    }

    /// Thousands of IDs, so that the table grows and IDs share runs of slots, then removals
    /// and changes of key in a scattered order: each must leave every other ID findable.
    @Test func manyRemovalsAndChangesOfKeyLeaveEveryIDFindingItsObject() {
        var map = IdentityMap()
        var held = Set<Int64>()
        for key in Int64(1)...5_000 {
            let object = object(key)
            if key % 2 == 0 { map[id(key)] = object } else { _ = map.object(forKey: id(key)) { object } }
            held.insert(key)
        }
        expectConsistent(map, holding: held.sorted())
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let key = held.randomElement(using: &generator)!
            if Bool.random(using: &generator) {
                #expect(map.removeValue(forKey: id(key))?.objectID == id(key))
                held.remove(key)
            } else {
                // A new key, or one held (whose object leaves): either way the moved object answers to it.
                let target = Int64.random(in: 1...6_000, using: &generator)
                let changed = map.changeKey(id(key), to: id(target))
                #expect(changed?.object.objectID == id(target))
                held.remove(key)
                held.insert(target)
            }
        }
        #expect(map.count == held.count)
        #expect(Set(map.keys) == Set(held.map(id)))
        for (key, object) in map { #expect(map[key] === object) }
        for key in held { #expect(map[id(key)]?.objectID == id(key)) }
        for key in Int64(6_001)...6_100 { #expect(map[id(key)] == nil) }
    }

    /// A new ID of the Tag entity, temporary as an inserted object's.
    private func temporaryID() -> ObjectID {
        .newTemporary(in: .named("Tag", inStore: store))
    }

    private func object(_ id: ObjectID) -> ManagedObject {
        let entity = fixture.context.model.entity(named: "Tag")!
        return ManagedObject(entity: entity, objectID: id, context: fixture.context, isFault: true)
    }

    /// A save re-keys most of the map at once: walking the keys in the order of registration,
    /// looking up the pairs out of that order, skipping IDs not held, and rebuilding the table.
    @Test func changingManyKeysAtOnceKeepsEachObjectInItsPlace() {
        var map = IdentityMap()
        let temporary = (0...300).map { _ in temporaryID() }
        let made = (1...300).map { object(temporary[$0]) }
        for object in made { map[object.objectID] = object }
        // Objects 299 and 300 move into the places of 10 and 20.
        map[temporary[10]] = nil
        map[temporary[20]] = nil
        let order = map.values.map(ObjectIdentifier.init)
        // Pairs in the order of registration, and one for an ID not held.
        let rekeyed = (1...300).filter { $0 != 10 && $0 != 20 && $0 % 3 != 0 }
        var pairs = PermanentIDs()
        for key in rekeyed { pairs[temporary[key]] = id(Int64(key) + 1_000) }
        pairs[temporaryID()] = id(5_001)
        var moved: [(ManagedObject, ObjectID)] = []
        map.changeKeys(pairs) { object, new, displaced in
            #expect(displaced == nil)
            #expect(object.objectID == new)
            moved.append((object, new))
        }
        #expect(moved.count == pairs.count - 1)
        #expect(map.values.map(ObjectIdentifier.init) == order)
        #expect(map.count == 298)
        for key in 1...300 where key != 10 && key != 20 {
            let object = made[key - 1]
            #expect(map[object.objectID] === object)
            #expect(object.objectID == (key % 3 == 0 ? temporary[key] : id(Int64(key) + 1_000)))
            if key % 3 != 0 { #expect(map[temporary[key]] == nil) }
        }
    }

    /// A new key that the map holds already (a fault made from the row's permanent ID before
    /// the save) displaces that object, as ``IdentityMap/changeKey(_:to:)`` does.
    @Test func changingManyKeysAtOnceDisplacesAnObjectHoldingANewKey() {
        var map = IdentityMap()
        let temporary = (1...100).map { _ in temporaryID() }
        let made = temporary.map { object($0) } + (101...200).map { object(Int64($0)) }
        for object in made { map[object.objectID] = object }
        var pairs = PermanentIDs()
        for (offset, id) in temporary.enumerated() { pairs[id] = self.id(Int64(offset) + 151) }
        var displacedObjects: [ManagedObject] = []
        map.changeKeys(pairs) { object, new, displaced in
            #expect(object.objectID == new)
            if let displaced { displacedObjects.append(displaced) }
        }
        // 151 to 200 were held: their objects left, and 1 to 50 took their keys.
        #expect(displacedObjects.map(\.objectID) == (Int64(151)...200).map(id))
        expectConsistent(map, holding: Array(101...250))
        for key in 1...100 { #expect(map[id(Int64(key) + 150)] === made[key - 1]) }
    }

    @Test func entitiesSharingKeysEachFindTheirOwnObjects() throws {
        let entities = ["Author", "Book", "Tag"]
        let descriptions = try entities.map { try #require(fixture.context.model.entity(named: $0)) }
        var map = IdentityMap()
        var held: [ObjectID] = []
        // Interleaved as a fetch across a table of sub-entities would register them, with
        // runs of keys, gaps and keys far apart.
        let keys = Array(Int64(1)...2_000) + stride(from: Int64(5_000), to: 9_000, by: 7).map { $0 } + [Int64.max, 1 << 40, 1 << 40 + 8]
        for key in keys {
            for (entity, description) in zip(entities, descriptions) {
                let id = id(entity, key)
                let made = ManagedObject(entity: description, objectID: id, context: fixture.context, isFault: true)
                #expect(map.object(forKey: id) { made } === made)
                held.append(id)
            }
        }
        #expect(map.count == held.count)
        for id in held { #expect(map[id]?.objectID == id) }
        // Every other run of eight keys of one entity leaves: the rest still answer.
        let leaving = held.filter { $0.entityName == "Book" && ($0.primaryKey! / 8) % 2 == 0 }
        for id in leaving { #expect(map.removeValue(forKey: id)?.objectID == id) }
        let staying = held.filter { id in !leaving.contains(id) }
        #expect(map.count == staying.count)
        for id in staying { #expect(map[id]?.objectID == id) }
        for id in leaving { #expect(map[id] == nil) }
        #expect(map[id("Page", 1)] == nil)
    }
}
