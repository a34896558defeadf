import Foundation
import Testing
@testable import Strata

/// An export reads rows in SQL where it can; the records must be those its objects make, on
/// every kind of attribute and relationship and on the stores real apps wrote.
@Suite struct ExportFromRowsTests {
    /// The records of each entity of `names` (or every entity) read from rows, and read from
    /// objects, in one text each; fails when the rows could not be read.
    static func bothWays(
        _ context: ObjectContext, entities names: [String]? = nil, nested: Bool = false, writesNestedRecords: Bool = true
    ) throws -> (rows: String, objects: String) {
        try context.performAndWait {
            func text(readingRows: Bool) throws -> String {
                let exporter = try Exporter(context: context, entities: names, nested: nested)
                exporter.readsRows = readingRows
                exporter.writesNestedRecords = writesNestedRecords
                var lines: [String] = []
                for name in exporter.entityNames {
                    var request = FetchRequest(entityName: name)
                    request.includesSubentities = false
                    if let identity = try exporter.identity(of: name) { request.sortDescriptors = [ObjectSortDescriptor(identity.attribute.name)] }
                    let write = { (record: JSONValue) in lines.append(name + " " + JSONWriter.string(from: record, pretty: false)) }
                    if readingRows {
                        #expect(try exporter.forEachRecordFromRows(request, write), "\(name) read from rows")
                    } else {
                        try exporter.forEachRecord(of: name, write)
                    }
                }
                return lines.joined(separator: "\n")
            }
            return (try text(readingRows: true), try text(readingRows: false))
        }
    }

    @Test(arguments: [false, true])
    func recordsFromRowsAreTheObjectsRecords(nested: Bool) throws {
        let fixture = try ExportTests.seeded()
        let whole = try Self.bothWays(fixture.context, nested: nested)
        #expect(whole.rows == whole.objects)
        #expect(whole.rows.contains(nested ? #""tags":[{"name":"classic"},{"name":"fantasy"}]"# : #""tags_ids":["classic","fantasy"]"#), "\(whole.rows)")
        for entity in ["Author", "Book", "Tag", "Chapter", "Note"] {
            let one = try Self.bothWays(fixture.context, entities: [entity], nested: nested)
            #expect(one.rows == one.objects, "\(entity)")
            #expect(!one.rows.isEmpty)
        }
    }

    /// Without nested records (as CSV writes them), the records hold attributes and identity values only.
    @Test func recordsWithoutNestedRecordsAreTheObjectsRecords() throws {
        let fixture = try ExportTests.seeded()
        let flat = try Self.bothWays(fixture.context, entities: ["Book"], writesNestedRecords: false)
        #expect(flat.rows == flat.objects)
        #expect(flat.rows.contains(#""chapters_ids":[3,1,2]"#), "\(flat.rows)")
        #expect(!flat.rows.contains("notes") && !flat.rows.contains("first note"), "\(flat.rows)")
    }

    @Test func unsavedChangesAreExportedFromObjects() throws {
        let fixture = try ExportTests.seeded()
        try fixture.context.performAndWait {
            let context = fixture.context
            let tag = try context.insert("Tag")
            try tag.setValue("unsaved", forKey: "name")
            let exporter = try Exporter(context: context, entities: ["Tag"])
            #expect(try !exporter.forEachRecordFromRows(FetchRequest(entityName: "Tag"), { _ in }))
            #expect(try exporter.records(of: "Tag").map { JSONWriter.string(from: $0, pretty: false) }.contains { $0.hasPrefix(#"{"name":"unsaved","#) })
        }
    }

    /// Every entity of every store of the corpus, as Core Data wrote them.
    @Test(.enabled(if: Corpus.available, Corpus.skipReason), arguments: Corpus.stores.filter { !$0.models.isEmpty })
    func aRealStoreExportsTheSameFromRowsAndObjects(_ store: Corpus.Store) throws {
        let opened = try PersistentStore.open(at: store.url.path, model: try Corpus.model(of: store), configuration: .readOnly)
        defer { opened.close() }
        let context = ObjectContext(store: opened, name: "export")
        let whole = try Self.bothWays(context)
        #expect(whole.rows == whole.objects)
        for entity in opened.model.entities where !entity.isAbstract {
            let one = try Self.bothWays(context, entities: [entity.name])
            #expect(one.rows == one.objects, "\(entity.name)")
        }
    }
}
