import Foundation
import Strata
import Testing
@testable import StrataLua

/// Transformable attributes in scripts: read as the tables of their JSON form, written from
/// tables, strings and numbers, and saved as keyed archives that Strata and Foundation's
/// `NSKeyedUnarchiver` read back.
@Suite struct TransformableBindingTests {
    static let model = """
        {"entities": [
          {"name": "Note", "attributes": [{"name": "title", "type": "string"}, {"name": "tags", "type": "transformable"},
             {"name": "settings", "type": "transformable", "valueTransformer": "NSSecureUnarchiveFromData"},
             {"name": "color", "type": "transformable", "valueTransformer": "ColorTransformer"}]}
        ]}
        """

    typealias Fixture = ContextBindingTests.Fixture

    @Test func scriptsWriteArraysAndDictionariesThatAreSavedAsKeyedArchives() throws {
        let fixture = try Fixture(model: Self.model, name: "Notes")
        try fixture.run("""
            ctx:create("Note", {title = "a", tags = {"fantasy", "classic"},
              settings = {fontSize = 12, zoom = 1.5, dark = true, name = "x", when = {["$date"] = "2024-05-01T10:30:15Z"},
                          list = {1, {["$null"] = true}, 3}, none = {["$null"] = true}}})
            ctx:save()
            """)
        let tags = try #require(try fixture.saved("tags", of: "a"))
        #expect(try TransformableValue(keyedArchive: tags) == .array([.string("fantasy"), .string("classic")]))
        let settings = try #require(try fixture.saved("settings", of: "a"))
        #expect(try TransformableValue(keyedArchive: settings) == .dictionary([
            "fontSize": .integer(12), "zoom": .real(1.5), "dark": .bool(true), "name": .string("x"),
            "when": .date(Date(timeIntervalSince1970: 1_714_559_415)), "list": .array([.integer(1), .null, .integer(3)]), "none": .null,
        ]))
        // Foundation's own unarchiver reads them as the objects they stand for.
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: tags)
        unarchiver.requiresSecureCoding = false
        #expect(unarchiver.decodeObject(forKey: NSKeyedArchiveRootObjectKey) as? [String] == ["fantasy", "classic"])
        let settingsUnarchiver = try NSKeyedUnarchiver(forReadingFrom: settings)
        settingsUnarchiver.requiresSecureCoding = false
        let dictionary = try #require(settingsUnarchiver.decodeObject(forKey: NSKeyedArchiveRootObjectKey) as? NSDictionary)
        #expect(dictionary["fontSize"] as? Int == 12)
        #expect(dictionary["when"] as? Date == Date(timeIntervalSince1970: 1_714_559_415))
        #expect((dictionary["list"] as? NSArray)?[1] is NSNull)
        // ctx:query reads them as values too.
        #expect(try fixture.run(#"return ctx:query("Note", {select = {"tags as t"}})[1].t[2]"#) == ["classic"])
    }

    @Test func scriptsReadValuesAsTablesThatWriteBackUnchanged() throws {
        let fixture = try Fixture(model: Self.model, name: "Notes")
        try fixture.context.performAndWait {
            let note = try fixture.context.insert("Note")
            try note.setValue("b", forKey: "title")
            try note.setTransformableValue(.dictionary([
                "words": .array([.string("one"), .null, .string("three")]), "ratio": .real(2), "updated": .date(Date(timeIntervalSinceReferenceDate: 0)),
                "$odd": .integer(1), "site": .url(URL(string: "https://example.com")!),
            ]), forKey: "settings")
            try note.setValue(Data([7, 7]), forKey: "color")
            try fixture.context.save()
        }
        let before = try fixture.saved("settings", of: "b")
        let values = try fixture.run("""
            local note = ctx:first("Note", "title == %@", "b")
            local s = note.settings
            local odd = s["$dictionary"]["$odd"]
            local words = s["$dictionary"].words
            note.settings = s
            note.color = note.color
            note.tags = "just a string"
            ctx:save()
            return words[1], words[2]["$null"], words[3], odd, math.type(s["$dictionary"].ratio), s["$dictionary"].updated["$date"], note.color["$bytes"]
            """)
        #expect(values == ["one", true, "three", 1, "float", "2001-01-01T00:00:00Z", "Bwc="])
        #expect(try fixture.saved("settings", of: "b") == before)
        #expect(try fixture.saved("color", of: "b") == Data([7, 7]))
        #expect(try TransformableValue(keyedArchive: try #require(try fixture.saved("tags", of: "b"))) == .string("just a string"))
    }

    @Test func valuesThatCannotBeKeptAreErrorsNamingTheAttribute() throws {
        let fixture = try Fixture(model: Self.model, name: "Notes")
        #expect { try fixture.run(#"ctx:create("Note", {title = "c", color = {1, 2}})"#) } throws: {
            let message = ($0 as? LuaError)?.message ?? ""
            return message.contains("Note.color is Transformable") && message.contains("ColorTransformer")
        }
        #expect { try fixture.run(#"ctx:create("Note", {title = "d", tags = {{["$date"] = "soon"}}})"#) } throws: {
            ($0 as? LuaError)?.message.contains(#"Note.tags is Transformable: at [0]: "soon" is not an ISO 8601 date"#) == true
        }
        #expect { try fixture.run(#"ctx:create("Note", {title = "e", tags = {print}})"#) } throws: { ($0 as? LuaError) != nil }
    }
}

/// What a transformable test reads back from the store by SQL.
extension ContextBindingTests.Fixture {
    /// The bytes saved for `attribute` of the note titled `title`, read by SQL.
    func saved(_ attribute: String, of title: String) throws -> Data? {
        let database = try Database(path: store.path, configuration: .readOnly)
        defer { database.close() }
        return try database.scalar("SELECT Z\(attribute.uppercased()) FROM ZNOTE WHERE ZTITLE = ?", [.text(title)])?.dataValue
    }
}
