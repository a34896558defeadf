import Foundation
import Testing
@testable import Strata

/// The identity map's table puts the IDs of neighbouring rows of one entity in neighbouring
/// slots: IDs of several entities with the same keys, and runs of keys with gaps, must each
/// still find their own object through growth and removals.
@Suite struct IdentityMapNeighbourKeyTests {
    private let fixture: LibraryFixture
    private let store = UUID().uuidString

    init() throws {
        fixture = try LibraryFixture()
    }

    private func id(_ entity: String, _ key: Int64) -> ObjectID {
        ObjectID(entityName: entity, storeIdentifier: store, key: .permanent(key))
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
