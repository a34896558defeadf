import Foundation
import Testing
@testable import Strata
import StrataTestSupport

@Suite struct JSONRecordReaderTests {
    /// Chunk sizes to read every input with: tiny ones put a refill of the window inside every
    /// token (a number, an escape, the byte order mark), the real one reads most inputs whole.
    private static let chunkSizes = [1, 2, 3, 7, JSONRecordReader.chunkSize]

    /// The records of `text`, checking that every chunk size reads the same ones.
    private func records(
        _ text: String, format: JSONRecordReader.Format = .automatic, entities: Set<String> = [],
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) throws -> [JSONRecord] {
        try records(Data(text.utf8), format: format, entities: entities, sourceLocation: sourceLocation)
    }

    private func records(
        _ data: Data, format: JSONRecordReader.Format = .automatic, entities: Set<String> = [],
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) throws -> [JSONRecord] {
        var results: [Result<[JSONRecord], JSONSyntaxError>] = []
        for chunkSize in Self.chunkSizes {
            var reader = JSONRecordReader(
                input: .init(data: data, chunkSize: chunkSize), format: format, isEntityKey: entities.contains)
            results.append(Result { () throws(JSONSyntaxError) -> [JSONRecord] in try readAll(&reader) })
        }
        let summaries = results.map(summary)
        #expect(Set(summaries).count == 1, "chunk sizes disagree: \(summaries)", sourceLocation: sourceLocation)
        return try results.last!.get()
    }

    /// The error reading `text` stops at, after the records before it (all chunk sizes agree).
    private func failure(
        _ text: String, format: JSONRecordReader.Format = .automatic, entities: Set<String> = [],
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) -> (records: Int, error: JSONSyntaxError?) {
        failure(Data(text.utf8), format: format, entities: entities, sourceLocation: sourceLocation)
    }

    private func failure(
        _ data: Data, format: JSONRecordReader.Format = .automatic, entities: Set<String> = [],
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) -> (records: Int, error: JSONSyntaxError?) {
        var outcomes: [(records: Int, error: JSONSyntaxError?)] = []
        for chunkSize in Self.chunkSizes {
            var reader = JSONRecordReader(
                input: .init(data: data, chunkSize: chunkSize), format: format, isEntityKey: entities.contains)
            var count = 0
            do {
                while try reader.next() != nil { count += 1 }
                outcomes.append((count, nil))
            } catch {
                outcomes.append((count, error))
                // The reader is finished after an error.
                let next = try? reader.next()
                #expect(next == nil, sourceLocation: sourceLocation)
            }
        }
        let summaries = Set(outcomes.map { "\($0.records) \(String(describing: $0.error))" })
        #expect(summaries.count == 1, "chunk sizes disagree: \(summaries)", sourceLocation: sourceLocation)
        return outcomes.last!
    }

    private func readAll(_ reader: inout JSONRecordReader) throws(JSONSyntaxError) -> [JSONRecord] {
        var records: [JSONRecord] = []
        while let record = try reader.next() { records.append(record) }
        return records
    }

    /// Records or error as text, every location included, to compare readings.
    private func summary(_ result: Result<[JSONRecord], JSONSyntaxError>) -> String {
        switch result {
        case .success(let records):
            records.map { "\($0.entity ?? "-") \(locations($0.value)) \(JSONWriter.string(from: $0.value, pretty: false))" }
                .joined(separator: "\n")
        case .failure(let error):
            error.description
        }
    }

    /// The locations of `value` and of everything in it, keys included, in document order.
    private func locations(_ value: JSONValue) -> [Strata.SourceLocation?] {
        switch value.kind {
        case .array(let elements): [value.location] + elements.flatMap(locations)
        case .object(let members): [value.location] + members.flatMap { [$0.keyLocation] + locations($0.value) }
        default: [value.location]
        }
    }

    private func at(_ line: Int, _ column: Int) -> Strata.SourceLocation { Strata.SourceLocation(line: line, column: column) }

    // MARK: - Layouts

    @Test func readsEachElementOfATopLevelArray() throws {
        let text = "[\n  {\"title\": \"LOTR\"},\n  {\"title\": \"Dune\", \"year\": 1965}, \"é\", 12.5e-1\n]\n"
        let read = try records(text)
        #expect(read.map(\.entity) == [nil, nil, nil, nil])
        #expect(read.map(\.value.location) == [at(2, 3), at(3, 3), at(3, 36), at(3, 41)])
        #expect(read[1].value["year"]?.intValue == 1965)
        #expect(read[1].value["year"]?.location == at(3, 29))

        // The records are the array's elements as JSONReader reads them, locations and all.
        let whole = try #require(try JSONReader.parse(Data(text.utf8)).arrayValue)
        #expect(read.map { locations($0.value) } == whole.map(locations))
        #expect(read.map { JSONWriter.string(from: $0.value) } == whole.map { JSONWriter.string(from: $0) })
    }

