import Foundation
import Testing
@testable import Strata
import StrataTestSupport

/// Persistent history of a store whose table lacks a to-one's key column (made by hand, by an
/// older model or by another tool; Strata opens it with a warning): the changes it records
/// name the relationships that changed, not a neighbour of the missing column.
@Suite struct PersistentHistoryMissingColumnTests {
    /// Part has two to-ones, `bin` (its column, first in the model's order, is the one missing)
    /// and `item`, each the inverse of a to-many `parts`.
    static let model: ObjectModel = {
        var bin = EntityDescription(name: "Bin")
        bin.attributes = [AttributeDescription(name: "name", type: .string)]
        var binParts = RelationshipDescription(name: "parts", destination: "Part", isToMany: true)
        binParts.inverseName = "bin"
        bin.relationships = [binParts]
        var item = EntityDescription(name: "Item")
        item.attributes = [AttributeDescription(name: "name", type: .string)]
        var itemParts = RelationshipDescription(name: "parts", destination: "Part", isToMany: true)
        itemParts.inverseName = "item"
        item.relationships = [itemParts]
        var part = EntityDescription(name: "Part")
        part.attributes = [AttributeDescription(name: "weight", type: .double)]
        var inBin = RelationshipDescription(name: "bin", destination: "Bin")
        inBin.inverseName = "parts"
        var ofItem = RelationshipDescription(name: "item", destination: "Item")
        ofItem.inverseName = "parts"
        part.relationships = [inBin, ofItem]
        return ObjectModel(entities: [bin, item, part])
    }()

    /// A tracked store of ``model`` whose Part table was made without `ZBIN`: bins 1 and 2,
    /// items 1 and 2, and part 1 of item 1.
    private func handMadeStore(_ folder: TemporaryFolder) throws -> String {
        let path = folder.path("Parts.sqlite")
        var configuration = Database.Configuration()
        configuration.tracksPersistentHistory = true
        try PersistentStore.create(at: path, model: Self.model, configuration: configuration).close()
        let database = try Database(path: path)
        defer { database.close() }
        try database.execute("DROP INDEX ZPART_ZBIN_INDEX")
        try database.execute("DROP INDEX ZPART_ZITEM_INDEX")
        try database.execute("DROP TABLE ZPART")
        try database.execute("CREATE TABLE ZPART (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZWEIGHT FLOAT, ZITEM INTEGER)")
        let number = { (name: String) in "(SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = '\(name)')" }
        try database.execute("INSERT INTO ZBIN VALUES (1, \(number("Bin")), 1, 'B1'), (2, \(number("Bin")), 1, 'B2')")
        try database.execute("INSERT INTO ZITEM VALUES (1, \(number("Item")), 1, 'I1'), (2, \(number("Item")), 1, 'I2')")
        try database.execute("INSERT INTO ZPART VALUES (1, \(number("Part")), 1, 1.5, 1)")
        try database.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = CASE Z_NAME WHEN 'Part' THEN 1 ELSE 2 END WHERE Z_NAME IN ('Bin', 'Item', 'Part')")
        return path
    }

    /// The changes of `transaction` as "<entity> p<key> <type> <properties>", sorted.
    private func summary(_ transaction: PersistentHistoryTransaction) -> [String] {
        transaction.changes.map { change in
            "\(change.entityName) p\(change.primaryKey) \(change.changeType) \((change.updatedProperties ?? []).sorted().joined(separator: ","))"
        }.sorted()
    }

    @Test func changesOfTheOtherToOneNameItsOwnRelationship() throws {
        let folder = try TemporaryFolder()
        let store = try PersistentStore.open(at: try handMadeStore(folder), model: Self.model)
        defer { store.close() }
        #expect(store.missingColumns.map(\.description) == ["ZPART.ZBIN (to-one key Part.bin)"])
        #expect(store.keepsPersistentHistory)
        let context = ObjectContext(store: store)
        let partID = try context.performAndWait {
            let part = try #require(try context.fetch(FetchRequest(entityName: "Part")).first)
            let items = try context.fetch(FetchRequest(entityName: "Item", sortDescriptors: [ObjectSortDescriptor("name")]))
            try part.setValue(items[1], forKey: "item")
            try context.save()
            return part.objectID
        }
        var transactions = try store.fetchHistory(after: nil)
        // Item 1 lost the part and item 2 gained it; no bin is touched.
        #expect(transactions.map(summary) == [["Item p1 update parts", "Item p2 update parts", "Part p1 update item"]])
        try context.performAndWait {
            try context.delete(context.object(with: partID))
            try context.save()
        }
        transactions = try store.fetchHistory(after: transactions.last?.token)
        // The deleted part's key names item 2, not bin 2.
        #expect(transactions.map(summary) == [["Item p2 update parts", "Part p1 delete "]])
    }
}
