import Foundation
import Testing
@testable import Strata

@Suite struct JSONModelReaderTests {
    private func read(_ text: String) throws(ModelError) -> ObjectModel {
        try JSONModelReader.read(Data(text.utf8), path: "shop.json")
    }

    private func error(_ text: String) -> String? {
        do {
            _ = try read(text)
            return nil
        } catch {
            return error.description
        }
    }

    @Test func readsAHandWrittenModel() throws {
        let model = try read("""
            {
              "strataModelFormat": 1,
              "entities": [
                { "name": "Tag",
                  "attributes": [ { "name": "name", "type": "string", "optional": false },
                                  { "name": "weight", "type": "Integer 16", "default": 3, "min": 0 } ],
                  "relationships": [ { "name": "items", "destination": "Item", "inverse": "tags", "toMany": true } ],
                  "uniquenessConstraints": [["name"]] },
                { "name": "Item",
                  "relationships": [ { "name": "tags", "destination": "Tag", "inverse": "items", "toMany": true,
                                       "deleteRule": "No Action" } ] }
              ]
            }
            """)
        let tag = try #require(model.entity(named: "Tag"))
        #expect(tag.attribute(named: "name")?.isOptional == false)
        #expect(tag.attribute(named: "weight")?.type == .integer16)
        #expect(tag.attribute(named: "weight")?.defaultValue == "3")
        #expect(tag.attribute(named: "weight")?.isOptional == true)
        #expect(model.entity(named: "Item")?.relationships[0].deleteRule == .noAction)
        #expect(model.validate().isEmpty)
    }

    @Test func malformedJSONNamesFileLineAndColumn() {
        #expect(error("{\n  \"entities\": [\n    { \"name\": \"A\" ]\n}") == "shop.json: line 3, column 19: unexpected ']', expected ',' or '}'")
    }

    @Test func unknownKeyNamesTheEntityAndTheKnownKeys() {
        let message = error(#"{"entities": [{"name": "A", "attributes": [{"name": "x", "type": "string", "optinal": true}]}]}"#)
        #expect(message?.hasPrefix(#"shop.json: line 1, column 76: entity 'A', attribute 'x' has an unknown key "optinal"; known keys: "#) == true)
    }

    @Test func aMisspeltRequiredKeyIsPointedAt() {
        #expect(error(#"{"entities": [{"name": "A", "attributes": [{"name": "x", "tpye": "string"}]}]}"#)
            == #"shop.json: line 1, column 58: entity 'A', attribute 'x' has no "type"; is "tpye" a misspelling of it?"#)
    }

    @Test func unknownTypeNamesTheAttribute() {
        let message = error(#"{"entities": [{"name": "A", "attributes": [{"name": "x", "type": "text"}]}]}"#)
        #expect(message?.hasPrefix("shop.json: line 1, column 66: entity 'A', attribute 'x': unknown type 'text'; known: undefined, integer16") == true)
    }

    @Test func wrongKindOfValue() {
        #expect(error(#"{"entities": [{"name": "A", "abstract": "yes"}]}"#)
            == #"shop.json: line 1, column 41: entity 'A': "abstract" must be true or false, found a string"#)
        #expect(error(#"{"entities": {}}"#) == #"shop.json: line 1, column 14: the model: "entities" must be an array, found an object"#)
    }

    @Test func unsupportedFormatVersion() {
        #expect(error(#"{"strataModelFormat": 2, "entities": []}"#)
            == "shop.json: line 1, column 23: the model: format version 2 is not supported; this Strata reads version 1")
    }

    @Test func attributeTypeIsRequired() {
        #expect(error(#"{"entities": [{"name": "A", "attributes": [{"name": "x"}]}]}"#)
            == #"shop.json: line 1, column 44: entity 'A', attribute 'x' has no "type""#)
    }

    @Test func missingRequiredKeys() {
        #expect(error(#"{"entities": [{"attributes": []}]}"#) == #"shop.json: line 1, column 15: entity '#1' has no "name""#)
        #expect(error(#"{"entities": [{"name": "A", "relationships": [{"name": "r"}]}]}"#)
            == #"shop.json: line 1, column 47: entity 'A', relationship 'r' has no "destination""#)
    }
}