    @Test func readsAnEmptyArrayAsNoRecords() throws {
        #expect(try records(" [ ] ").isEmpty)
        #expect(try records("{\"books\": []}", entities: ["books"]).isEmpty)
    }

    @Test func readsASingleObjectAsOneRecord() throws {
        let read = try records("\u{FEFF}\n {\"title\": \"LOTR\", \"books\": [1, 2]}\n", entities: ["books"])
        #expect(read.count == 1)
        #expect(read.first?.entity == nil)
        #expect(read.first?.value.location == at(2, 2))
        #expect(read.first?.value.objectMembers?.map(\.key) == ["title", "books"])
        #expect(read.first?.value["books"]?.location == at(2, 29))
    }

    @Test func anObjectIsAWrapperOnlyWhenItsFirstKeyNamesAnEntityAndHoldsAnArray() throws {
        // The caller names no entities: one record.
        #expect(try records(#"{"books": [{"title": "LOTR"}]}"#).map(\.entity) == [nil])
        // An entity's key holding an object rather than an array: one record.
        #expect(try records(#"{"books": {"title": "LOTR"}}"#, entities: ["books"]).map(\.entity) == [nil])
        // An empty object: one record.
        let empty = try records(" {} ", entities: ["books"])
        #expect(empty.count == 1)
        #expect(empty.first?.value.objectMembers?.isEmpty == true)
        #expect(empty.first?.value.location == at(1, 2))
    }

    @Test func readsAWrapperOfTwoEntitiesElementByElement() throws {
        let text = """
            {
              "books": [
                {"title": "LOTR"},
                {"title": "Dune"}
              ],
              "authors": [{"name": "Tolkien"}],
              "books": []
            }
            """
        let read = try records(text, entities: ["books", "authors"])
        #expect(read.map(\.entity) == ["books", "books", "authors"])
        #expect(read.map(\.value.location) == [at(3, 5), at(4, 5), at(6, 15)])
        #expect(read.map { $0.value["title"]?.stringValue ?? $0.value["name"]?.stringValue } == ["LOTR", "Dune", "Tolkien"])
        #expect(read[2].value.objectMembers?.first?.keyLocation == at(6, 16))
    }

    @Test func readsNDJSONSkippingBlankLinesAndCRLF() throws {
        let text = "{\"n\": 1}\r\n\r\n{\"n\": 2}\r\n   \t\r\n{\"n\":\r\n 3}\r\n\"four\"\r\n[5]\r\n"
        let read = try records(text)
        #expect(read.count == 5)
        #expect(read.map(\.entity) == [nil, nil, nil, nil, nil])
        #expect(read.map(\.value.location) == [at(1, 1), at(3, 1), at(5, 1), at(7, 1), at(8, 1)])
        #expect(read[0...2].map { $0.value["n"]?.intValue } == [1, 2, 3])
        #expect(read[2].value["n"]?.location == at(6, 2))
        #expect(read[3].value.stringValue == "four")
        #expect(read[4].value.arrayValue?.count == 1)
        // The same text told to be NDJSON reads the same.
        #expect(try records(text, format: .ndjson).map(\.value.location) == read.map(\.value.location))
    }

    @Test func emptyInputHasNoRecordsUnlessItMustBeJSON() throws {
        #expect(try records("").isEmpty)
        #expect(try records(" \n\r\n ", format: .ndjson).isEmpty)
        let error = failure(" \n ", format: .json).error
        #expect(error?.message.contains("unexpected end of input, expected a value") == true)
        #expect(error?.location == at(2, 2))
    }

    // MARK: - Forced formats

    @Test func ndjsonFormatReadsEachLineAsOneRecord() throws {
        // Arrays on lines of their own are records, and no object is a wrapper.
        let read = try records("[1, 2]\n[3]\n{\"books\": [{}]}", format: .ndjson, entities: ["books"])
        #expect(read.map(\.value.kindDescription) == ["an array", "an array", "an object"])
        #expect(read.map(\.entity) == [nil, nil, nil])
        // Told nothing, the reader takes the first array for the whole document.
        let automatic = failure("[1, 2]\n[3]")
        #expect(automatic.records == 2)
        #expect(automatic.error?.message.contains("unexpected '[' after the end of the JSON value") == true)
        #expect(automatic.error?.location == at(2, 1))
    }

