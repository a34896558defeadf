import Foundation
import Testing
@testable import Strata

@Suite struct ObjectLedgerTests {
    private func id(_ key: Int64, _ entity: String = "Book") -> ObjectID {
        ObjectID(entityName: entity, storeIdentifier: "S", key: .permanent(key))
    }

    @Test func keysNearAndFarFromTheOthersKeepTheirValues() {
        var table = PrimaryKeyTable<Int>()
        // Dense keys, a far key kept aside, then keys that grow the array over the far one.
        for key in Int64(1)...3000 { table[key] = Int(key) }
        table[1_000_000_000] = -1
        table[20_000] = 20_000
        for key in Int64(3001)...24_000 { table[key] = Int(key) }
        #expect(table.count == 24_001)
        #expect(table[1] == 1 && table[3000] == 3000 && table[20_000] == 20_000 && table[24_000] == 24_000)
        #expect(table[1_000_000_000] == -1)
        #expect(table[0] == nil && table[24_001] == nil && table[-5] == nil && table[999_999_999] == nil)
        table[20_000] = nil
        table[1_000_000_000] = nil
        table[1_000_000_000] = nil
        #expect(table[20_000] == nil && table[1_000_000_000] == nil)
        #expect(table.count == 23_999)
        for key in Int64(1)...24_000 { table[key] = nil }
        #expect(table.isEmpty)
    }

    @Test func aLedgerTellsEntitiesApartAndMovesValuesToPermanentIDs() {
        var ledger = ObjectLedger<ImportState>()
        let temporary = ObjectID(entityName: "Page", storeIdentifier: "S", key: .temporary(UUID()))
        ledger[id(7)] = .updated
        ledger[temporary] = .created
        #expect(ledger[id(7)] == .updated)
        #expect(ledger[id(7, "Page")] == nil)
        #expect(ledger.entityNames == ["Book", "Page"])
        ledger.rekey([temporary: id(7, "Page")])
        #expect(ledger[temporary] == nil)
        #expect(ledger[id(7, "Page")] == .created)
        ledger[id(7)] = nil
        #expect(ledger.entityNames == ["Page"])
    }
}
