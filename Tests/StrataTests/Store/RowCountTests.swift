import Foundation
import Testing
@testable import Strata
import StrataTestSupport

/// Row counts per entity: a table a hierarchy shares is counted per `Z_ENT`, a table one entity
/// holds alone is counted whole.
@Suite struct RowCountTests {
    let folder: TemporaryFolder
    let path: String

    /// `Item` with its sub-entity `SubItem` (one table, `ZITEM`) and `Note` alone in `ZNOTE`.
    static let model: ObjectModel = {
        var item = EntityDescription(name: "Item")
        item.attributes = [AttributeDescription(name: "name", type: .string)]
        var subItem = EntityDescription(name: "SubItem")
        subItem.superentityName = "Item"
        subItem.attributes = [AttributeDescription(name: "size", type: .integer64)]
        var note = EntityDescription(name: "Note")
        note.attributes = [AttributeDescription(name: "text", type: .string)]
        return ObjectModel(entities: [item, subItem, note])
    }()

    /// A store with 2 `Item`, 3 `SubItem` and 4 `Note` rows.
    init() throws {
        folder = try TemporaryFolder()
        path = folder.path("Counts.sqlite")
        let store = try PersistentStore.create(at: path, model: Self.model)
        defer { store.close() }
        try store.database.inTransaction {
            for index in 0..<2 { try store.insert("Item", values: ["name": .text("item \(index)")]) }
            for index in 0..<3 { try store.insert("SubItem", values: ["name": .text("sub \(index)"), "size": .integer(Int64(index))]) }
            for index in 0..<4 { try store.insert("Note", values: ["text": .text("note \(index)")]) }
        }
    }

    @Test func aSharedTableIsCountedPerEntityAndASingleEntityTableWhole() throws {
        let store = try PersistentStore.open(at: path, configuration: .readOnly)
        #expect(try store.rowCountsExcludingSubentities() == ["Item": 2, "SubItem": 3, "Note": 4])
        for (name, count) in ["Item": 2, "SubItem": 3, "Note": 4] {
            #expect(try store.rowCountExcludingSubentities(of: name) == count, "\(name)")
            #expect(try EntityReport(store: store, entityName: name, rowLimit: 0).rowCount == count, "\(name)")
        }
        #expect(try StoreReport(store: store).entities.map(\.rowCount) == [2, 3, 4])
    }

    @Test func aTableOneEntityHoldsAloneCountsEveryRowAsCoreDataDoes() throws {
        do {
            let database = try Database(path: path)
            defer { database.close() }
            try database.execute("INSERT INTO ZNOTE (Z_PK, Z_ENT, Z_OPT, ZTEXT) VALUES (100, NULL, 1, 'no entity number')")
        }
        let store = try PersistentStore.open(at: path, configuration: .readOnly)
        #expect(try store.rowCountExcludingSubentities(of: "Note") == 5)
        #expect(try store.rowCountsExcludingSubentities()["Note"] == 5)
    }

    @Test func aSubEntityTheModelLacksIsNotCountedAsItsParent() throws {
        // The store records SubItem in ZITEM; a model without it must not count SubItem's rows
        // as Item's.
        let partial = ObjectModel(entities: Self.model.entities.filter { $0.name != "SubItem" })
        let store = try PersistentStore.open(at: path, model: partial, requiresMatchingModel: false, configuration: .readOnly)
        #expect(try store.rowCountsExcludingSubentities() == ["Item": 2, "Note": 4])
        #expect(try store.rowCountExcludingSubentities(of: "Item") == 2)
    }

    @Test func countingAnUnknownEntityNamesTheKnownOnes() throws {
        let store = try PersistentStore.open(at: path, configuration: .readOnly)
        #expect { try store.rowCountExcludingSubentities(of: "Nothing") } throws: { String(describing: $0).contains("Nothing") }
    }
}
