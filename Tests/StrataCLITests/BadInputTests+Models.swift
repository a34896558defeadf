import Foundation
import Testing

// The catalogue's JSON models that were accepted and are refused (issue 31, point 7): an inverse
// leading to a third entity, a table past SQLite's column limit or named as another table,
// values a type cannot hold, a pattern or a template predicate that does not parse.
extension BadInputTests {
    static func jsonModel(_ entities: String, fetchRequests: String = "[]") -> String {
        #"{"strataModelFormat": 1, "fetchRequests": \#(fetchRequests), "entities": [\#(entities)]}"#
    }

    static let wideModel: String = {
        let attributes = (0..<2001).map { String(format: #"{"name": "a%04d", "type": "string"}"#, $0) }.joined(separator: ", ")
        return jsonModel(#"{"name": "Wide", "attributes": [\#(attributes)]}"#)
    }()

    /// Each model, and the lines `strata model validate` prints for it (`create` prints the same
    /// after its summary line); a reader's refusal is one line naming the file's line.
    static let badModels: [(model: String, validation: String?, readError: String?)] = [
        (jsonModel(#"""
            {"name": "A", "relationships": [{"name": "b", "destination": "B", "inverse": "c"}]},
            {"name": "B", "relationships": [{"name": "c", "destination": "C"}]}, {"name": "C"}
            """#),
         "{dir}/m.json: error: entity 'A', property 'b': the inverse 'B.c' leads to 'C', a third entity: an inverse must lead back to 'A' (or an entity of its hierarchy)",
         nil),
        (jsonModel(#"{"name": "_MODELCACHE"}"#),
         "{dir}/m.json: error: entity '_MODELCACHE': the entity's table would be named Z_MODELCACHE, the name of a table Core Data keeps for itself; rename the entity",
         nil),
        (jsonModel(#"{"name": "Book"}, {"name": "BOOK"}"#),
         "{dir}/m.json: error: entity 'Book': the entity's table would be named ZBOOK, as is the table of entity 'BOOK': SQLite does not tell names apart by case; rename one entity",
         nil),
        (wideModel,
         "{dir}/m.json: error: entity 'Wide', property 'a1997': the table ZWIDE of entity 'Wide' and its sub-entities would have 2004 columns; SQLite allows at most 2000 (Z_PK, Z_ENT, Z_OPT, one per attribute and to-one key, and a Z<n>_ column per to-one whose destination has sub-entities), and the column ZA1997 is past the limit",
         nil),
        (jsonModel(#"{"name": "E", "attributes": [{"name": "s", "type": "string"}]}"#, fetchRequests: #"[{"name": "T", "entity": "E", "predicate": "s == == 1"}]"#),
         "{dir}/m.json: error: entity 'E': fetch request 'T': the predicate does not parse: expected a value after '==', found '=='\n  s == == 1\n       ^",
         nil),
        (jsonModel(#"{"name": "E", "attributes": [{"name": "n", "type": "integer16", "default": 99999}]}"#), nil,
         "{dir}/m.json: line 1, column 135: entity 'E', attribute 'n': the default value '99999' is out of the range of Integer 16 (-32768…32767)"),
        (jsonModel(#"{"name": "E", "attributes": [{"name": "n", "type": "double", "min": 1e400}]}"#), nil,
         "{dir}/m.json: line 1, column 128: entity 'E', attribute 'n': the minimum '1e400' is not a finite number"),
        (jsonModel(#"{"name": "E", "attributes": [{"name": "s", "type": "string", "regularExpression": "[a-"}]}"#), nil,
         "{dir}/m.json: line 1, column 142: entity 'E', attribute 's': the regular expression '[a-' does not compile"),
    ]

    @Test(arguments: badModels.indices)
    func aBadModelIsRefusedByValidateAndCreateLeavingNothing(index: Int) throws {
        let (model, validation, readError) = Self.badModels[index]
        let setup = try Setup(store: false)
        try setup.write("m.json", model)
        if let validation {
            let summary = "m: invalid (1 error, 0 warnings)"
            try Self.refuses(["model", "validate", "--model", "{dir}/m.json"], in: setup, status: 3, error: "", output: validation + "\n" + summary + "\n")
            let created = "strata: {dir}/m.json: the model has 1 error\n" + validation
            try Self.refuses(["create", "--store", "{dir}/new.sqlite", "--model", "{dir}/m.json"], in: setup, status: 3, error: created)
            try Self.refuses(["setup", "--store", "{dir}/new.sqlite", "--model", "{dir}/m.json"], in: setup, status: 3, error: created)
        }
        if let readError {
            try Self.refuses(["model", "validate", "--model", "{dir}/m.json"], in: setup, status: 3, error: "strata: " + readError)
            try Self.refuses(["create", "--store", "{dir}/new.sqlite", "--model", "{dir}/m.json"], in: setup, status: 3, error: "strata: " + readError)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: setup.path) == ["m.json"], "create left files behind")
    }
}