    @Test func jsonFormatReadsOneDocument() throws {
        let outcome = failure("{\"n\": 1}\n{\"n\": 2}\n", format: .json)
        #expect(outcome.records == 1)
        #expect(outcome.error?.message.contains("after the end of the JSON value") == true)
        #expect(outcome.error?.location == at(2, 1))
        #expect(try records("{\"n\": 1}\n", format: .json).count == 1)
        #expect(try records("[{\"n\": 1}]", format: .json).count == 1)
    }

    // MARK: - Errors

    @Test func anErrorInAnArrayElementIsLocatedInTheWholeInput() {
        let outcome = failure("[\n  {\"a\": 1},\n  {\"a\": 2, \"b\": tru}\n]")
        #expect(outcome.records == 1)
        #expect(outcome.error?.message.contains("expected 'true'") == true)
        #expect(outcome.error?.location == at(3, 17))

        let missingComma = failure("[{\"a\": 1}\n {\"a\": 2}]")
        #expect(missingComma.records == 1)
        #expect(missingComma.error?.message.contains("expected ',' or ']'") == true)
        #expect(missingComma.error?.location == at(2, 2))
    }

    @Test func anErrorOnAnNDJSONLineNamesThatLine() {
        let outcome = failure("{\"n\": 1}\n\n{\"n\": 2}\n{\"n\": 3,, \"m\": 4}\n{\"n\": 5}\n")
        #expect(outcome.records == 2)
        #expect(outcome.error?.message.contains("expected a string key") == true)
        #expect(outcome.error?.location == at(4, 9))

        let sameLine = failure("{\"n\": 1}\n{\"n\": 2} {\"n\": 3}", format: .ndjson)
        #expect(sameLine.records == 2)
        #expect(sameLine.error?.message.contains("on a line of its own") == true)
        #expect(sameLine.error?.location == at(2, 10))
    }

    @Test func aWrapperMustListEveryEntityInAnArray() {
        let entities: Set = ["books", "authors"]
        let strayKey = failure("{\"books\": [{}, {}],\n \"title\": \"LOTR\"}", entities: entities)
        #expect(strayKey.records == 2)
        #expect(strayKey.error?.message.contains("'title' names no entity") == true)
        #expect(strayKey.error?.message.contains("'books'") == true)
        #expect(strayKey.error?.location == at(2, 2))

        let notAnArray = failure("{\"books\": [],\n \"authors\": {\"name\": \"Tolkien\"}}", entities: entities)
        #expect(notAnArray.records == 0)
        #expect(notAnArray.error?.message.contains("expected '[' opening the array of 'authors' records") == true)
        #expect(notAnArray.error?.location == at(2, 13))

        let inARecord = failure("{\"books\": [{}],\n \"authors\": [{},\n  {\"name\" \"Tolkien\"}]}", entities: entities)
        #expect(inARecord.records == 2)
        #expect(inARecord.error?.message.contains("expected ':'") == true)
        #expect(inARecord.error?.location == at(3, 11))
    }

    @Test func truncatedInputIsAnErrorAtItsEnd() {
        let betweenRecords = failure("[{\"a\": 1},\n {\"a\": 2}")
        #expect(betweenRecords.records == 2)
        #expect(betweenRecords.error?.message == "unexpected end of input, expected ',' or ']'")
        #expect(betweenRecords.error?.location == at(2, 10))

        let inARecord = failure("[{\"a\": 1},\n {\"a\": [1, 2")
        #expect(inARecord.records == 1)
        #expect(inARecord.error?.message == "unexpected end of input, expected ',' or ']'")
        #expect(inARecord.error?.location == at(2, 13))

        let inAWrapper = failure("{\"books\": [{\"a\": 1}]\n", entities: ["books"])
        #expect(inAWrapper.records == 1)
        #expect(inAWrapper.error?.message == "unexpected end of input, expected ',' or '}'")
        #expect(inAWrapper.error?.location == at(2, 1))

        let inAString = failure("{\"n\": 1}\n{\"n\": \"abc")
        #expect(inAString.records == 1)
        #expect(inAString.error?.message == "unterminated string")
        #expect(inAString.error?.location == at(2, 11))
    }

