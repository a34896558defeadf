import Foundation
import Testing
@testable import Strata

/// Rows written by plan: every stored property in model order, bound by position, the
/// destination's entity written beside a to-one that can point at a sub-entity.
extension RowStoreTests {
    @Test func aPlanWritesEveryStoredPropertyAndTheDestinationsEntity() throws {
        let plan = try store.rowWritePlan(for: "Page")
        #expect(plan.attributes == ["number", "text"])
        #expect(plan.toOnes == ["book"])
        #expect(try store.rowWritePlan(for: "Page") === plan, "plans are made once")
        let (ebook, linked, unlinked) = try store.database.inTransaction {
            let ebook = try store.insert("EBook", values: ["title": .text("Digital"), "isbn": .text("2")])
            let keys = try store.allocatePrimaryKeys(for: "Page", count: 2)
            try store.insertRow(plan, key: keys.lowerBound, values: [.integer(1), .text("one")], toOne: [RowReference(entityName: "EBook", primaryKey: ebook)])
            try store.insertRow(plan, key: keys.upperBound, values: [.integer(2), .null], toOne: [nil])
            return (ebook, keys.lowerBound, keys.upperBound)
        }
        let entityNumber = try #require(store.layout.entity(named: "EBook")?.number)
        let columns = try #require(store.layout.entity(named: "Page")?.toOneColumns["book"])
        let entityColumn = try #require(columns.entity)
        let rows = try store.database.rows("SELECT Z_PK, Z_OPT, ZNUMBER, ZTEXT, \(columns.key), \(entityColumn) FROM ZPAGE ORDER BY Z_PK")
        #expect(rows == [
            [.integer(linked), .integer(1), .integer(1), .text("one"), .integer(ebook), .integer(Int64(entityNumber))],
            [.integer(unlinked), .integer(1), .integer(2), .null, .null, .null],
        ])
        #expect(try store.row("Page", primaryKey: linked)?.references["book"] == RowReference(entityName: "EBook", primaryKey: ebook))
    }

    @Test func anUpdatePlanWritesItsPropertiesAndChecksTheVersion() throws {
        let page = try store.database.inTransaction { try store.insert("Page", values: ["number": .integer(1), "text": .text("one")]) }
        let plan = try store.rowWritePlan(for: "Page", attributes: ["text"], toOnes: [])
        let version = try store.database.inTransaction {
            try store.updateRow(plan, primaryKey: page, expectedVersion: 1, values: [.text("uno")], toOne: [])
        }
        #expect(version == 2)
        let row = try #require(try store.row("Page", primaryKey: page))
        #expect(row.values["text"] == .text("uno") && row.values["number"] == .integer(1) && row.version == 2)
        #expect {
            try store.database.inTransaction { try store.updateRow(plan, primaryKey: page, expectedVersion: 1, values: [.text("x")], toOne: []) }
        } throws: { error in
            String(describing: error).hasSuffix("Page p\(page) was changed by someone else (version 2, expected 1)")
        }
    }

    @Test func aPlanOfAPropertyWithoutAColumnNamesTheColumnsThereAre() throws {
        #expect {
            try store.rowWritePlan(for: "Page", attributes: ["words"], toOnes: [])
        } throws: { error in
            let text = String(describing: error)
            return text.contains("words") && text.contains("number") && text.contains("text")
        }
        #expect(throws: StoreError.self) { try store.rowWritePlan(for: "Leaf") }
    }
}
