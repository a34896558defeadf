import Foundation
import StrataTestSupport
import Testing
@testable import Strata

/// ``StreamingImport``: files of records imported in batches within one transaction, as
/// `strata import` does, for a Swift program.
@Suite struct StreamingImportTests {
    let fixture: ImportFixture

    init() throws {
        fixture = try ImportFixture(modelJSON: ImportRowsTests.people)
    }

    /// Writes `text` to `name` in the fixture's folder and returns the file as a source.
    private func file(_ name: String, _ text: String) throws -> StreamingImport.Source {
        let url = fixture.folder.url.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return .file(url)
    }

    private func names() throws -> [String?] {
        try fixture.values("Person", "name", sortedBy: "id")
    }

    private static func people(_ ids: ClosedRange<Int>) -> String {
        ids.map { #"{"id": \#($0), "name": "P\#($0)"}"# }.joined(separator: "\n") + "\n"
    }

    @Test func importsFilesInBatchesAndTellsHowFarItHasCome() throws {
        var heard: [StreamingImport.Progress] = []
        var people = StreamingImport(entity: "Person", batchSize: 2)
        people.progress = { heard.append($0) }
        let first = try file("first.ndjson", Self.people(1...3))
        let second = try file("second.json", "[" + Self.people(4...5).split(separator: "\n").joined(separator: ",") + "]")
        let report = try people.run([first, second], into: fixture.store)
        #expect(report.count("Person", .created) == 5)
        #expect(try names() == ["P1", "P2", "P3", "P4", "P5"])
        #expect(heard.map(\.recordsImported) == [2, 3, 5])
        #expect(heard.map(\.source) == [first.name, first.name, second.name])
        #expect(heard.last?.sourceSize == (try FileManager.default.attributesOfItem(atPath: fixture.folder.path("second.json"))[.size] as? Int))
    }

    @Test func aBadRecordInALaterFileRollsTheWholeImportBack() throws {
        _ = try StreamingImport(entity: "Person").run([try file("seed.ndjson", Self.people(1...1))], into: fixture.store)
        let good = try file("good.ndjson", Self.people(2...4))
        let bad = try file("bad.ndjson", #"{"id": 5, "name": "P5"}"# + "\n{\"id\": 6,\n")
        var people = StreamingImport(entity: "Person", batchSize: 1)
        people.pruning = .all
        #expect {
            try people.run([good, bad], into: fixture.store)
        } throws: { error in
            guard case .badInput(let source, let cause) = error as? StreamingImportError else { return false }
            return source == bad.name && cause is JSONSyntaxError
        }
        #expect(try names() == ["P1"])
    }

    @Test func unknownKeysRefuseTheImportUnlessAllowed() throws {
        let input = try file("typo.ndjson", #"{"id": 1, "name": "P1", "nmae": "x"}"# + "\n")
        var people = StreamingImport(entity: "Person")
        var refusal: ImportReport?
        do {
            _ = try people.run([input], into: fixture.store)
        } catch StreamingImportError.refused(let report, unresolvedLinks: false, unknownKeys: true) {
            refusal = report
        }
        #expect(refusal?.ignoredKeys == ["Person.nmae"])
        #expect(try names() == [])
        people.allowsUnknownKeys = true
        #expect(try people.run([input], into: fixture.store).ignoredKeys == ["Person.nmae"])
        #expect(try names() == ["P1"])
    }

    @Test func aDryRunReportsAndKeepsNothing() throws {
        var people = StreamingImport(entity: "Person")
        people.isDryRun = true
        let report = try people.run([try file("people.ndjson", Self.people(1...3))], into: fixture.store)
        #expect(report.count("Person", .created) == 3)
        #expect(try names() == [])
    }

    @Test func anErrorThrownByProgressStopsAndRollsBack() throws {
        struct Stop: Error {}
        var people = StreamingImport(entity: "Person", batchSize: 1)
        people.progress = { if $0.recordsImported == 2 { throw Stop() } }
        #expect(throws: Stop.self) { try people.run([try file("people.ndjson", Self.people(1...3))], into: fixture.store) }
        #expect(try names() == [])
    }

    @Test func anEmptyJSONFileIsAnErrorAndAnEmptyNDJSONFileNoRecords() throws {
        let people = StreamingImport(entity: "Person")
        let empty = try file("people.json", "")
        #expect {
            try people.run([empty], into: fixture.store)
        } throws: { error in
            (error as? StreamingImportError)?.description
                == "\(empty.name): the file is empty; expected JSON records ([] for none; an empty .ndjson or .jsonl file imports nothing)"
        }
        #expect(try people.run([try file("people.ndjson", "")], into: fixture.store) == ImportReport())
    }

    @Test func readsCSVFromAHandleAsItsFormatSays() throws {
        let url = fixture.folder.url.appendingPathComponent("people.txt")
        try Data("id,name\r\n1,P1\r\n2,P2\r\n".utf8).write(to: url)
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        let report = try StreamingImport(entity: "Person", format: .csv).run([.fileHandle(handle, name: "pipe")], into: fixture.store)
        #expect(report.count("Person", .created) == 2)
        #expect(try names() == ["P1", "P2"])
    }

    @Test func anEntityTheModelLacksIsTheStoresError() throws {
        #expect {
            try StreamingImport(entity: "Nope").run([try file("people.ndjson", Self.people(1...1))], into: fixture.store)
        } throws: { error in
            guard case .unknownEntity(_, let name, _) = error as? StoreError else { return false }
            return name == "Nope"
        }
    }
}