    @Test func invalidUTF8InAStringIsAnErrorWhereJSONReaderPutsIt() throws {
        let line = Array("{\"title\": \"a".utf8) + [0xFF, 0xFE] + Array("b\"}".utf8)
        let alone: JSONSyntaxError
        do {
            _ = try JSONReader.parse(Data(line))
            Issue.record("JSONReader read invalid UTF-8")
            return
        } catch {
            alone = error
        }
        let outcome = failure(Data(Array("{\"n\": 1}\n".utf8) + line + Array("\n".utf8)))
        #expect(outcome.records == 1)
        #expect(outcome.error?.message == alone.message)
        #expect(outcome.error?.location == at(2, alone.location.column))
        #expect(alone.message.contains("not valid UTF-8"))
    }

    @Test func deepNestingIsAnErrorNotACrash() throws {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        for format in [JSONRecordReader.Format.automatic, .ndjson] {
            let outcome = failure(deep, format: format)
            #expect(outcome.records == 0)
            #expect(outcome.error?.message.contains("nest deeper than \(JSONReader.maximumDepth)") == true)
            #expect(outcome.error?.location == at(1, JSONReader.maximumDepth + 1))
        }
        // The top-level array counts, as in JSONReader: what one reads, the other does.
        let deepest = String(repeating: "[", count: JSONReader.maximumDepth) + String(repeating: "]", count: JSONReader.maximumDepth)
        #expect(try records(deepest).count == 1)
        #expect(failure("[" + deepest + "]").error?.message.contains("nest deeper than") == true)
    }

    // MARK: - Files and memory

    @Test func readsFilesAndFileHandles() throws {
        let temporary = try TemporaryFolder("JSONRecordReaderTests")
        let folder = temporary.url
        let file = folder.appendingPathComponent("records.ndjson")
        try Data("{\"n\": 1}\n{\"n\": 2}\n".utf8).write(to: file)

        var fromPath = try JSONRecordReader(path: file.path)
        #expect(try readAll(&fromPath).map { $0.value["n"]?.intValue } == [1, 2])
        let handle = try FileHandle(forReadingFrom: file)
        defer { try? handle.close() }
        var fromHandle = JSONRecordReader(fileHandle: handle, format: .ndjson)
        #expect(try readAll(&fromHandle).map(\.value.location) == [at(1, 1), at(2, 1)])

        #expect(throws: (any Error).self) { try JSONRecordReader(path: folder.appendingPathComponent("missing.json").path) }
    }

    @Test func aFailedReadIsAnErrorNotTheEndOfTheInput() throws {
        // A folder opens for reading but reading it fails.
        let temporary = try TemporaryFolder("JSONRecordReaderTests")
        let folder = temporary.url
        guard let handle = FileHandle(forReadingAtPath: folder.path) else { return }
        defer { try? handle.close() }
        var reader = JSONRecordReader(fileHandle: handle)
        let error = #expect(throws: JSONSyntaxError.self) { try reader.next() }
        #expect(error?.message.hasPrefix("cannot read the input: ") == true, "\(String(describing: error))")
        let next = try reader.next()
        #expect(next == nil)
    }

    @Test func memoryStaysBoundedByOneChunkWhateverTheFileSize() throws {
        let temporary = try TemporaryFolder("JSONRecordReaderTests")
        let folder = temporary.url
        let file = folder.appendingPathComponent("big.json")
        let recordCount = 120_000
        // A top-level array of about 10 MB, written 100 KB at a time.
        try Data("[\n".utf8).write(to: file)
        let output = try FileHandle(forWritingTo: file)
        try output.seekToEnd()
        var chunk = ""
        for index in 0..<recordCount {
            chunk += #"{"id": \#(index), "title": "Book number \#(index)", "price": 12.50, "tags": ["x", "y"]}"#
            chunk += index == recordCount - 1 ? "\n]\n" : ",\n"
            if chunk.utf8.count > 100_000 || index == recordCount - 1 {
                try output.write(contentsOf: Data(chunk.utf8))
                chunk = ""
            }
        }
        try output.close()
        let fileSize = try #require(try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int)
        #expect(fileSize > 9_500_000)

        var reader = try JSONRecordReader(path: file.path)
        var count = 0
        var last: JSONRecord?
        while let record = try reader.next() {
            count += 1
            last = record
        }
        #expect(count == recordCount)
        #expect(last?.value["id"]?.intValue == recordCount - 1)
        #expect(last?.value.location == at(recordCount + 1, 1))
        // One chunk, plus the few bytes of a token cut in two by a chunk's end.
        #expect(reader.peakBufferedByteCount <= JSONRecordReader.chunkSize + 64)
        #expect(reader.peakBufferedByteCount < fileSize / 100)
    }
}
