import Foundation
import StrataTestSupport
import Testing
@testable import Strata

/// Errors about what a user wrote carry a ``SourceLocation`` as a value and print it one way,
/// `line L, column C`, whatever reader found it.
@Suite struct ErrorLocationTests {
    @Test func aModelFileErrorCarriesItsLocationAndPrintsItAfterThePath() {
        let thrown = #expect(throws: ModelError.self) { try JSONModelReader.read(Data("{\n  \"entities\": [}".utf8), path: "shop.json") }
        guard case .malformed(let path, let location?, _)? = thrown else {
            Issue.record("\(String(describing: thrown)) is not a malformed model with a location")
            return
        }
        #expect(path == "shop.json" && location == SourceLocation(line: 2, column: 16))
        #expect(thrown?.description.hasPrefix("shop.json: line 2, column 16: ") == true)
    }

    @Test func aMappingModelThatIsNotXMLCarriesItsLocation() throws {
        let folder = try TemporaryFolder()
        let file = folder.url.appendingPathComponent("Broken.xcmappingmodel")
        try FileManager.default.createDirectory(at: file, withIntermediateDirectories: true)
        try Data("<database>\n  <object type=\"X\">\n</database>".utf8).write(to: file.appendingPathComponent("xcmapping.xml"))
        let thrown = #expect(throws: MappingModelError.self) { try MappingModel.load(contentsOf: file) }
        let location = try #require(thrown?.location)
        #expect(location.line == 3 && thrown?.element == nil)
        #expect(thrown?.description.hasPrefix("\(file.path)/xcmapping.xml: \(location): ") == true)
    }

    @Test func aCSVRowOfTheWrongLengthNamesItsLine() throws {
        let model = try JSONModelReader.read(
            Data(#"{"entities": [{"name": "Book", "attributes": [{"name": "isbn", "type": "string"}, {"name": "title", "type": "string"}]}]}"#.utf8),
            path: "m.json")
        let header = [CSVReader.Field(text: "isbn", isQuoted: false, location: SourceLocation(line: 1, column: 1)),
                      CSVReader.Field(text: "title", isQuoted: false, location: SourceLocation(line: 1, column: 6))]
        let records = try CSVRecords(header: header, entity: "Book", model: model)
        let row = [CSVReader.Field(text: "9", isQuoted: false, location: SourceLocation(line: 2, column: 1))]
        #expect(throws: ImportError("1 field, but the header has 2", at: SourceLocation(line: 2, column: 1))) { try records.record(row) }
    }

    @Test func anImportErrorPrintsTheRecordThenItsLocation() {
        let error = ImportError("expected an object for Book, found a number", record: "record 2", at: SourceLocation(line: 1, column: 17))
        #expect(error.description == "record 2 (line 1, column 17): expected an object for Book, found a number")
        #expect(ImportError("@id a names no object", record: "record 1").description == "record 1: @id a names no object")
        #expect(ImportError("no entity 'Bok'").description == "no entity 'Bok'")
    }

    @Test func aPredicateSyntaxErrorLocatesItsTokenOnItsLine() throws {
        let thrown = #expect(throws: PredicateSyntaxError.self) { try ObjectPredicate(format: "name == 'a' AND\n  rating > ") }
        let error = try #require(thrown)
        #expect(error.location.line == 2)
        #expect(error.location.column == error.offset - "name == 'a' AND\n".count + 1)
        #expect(try #require(#expect(throws: PredicateSyntaxError.self) { try ObjectPredicate(format: "name == AND x") }).location
            == SourceLocation(line: 1, column: 9))
    }
}
